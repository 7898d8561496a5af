package proxy

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/elazarl/goproxy"
)

// The doors: how a request reaches the proxy (reverse, forward HTTP, the
// CONNECT tunnel's MITM through goproxy) and is handed to record or replay.

// streaming makes every write reach the client at once. goproxy flushes
// only text/event-stream and responses whose Transfer-Encoding header says
// chunked, a header Go's client removes: without this an NDJSON stream
// through the reverse proxy (or plain-HTTP forward proxy) waited for its end.
// A replaying proxy answers without goproxy (replayDirect), and flushes
// only a stream it paces.
func (p *Proxy) streaming(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bodyDeadline(w, r, p.bodyReadTimeout())
		if p.mode == ModeReplay && p.replayDirect(w, r) {
			return
		}
		w, r = upgradeWriter(w, r) // a WebSocket's client connection is closed when its session ends (websocket.go)
		h.ServeHTTP(&flushingWriter{ResponseWriter: w}, r)
	})
}

// replayDirect serves a request of a replaying proxy without goproxy,
// whose per-request work (a context, its logging, a response serialized
// by hand in a tunnel) nothing of replay needs: the reverse door, the
// forward proxy's front door and absolute-URL requests go to serveReplay,
// a CONNECT tunnel to the proxy's own server (tunnel.go). False when the
// request must go to goproxy after all (a CONNECT whose connection cannot
// be taken over).
func (p *Proxy) replayDirect(w http.ResponseWriter, r *http.Request) bool {
	switch {
	case p.upstream != nil:
		p.serveReverse(w, r)
	case r.Method == http.MethodConnect:
		return p.serveTunnel(w, r)
	case r.URL.IsAbs():
		p.serveReplay(replayWriter(w, p.opts.SimulateLatency), r)
	default:
		p.nonProxy(w, r)
	}
	return true
}

// replayWriter is w, flushed after each write when replay paces streams
// (each event is one write, pace.go). Otherwise a replayed body is one
// write and the server flushes it when the handler returns, as a plain
// net/http handler's.
func replayWriter(w http.ResponseWriter, paced bool) http.ResponseWriter {
	if paced {
		return &flushingWriter{ResponseWriter: w}
	}
	return w
}

// flushingWriter flushes after each write, so that what an upstream sends
// (a stream, or a slow body) reaches the client as it comes; it passes
// Hijack through (the CONNECT tunnels and WebSockets need it).
type flushingWriter struct{ http.ResponseWriter }

func (f *flushingWriter) Write(b []byte) (int, error) {
	n, err := f.ResponseWriter.Write(b)
	f.Flush()
	return n, err
}

func (f *flushingWriter) Flush() {
	if fl, ok := f.ResponseWriter.(http.Flusher); ok {
		fl.Flush()
	}
}

func (f *flushingWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h, ok := f.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("cassette proxy: the connection cannot be taken over")
	}
	return h.Hijack()
}

func (f *flushingWriter) Unwrap() http.ResponseWriter { return f.ResponseWriter }

func upstreamTransport(t *http.Transport) *http.Transport {
	var tr *http.Transport
	if t != nil {
		tr = t.Clone()
	} else {
		tr = &http.Transport{
			DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:   10 * time.Second,
			IdleConnTimeout:       90 * time.Second,
			ExpectContinueTimeout: time.Second,
			MaxIdleConns:          256,
		}
	}
	// tr.Proxy is the caller's corporate proxy, if any (see chainUpstream);
	// the default transport dials directly.
	tr.DisableCompression = true
	tr.ForceAttemptHTTP2 = true
	if tr.MaxIdleConnsPerHost == 0 {
		tr.MaxIdleConnsPerHost = 64
	}
	return tr
}

func (p *Proxy) newGoproxy() *goproxy.ProxyHttpServer {
	gp := goproxy.NewProxyHttpServer()
	gp.Tr = p.tr
	gp.ConnectDial = nil // NewProxyHttpServer chains to $HTTPS_PROXY; we dial directly
	gp.AllowHTTP2 = true
	gp.KeepAcceptEncoding = false
	gp.Verbose = false
	gp.Logger = log.New(logWriter{p}, "goproxy: ", 0)
	gp.NonproxyHandler = http.HandlerFunc(p.nonProxy)
	// A replaying proxy serves its tunnels itself (tunnel.go); goproxy's
	// MITM is the fallback for a connection that cannot be taken over.
	gp.OnRequest().HandleConnectFunc(func(host string, ctx *goproxy.ProxyCtx) (*goproxy.ConnectAction, string) {
		ctx.UserData = connectTarget(host) // where the tunnel's requests are dialled (connect.go)
		if p.mode == ModePassthrough {
			return &goproxy.ConnectAction{Action: goproxy.ConnectAccept}, host
		}
		return &goproxy.ConnectAction{Action: goproxy.ConnectMitm,
			TLSConfig: func(host string, _ *goproxy.ProxyCtx) (*tls.Config, error) { return p.opts.CA.tlsConfigFor(host) },
		}, host
	})
	gp.OnRequest().DoFunc(p.onRequest)
	return gp
}

func (p *Proxy) nonProxy(w http.ResponseWriter, r *http.Request) {
	if p.ready(w, r) || p.frontDoor(w, r) {
		return
	}
	w.Header().Set(MissHeader, "not-a-proxy-request")
	http.Error(w, "cassette: this is a forward proxy; send absolute-URL requests (HTTPS_PROXY="+p.URL()+
		") or start it with --upstream URL to use it as a reverse proxy", http.StatusBadRequest)
}

// serveReverse is the reverse-proxy front door: origin-form requests are
// rewritten onto the upstream base URL and go through the same pipeline.
func (p *Proxy) serveReverse(w http.ResponseWriter, r *http.Request) {
	if p.ready(w, r) {
		return
	}
	p.serveAt(p.upstream, w, r)
}

// ready answers the readiness probe (ReadyPath) of an origin-form
// request, whatever the mode and door: the proxy as a fake (verify's
// fake.ready). It is no request to the cassettes, so never a miss.
func (p *Proxy) ready(w http.ResponseWriter, r *http.Request) bool {
	if r.URL.Path != ReadyPath || r.Method != http.MethodGet {
		return false
	}
	w.WriteHeader(http.StatusNoContent)
	return true
}

// serveAt rewrites an origin-form request onto the base URL upstream and
// serves it through the pipeline.
func (p *Proxy) serveAt(upstream *url.URL, w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		http.Error(w, "cassette: this is a reverse proxy for "+upstream.String()+"; CONNECT is not supported", http.StatusMethodNotAllowed)
		return
	}
	u := *upstream
	base := strings.TrimSuffix(upstream.Path, "/")
	u.Path = base + r.URL.Path
	if r.URL.RawPath != "" {
		u.RawPath = strings.TrimSuffix(upstream.EscapedPath(), "/") + r.URL.EscapedPath()
	} else {
		u.RawPath = ""
	}
	u.RawQuery = r.URL.RawQuery
	r.URL = &u
	r.Host = u.Host
	if p.mode == ModeReplay {
		p.serveReplay(replayWriter(w, p.opts.SimulateLatency), r) // nothing to forward: goproxy is not needed
		return
	}
	p.gp.ServeHTTP(w, r)
}

// onRequest runs for every request of both front doors, plain and MITM'd,
// HTTP/1.1 and HTTP/2.
func (p *Proxy) onRequest(req *http.Request, ctx *goproxy.ProxyCtx) (*http.Request, *http.Response) {
	seq := p.seq.Add(1) - 1 // arrival order
	req.RemoteAddr = ""
	req = atTunnelTarget(req, ctx)
	switch p.mode {
	case ModePassthrough:
		ctx.RoundTripper = goproxy.RoundTripperFunc(p.passTrip)
		return req, nil
	case ModeRecord:
		ctx.RoundTripper = p.recordTrip(seq)
		return req, nil
	}
	return p.replay(req, ctx, seq) // replay and replay-with-new-episodes (replaypath.go)
}

// synthetic builds a response the proxy makes up itself. Returning one
// instead of an error keeps goproxy's HTTP/1.1 MITM path from closing the
// client's connection without a word.
func (p *Proxy) synthetic(req *http.Request, code int, text string) *http.Response {
	body := []byte(text)
	status := http.StatusText(code)
	if code == MissStatus {
		status = "Cassette Replay Miss"
	}
	h := http.Header{}
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set(MissHeader, "error")
	return &http.Response{StatusCode: code, Status: fmt.Sprintf("%d %s", code, status),
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: h, Request: req,
		Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body))}
}

// originOf is a URL's scheme and host, with "/…" when it has more: what a
// live log line may show of a URL recorded before the session ends.
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "<unparsable URL>"
	}
	o := u.Scheme + "://" + u.Host
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		o += "/…"
	}
	return o
}

// ShownURL is raw as messages show it: without userinfo, and its query
// (which may carry a credential known only by its name) replaced by "?…".
func ShownURL(raw string) string { return shownURL(raw) }

// shownURL is a URL for messages and logs: its query (which may carry a
// credential under any parameter name) and userinfo left out.
func shownURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "<unparsable URL>"
	}
	u.User = nil
	if u.RawQuery != "" {
		u.RawQuery = ""
		return u.String() + "?…"
	}
	return u.String()
}

// storedBody is a replayed body: the stored bytes, written whole in one
// Write (WriterTo: io.Copy hands them over at once). A strings.Reader
// wrote them through io.WriteString, which net/http's bufio copied in
// 4 KiB pieces, a write system call each (17 for a 64 KiB body, against 2
// for a plain handler's w.Write).
type storedBody struct {
	s   string
	off int
}

func newStoredBody(b string) io.ReadCloser { return &storedBody{s: b} }

func (b *storedBody) Read(p []byte) (int, error) {
	if b.off >= len(b.s) {
		return 0, io.EOF
	}
	n := copy(p, b.s[b.off:])
	b.off += n
	return n, nil
}

// WriteTo writes what is left in one Write, from the stored string's own
// bytes: no copy. The writers it is given (net/http's response writers,
// flushingWriter) only read them, as io.Writer requires.
func (b *storedBody) WriteTo(w io.Writer) (int64, error) {
	rest := b.s[b.off:]
	if len(rest) == 0 {
		return 0, nil
	}
	n, err := w.Write(unsafe.Slice(unsafe.StringData(rest), len(rest)))
	b.off += n
	return int64(n), err
}

func (b *storedBody) Close() error { return nil }
