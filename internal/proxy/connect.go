package proxy

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/elazarl/goproxy"
)

// Inside a CONNECT tunnel the request goes to the tunnel's target, the
// host:port the client asked the proxy to connect to, never to the host
// its inner Host header or HTTP/2 :authority names: a client may name
// another host there than the one it dials (grpc-go with ServerName
// "localhost", dialling 127.0.0.1:PORT, was sent to localhost:443).
// goproxy builds the URL of a MITM'd request from the inner host; the
// request keeps that URL (it is what the client addressed: the cassette
// records it, replay matches it, and the upstream's certificate is
// verified against that name, as the client verified the proxy's), and
// is dialled at the tunnel's target. A tunnel whose target differs from
// its URL's host:port gets a transport of its own (tunnelTransports), so
// that a connection dialled to one target is never pooled for another.

// connectTarget is the host:port of the CONNECT a request came through,
// carried in goproxy's ctx.UserData (copied into every request of the
// tunnel).
type connectTarget string

// dialTargetKey is the request context key under which a request carries
// the address it is dialled at.
type dialTargetKey struct{}

// maxTunnelTransports bounds the transports kept for tunnels whose target
// differs from their inner host; past it one is made per request.
const maxTunnelTransports = 64

// tunnelTransports are the upstream transports of tunnels dialled at a
// target other than their URL's host, by target and URL host.
type tunnelTransports struct {
	mu sync.Mutex
	by map[string]*http.Transport
}

// atTunnelTarget returns req to be dialled at the CONNECT target of ctx
// (goproxy's MITM; nil: a tunnel of tunnel.go, whose target the request's
// context holds) when that differs from the host:port its URL names (the default port of
// its scheme added), and req unchanged otherwise.
func atTunnelTarget(req *http.Request, ctx *goproxy.ProxyCtx) *http.Request {
	var target connectTarget
	if ctx != nil {
		target, _ = ctx.UserData.(connectTarget)
	} else if h, ok := req.Context().Value(connectHostKey{}).(string); ok { // a tunnel the proxy serves itself (tunnel.go)
		target = connectTarget(h)
	}
	if target == "" || req.URL == nil {
		return req
	}
	if strings.EqualFold(hostPort(req.URL.Scheme, req.URL.Host), string(target)) {
		return req
	}
	return req.WithContext(context.WithValue(req.Context(), dialTargetKey{}, string(target)))
}

// hostPort is host with the scheme's default port when it names none.
func hostPort(scheme, host string) string {
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host
	}
	port := "443"
	if scheme == "http" || scheme == "ws" {
		port = "80"
	}
	return net.JoinHostPort(strings.Trim(host, "[]"), port)
}

// trFor is the upstream transport for req: the proxy's, or, for a request
// of a tunnel whose target differs from its URL's host, one that dials the
// target.
func (p *Proxy) trFor(req *http.Request) *http.Transport {
	target, _ := req.Context().Value(dialTargetKey{}).(string)
	if target == "" {
		return p.tr
	}
	key := target + " " + req.URL.Host
	p.tunnelTrs.mu.Lock()
	defer p.tunnelTrs.mu.Unlock()
	if tr := p.tunnelTrs.by[key]; tr != nil {
		return tr
	}
	tr := dialingAt(p.tr, target)
	if p.tunnelTrs.by == nil {
		p.tunnelTrs.by = map[string]*http.Transport{}
	}
	if len(p.tunnelTrs.by) < maxTunnelTransports {
		p.tunnelTrs.by[key] = tr
	}
	return tr
}

// dialingAt is a copy of base that dials target whatever address a
// request names (TLS is still verified against the request's host).
func dialingAt(base *http.Transport, target string) *http.Transport {
	tr := base.Clone()
	dial := base.DialContext
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return dial(ctx, network, target)
	}
	if base.DialTLSContext != nil {
		tr.DialTLSContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
			return base.DialTLSContext(ctx, network, target)
		}
	}
	return tr
}

// closeIdle closes the idle connections of every tunnel transport.
func (t *tunnelTransports) closeIdle() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, tr := range t.by {
		tr.CloseIdleConnections()
	}
}
