package proxy

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// UnixHost is the host under which requests to a unix-socket upstream are
// recorded, by the proxy and by internal/recording alike: the socket's path
// belongs to one machine, so it is left out of the cassette, and
// http://localhost/... is how Docker's documentation and
// `curl --unix-socket` write such requests.
const UnixHost = "localhost"

// parseUnixUpstream reads an upstream of the form unix:///path/to.sock.
// It returns the socket's path and the base URL requests are rewritten onto
// (http://localhost); ok is false for any other scheme.
func parseUnixUpstream(u *url.URL) (socket string, base *url.URL, ok bool, err error) {
	if u.Scheme != "unix" {
		return "", nil, false, nil
	}
	if u.Host != "" || u.Path == "" || u.Opaque != "" {
		return "", nil, true, &outcome.Error{Reason: outcome.EUsage,
			Message:  fmt.Sprintf("--upstream %q is not a unix socket URL", u.String()),
			Problems: []outcome.Problem{{Field: "--upstream", Message: "a unix socket URL has an absolute path and no host", Expected: "like unix:///run/podman/podman.sock"}},
			NextStep: outcome.Command("cassette", "proxy", "--help")}
	}
	return u.Path, &url.URL{Scheme: "http", Host: UnixHost}, true, nil
}

// DialUnix makes tr reach every request's host through the socket (the
// proxy's unix upstream and internal/recording's unix real side).
func DialUnix(tr *http.Transport, socket string) {
	var d net.Dialer
	tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
		return d.DialContext(ctx, "unix", socket)
	}
	tr.DialTLSContext = nil
}
