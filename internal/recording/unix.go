package recording

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/proxy"
)

// viaUnixSocket returns opts reaching a real.base_url of unix:///path (the
// Docker engine's socket) through that socket: requests go to
// http://localhost/..., dialled on the socket. Any other base URL is
// returned as it is. done closes the transport it made.
func viaUnixSocket(opts HTTPOptions) (out HTTPOptions, done func(), err error) {
	done = func() {}
	if !strings.HasPrefix(opts.BaseURL, "unix:") {
		return opts, done, nil
	}
	u, err := url.Parse(opts.BaseURL)
	if err != nil || u.Host != "" || u.Path == "" || u.Opaque != "" || u.RawQuery != "" {
		return opts, done, &outcome.Error{Reason: outcome.ECfgParse,
			Message:  fmt.Sprintf("real.base_url %q of adapter %s is not a unix socket URL", opts.BaseURL, opts.Adapter),
			Problems: []outcome.Problem{{Field: "adapters." + opts.Adapter + ".real.base_url", Message: "a unix socket URL has an absolute path and no host", Expected: "like unix:///run/podman/podman.sock"}},
			NextStep: outcome.Command("cassette", "validate")}
	}
	var tr *http.Transport
	switch t := opts.Transport.(type) {
	case nil:
		tr = http.DefaultTransport.(*http.Transport).Clone()
		tr.DisableCompression = true
	case *http.Transport:
		tr = t.Clone()
	default:
		return opts, done, fmt.Errorf("recording through the unix socket %s needs an *http.Transport, not %T", u.Path, opts.Transport)
	}
	tr.Proxy = nil
	proxy.DialUnix(tr, u.Path)
	opts.Transport, opts.BaseURL = tr, "http://"+proxy.UnixHost // recorded as the proxy records a unix upstream
	return opts, tr.CloseIdleConnections, nil
}
