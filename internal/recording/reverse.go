package recording

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/infra"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/proxy"
	"github.com/cassette-dev/cassette/internal/redact"
)

// The variables a cli adapter's real.env may refer to when the adapter has
// a real.base_url: the command's HTTP then goes through a reverse recording
// proxy in front of that base URL (http, https or unix:///path), and these
// name the proxy, for a tool that takes its server's address from a variable
// (DOCKER_HOST: "tcp://${CASSETTE_PROXY_ADDR}").
const (
	ProxyAddrVar = "CASSETTE_PROXY_ADDR" // 127.0.0.1:PORT
	ProxyURLVar  = "CASSETTE_PROXY_URL"  // http://127.0.0.1:PORT
)

// ExpandEnv expands ${VAR} in the values of a real.env with lookup (nil is
// os.LookupEnv), except ${CASSETTE_PROXY_ADDR} and ${CASSETTE_PROXY_URL},
// which RecordCLI fills in once the recording proxy listens.
func ExpandEnv(env map[string]string, lookup func(string) (string, bool)) map[string]string {
	out := make(map[string]string, len(env))
	for k, v := range env {
		out[k], _ = cfgschema.Expand(v, func(name string) (string, bool) {
			if name == ProxyAddrVar || name == ProxyURLVar {
				return "${" + name + "}", true
			}
			if lookup == nil {
				return os.LookupEnv(name)
			}
			return lookup(name)
		})
	}
	return out
}

// fillProxyVars replaces the proxy variables left by ExpandEnv with their
// values among vars (NAME=value); without a proxy they expand to "".
func fillProxyVars(v string, vars []string) string {
	if !strings.Contains(v, "${CASSETTE_PROXY_") {
		return v
	}
	out, _ := cfgschema.Expand(v, func(name string) (string, bool) {
		for _, kv := range vars {
			if k, val, _ := strings.Cut(kv, "="); k == name {
				return val, true
			}
		}
		return "", false
	})
	return out
}

// reverseInterceptor is the recording proxy as a reverse proxy in front of
// one upstream: the child is told where it listens (ProxyAddrVar,
// ProxyURLVar) instead of being given HTTPS_PROXY.
type reverseInterceptor struct{ proxyInterceptor }

func (i *reverseInterceptor) Env() []string {
	return []string{ProxyAddrVar + "=" + i.p.Addr(), ProxyURLVar + "=" + i.p.URL()}
}

// startReverse starts the reverse recording proxy of ProxyConfig.Upstream,
// once the upstream accepts a connection: a command run against an engine
// that is not there would only record its own failure as the real output.
func startReverse(ctx context.Context, cfg ProxyConfig, red *redact.Redactor) (Interceptor, error) {
	p, err := cfg.newProxy(red, proxy.Options{Upstream: cfg.Upstream})
	if err != nil {
		return nil, err
	}
	if err := reachable(ctx, cfg.Upstream); err != nil {
		return nil, &outcome.Error{Reason: infra.ClassifyTransport(err).Reason, Err: err, // refused, DNS, timeout
			Message: fmt.Sprintf("the real side at %s cannot be reached: start it (or point real.base_url, or `cassette record --base-url`, at one that runs), then run the same command again", shownUpstream(cfg.Upstream))}
	}
	i, err := cfg.start(p)
	if err != nil {
		return nil, err
	}
	return &reverseInterceptor{*i}, nil
}

// reachable dials the upstream once (its socket, or its host and port).
func reachable(ctx context.Context, upstream string) error {
	u, err := url.Parse(upstream)
	if err != nil {
		return err
	}
	network, addr := "tcp", u.Host
	switch {
	case u.Scheme == "unix":
		network, addr = "unix", u.Path
	case u.Port() == "" && u.Scheme == "https":
		addr = net.JoinHostPort(u.Hostname(), "443")
	case u.Port() == "":
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return err
	}
	return c.Close()
}

// shownUpstream is an upstream URL for messages: no userinfo, no query.
func shownUpstream(upstream string) string {
	u, err := url.Parse(upstream)
	if err != nil {
		return "<unparsable URL>"
	}
	u.User, u.RawQuery = nil, ""
	return u.String()
}
