package proxy

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/redact"
	"github.com/elazarl/goproxy"
)

// Mode is what the proxy does with a request.
type Mode string

// The modes.
const (
	// ModeRecord forwards every request to the real upstream and records
	// the interaction (redacted) while the response streams to the client.
	ModeRecord Mode = "record"
	// ModeReplay serves every request from the cassettes and never touches
	// the network; a request nothing matches gets a 599 explaining the miss.
	ModeReplay Mode = "replay"
	// ModePassthrough forwards every request and records nothing; HTTPS is
	// tunnelled, not intercepted.
	ModePassthrough Mode = "passthrough"
	// ModeRecordOnce (go-vcr's) records when the cassettes hold no
	// interaction and replays otherwise.
	ModeRecordOnce Mode = "record-once"
	// ModeReplayWithNewEpisodes (go-vcr's) serves what the cassettes hold
	// and forwards and records the requests they do not match.
	ModeReplayWithNewEpisodes Mode = "replay-with-new-episodes"
)

// Modes lists every mode, in the order the help text shows them.
var Modes = []Mode{ModeRecord, ModeReplay, ModePassthrough, ModeRecordOnce, ModeReplayWithNewEpisodes}

// ParseMode parses a --mode flag value.
func ParseMode(s string) (Mode, error) {
	for _, m := range Modes {
		if string(m) == s {
			return m, nil
		}
	}
	names := make([]string, len(Modes))
	for i, m := range Modes {
		names[i] = string(m)
	}
	return "", &cassettes.Error{Reason: cassettes.EUsage,
		Message:  fmt.Sprintf("unknown proxy mode %q", s),
		Problems: []cassettes.Problem{{Field: "--mode", Message: "unknown mode " + strconv.Quote(s), Expected: strings.Join(names, ", ")}},
		NextStep: "cassette proxy --mode replay --cassette cassettes/"}
}

// MissStatus is the status of the response to a request replay cannot serve.
const MissStatus = 599

// MissHeader marks a response the proxy made up (a replay miss or an
// upstream failure) rather than one recorded or relayed.
const MissHeader = "X-Cassette-Miss"

// ReadyPath answers 204 on a reverse proxy, whatever its mode, so that a
// replay proxy can be an adapter's fake (`fake.ready` in cassette.yaml).
const ReadyPath = "/.well-known/cassette/ready"

// Options configure a Proxy.
type Options struct {
	Mode             Mode
	Listen           string // default "127.0.0.1:0"
	AllowNonLoopback bool   // required for a non-loopback Listen
	// AllowStatus are failing statuses (408, 429, 5xx) the recorded calls
	// answer on purpose: recorded like any other, not noted as failures.
	AllowStatus []int
	// Upstream makes the proxy a reverse proxy in front of this base URL
	// (for clients that cannot use a proxy); "" makes it a forward proxy
	// with HTTPS MITM.
	Upstream string
	// CA signs the MITM leaf certificates of the forward proxy; required
	// unless Upstream is set or Mode is passthrough.
	CA *CA
	// Cassettes are what replay serves (and record-once and
	// replay-with-new-episodes start from). Bodies held in sidecar files
	// must be loaded into Body before.
	Cassettes []*cassettes.Cassette
	Match     MatchOptions
	// MatchFor, when set, gives the match rules of each cassette (its
	// adapter's or scenario's `match:` in cassette.yaml); Match is then
	// only the default for an empty set of cassettes.
	MatchFor func(*cassettes.Cassette) MatchOptions
	// Secrets are the declared credential values (name → value, see
	// redact.FromEnv); they are scrubbed from every recorded URL, header
	// and body, as are credential headers and known key formats.
	Secrets map[string]string
	// Redact is called on each captured interaction before it is stored,
	// and before the built-in redaction: it gets the raw interaction (bodies
	// already decoded, see DecodeBodies) so that it can learn the values it
	// hides because of their name and scrub them elsewhere; the built-in
	// redaction then runs on its result. It is called again on every stored
	// interaction by Interactions, so that values learned later are scrubbed
	// from earlier interactions too: it must be idempotent. Replay calls it
	// on an incoming request (with an empty response) that matches no
	// recorded one as it came, before matching it again (replaypath.go).
	// It is called concurrently.
	Redact func(*cassettes.Interaction)
	// Transport reaches the upstream (Upstream.Transport builds one with the
	// user's TLS settings and corporate proxy; tests set RootCAs for a
	// self-signed upstream). It is cloned; its Proxy is kept (never used to
	// reach this proxy itself), and compression is not requested (see the
	// package doc).
	Transport *http.Transport
	// SimulateLatency delays each replayed response by its recorded
	// duration, and serves a recorded stream (SSE, NDJSON) event by event at
	// the recorded times (see pace.go).
	SimulateLatency bool
	// Log receives a line per recorded request, the first replayed ones
	// (see logReplay) and the full text of every replay miss; nil discards.
	Log io.Writer
	// MaxRequestBody bounds a request body the proxy buffers to record or
	// match it (0: DefaultMaxRequestBody); see limits.go.
	MaxRequestBody int64
	// BodyReadTimeout bounds the reading of a request body (0:
	// DefaultBodyReadTimeout).
	BodyReadTimeout time.Duration
}

// Proxy is a running (or ready to run) recording, replaying or passthrough
// proxy. Its methods are safe for concurrent use.
type Proxy struct {
	opts     Options
	mode     Mode // effective: record-once resolved
	upstream *url.URL
	socket   string // a unix-socket upstream's path (see unix.go)
	gp       *goproxy.ProxyHttpServer
	tr       *http.Transport
	idx      *matcher
	handler  http.Handler

	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error

	seq      atomic.Int64
	replayed atomic.Int64 // requests served from the cassettes (see logReplay)

	mu       sync.Mutex
	recorded []recorded
	misses   []*Miss
	inflight int
	waiters  []chan struct{}

	// incomplete are the responses left out because they were cut short
	// (guarded by mu).
	incomplete []Incomplete

	logMu sync.Mutex

	// learned is the session's scrub list: values the built-in redaction
	// hid because of a header's name.
	learned learned

	// fails are the upstream failures seen (see Failures).
	fails failures
	// origin is the one recorded host a replaying forward proxy serves
	// origin-form requests from; hosts are all the recorded hosts.
	origin *url.URL
	hosts  []string

	srv   *http.Server
	ln    *trackingListener
	addr  string
	close sync.Once
}

type recorded struct {
	seq int64
	it  cassettes.Interaction
}

// New checks opts and builds a proxy; Start makes it listen.
func New(opts Options) (*Proxy, error) {
	if opts.Mode == "" {
		opts.Mode = ModeRecord
	}
	if _, err := ParseMode(string(opts.Mode)); err != nil {
		return nil, err
	}
	if opts.Listen == "" {
		opts.Listen = "127.0.0.1:0"
	}
	if err := checkListen(opts.Listen, opts.AllowNonLoopback); err != nil {
		return nil, err
	}
	p := &Proxy{opts: opts, mode: opts.Mode, now: time.Now, sleep: sleepCtx}
	if opts.Upstream != "" {
		u, err := url.Parse(opts.Upstream)
		if err == nil {
			var isUnix bool
			if p.socket, p.upstream, isUnix, err = parseUnixUpstream(u); isUnix {
				if err != nil {
					return nil, err
				}
				u = p.upstream
			}
		}
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, &cassettes.Error{Reason: cassettes.EUsage,
				Message:  fmt.Sprintf("--upstream %q is not an http(s) base URL", opts.Upstream),
				Problems: []cassettes.Problem{{Field: "--upstream", Message: "not an absolute http(s) URL", Expected: "like https://api.example.com or unix:///run/podman/podman.sock"}},
				NextStep: "cassette proxy --upstream https://api.example.com --mode record"}
		}
		u.RawQuery, u.Fragment = "", ""
		p.upstream = u
	}
	if p.mode == ModeRecordOnce {
		p.mode = ModeRecord
		for _, c := range opts.Cassettes {
			if len(c.Interactions) > 0 {
				p.mode = ModeReplay
				break
			}
		}
	}
	if p.upstream == nil && p.mode != ModePassthrough && opts.CA == nil {
		return nil, &cassettes.Error{Reason: cassettes.EUsage,
			Message:  "a forward proxy in mode " + string(opts.Mode) + " needs a CA to intercept HTTPS",
			NextStep: "cassette ca init"}
	}
	p.idx = newMatcher(opts.Cassettes, opts.Match, opts.MatchFor, p.redact)
	if err := p.idx.check(); err != nil {
		return nil, &cassettes.Error{Reason: cassettes.EUsage, Message: err.Error(), NextStep: "cassette proxy --help   # the matching flags"}
	}
	p.origin, p.hosts = replayOrigin(p.mode, p.upstream, opts.Cassettes)
	p.tr = upstreamTransport(opts.Transport)
	if p.socket != "" {
		dialUnix(p.tr, p.socket)
	}
	p.gp = p.newGoproxy()
	p.chainUpstream()
	if p.upstream != nil {
		p.handler = p.streaming(http.HandlerFunc(p.serveReverse))
	} else {
		p.handler = p.streaming(p.gp)
	}
	return p, nil
}

// streaming makes every write reach the client at once. goproxy flushes
// only text/event-stream and responses whose Transfer-Encoding header says
// chunked, a header Go's client removes: without this an NDJSON stream
// through the reverse proxy (or plain-HTTP forward proxy) waited for its end.
func (p *Proxy) streaming(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bodyDeadline(w, r, p.bodyReadTimeout())
		h.ServeHTTP(&flushingWriter{ResponseWriter: w}, r)
	})
}

// flushingWriter flushes after each write, so that what an upstream sends
// (a stream, or a slow body) reaches the client as it comes; it passes
// Hijack through (the CONNECT tunnels and WebSockets need it).
//
// WriteString is how a replayed body arrives (a strings.Reader over the
// stored bytes writes itself whole, in one call): it goes to the
// connection without a copy and without a flush, which the server does
// when the handler returns. A replayed stream served event by event
// (SimulateLatency, pace.go) comes through Write, flushed.
type flushingWriter struct{ http.ResponseWriter }

func (f *flushingWriter) Write(b []byte) (int, error) {
	n, err := f.ResponseWriter.Write(b)
	f.Flush()
	return n, err
}

func (f *flushingWriter) WriteString(s string) (int, error) {
	return io.WriteString(f.ResponseWriter, s)
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

// checkListen refuses a non-loopback address unless allowed.
func checkListen(addr string, allow bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return &cassettes.Error{Reason: cassettes.EUsage, Err: err,
			Message:  fmt.Sprintf("--listen %q is not host:port", addr),
			NextStep: "cassette proxy --listen 127.0.0.1:8080"}
	}
	if allow {
		return nil
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return &cassettes.Error{Reason: cassettes.EUsage,
		Message: fmt.Sprintf("--listen %q is not a loopback address: anyone who can reach it could use the proxy and read what it records", addr),
		Problems: []cassettes.Problem{{Field: "--listen", Message: "non-loopback address", Expected: "127.0.0.1:PORT or [::1]:PORT",
			Suggestion: "pass --allow-non-loopback if this is really wanted"}},
		NextStep: "cassette proxy --listen 127.0.0.1:8080"}
}

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
	gp.OnRequest().HandleConnectFunc(func(host string, ctx *goproxy.ProxyCtx) (*goproxy.ConnectAction, string) {
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

type logWriter struct{ p *Proxy }

// urlQuery finds the query of a URL quoted in a message (see shownURL).
var urlQuery = regexp.MustCompile(`(https?://[^\s"'?]*)\?[^\s"']*`)

func (w logWriter) Write(b []byte) (int, error) {
	// goproxy's own warnings may quote URLs: scrub them like everything else.
	line := urlQuery.ReplaceAllString(strings.TrimSuffix(string(b), "\n"), "${1}?…")
	w.p.logf("%s", redact.RedactString(line, w.p.secrets()))
	return len(b), nil
}

func (p *Proxy) logf(format string, args ...any) {
	if p.opts.Log == nil {
		return
	}
	p.logMu.Lock()
	defer p.logMu.Unlock()
	fmt.Fprintf(p.opts.Log, "cassette proxy: "+format+"\n", args...)
}

func (p *Proxy) nonProxy(w http.ResponseWriter, r *http.Request) {
	if p.frontDoor(w, r) {
		return
	}
	w.Header().Set(MissHeader, "not-a-proxy-request")
	http.Error(w, "cassette: this is a forward proxy; send absolute-URL requests (HTTPS_PROXY="+p.URL()+
		") or start it with --upstream URL to use it as a reverse proxy", http.StatusBadRequest)
}

// serveReverse is the reverse-proxy front door: origin-form requests are
// rewritten onto the upstream base URL and go through the same pipeline.
func (p *Proxy) serveReverse(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == ReadyPath && r.Method == http.MethodGet {
		w.WriteHeader(http.StatusNoContent) // the proxy as a fake: verify's fake.ready
		return
	}
	p.serveAt(p.upstream, w, r)
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
	if p.mode == ModeReplay && !p.opts.SimulateLatency {
		p.serveReplay(w, r) // nothing to forward: goproxy's per-request work is not needed
		return
	}
	p.gp.ServeHTTP(w, r)
}

// onRequest runs for every request of both front doors, plain and MITM'd,
// HTTP/1.1 and HTTP/2.
func (p *Proxy) onRequest(req *http.Request, ctx *goproxy.ProxyCtx) (*http.Request, *http.Response) {
	seq := p.seq.Add(1) - 1 // arrival order
	req.RemoteAddr = ""
	switch p.mode {
	case ModePassthrough:
		ctx.RoundTripper = goproxy.RoundTripperFunc(p.passTrip)
		return req, nil
	case ModeRecord:
		ctx.RoundTripper = p.recordTrip(seq)
		return req, nil
	}
	body, err := p.readBoundedBody(req)
	if err != nil {
		return req, p.bodyError(req, err)
	}
	it, miss := p.replayLookup(req, body)
	if it != nil {
		p.logReplay(it)
		if p.opts.SimulateLatency && it.Response.Duration > 0 {
			if err := p.sleep(req.Context(), time.Duration(it.Response.Duration)); err != nil {
				return req, p.synthetic(req, MissStatus, "cassette: request cancelled during simulated latency\n")
			}
		}
		resp := cannedResponse(req, it)
		if p.opts.SimulateLatency {
			p.paced(req.Context(), resp, it.Response) // a stream: event by event (pace.go)
		}
		return req, resp
	}
	if p.mode == ModeReplayWithNewEpisodes {
		req.Body = io.NopCloser(bytes.NewReader(body))
		ctx.RoundTripper = p.recordTrip(seq)
		return req, nil
	}
	p.mu.Lock()
	p.misses = append(p.misses, miss)
	p.mu.Unlock()
	text := miss.Text()
	p.logf("%s", strings.TrimSuffix(text, "\n"))
	resp := p.synthetic(req, MissStatus, text)
	resp.Header.Set(MissHeader, "replay")
	return req, resp
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

// cannedResponse serves a recorded response.
func cannedResponse(req *http.Request, it *cassettes.Interaction) *http.Response {
	r := it.Response
	// The body is served from the stored string, never copied: a reader
	// over it costs the same at 600 bytes and at 64 KiB.
	body := string(r.Body)
	h := r.Headers.Clone()
	if h == nil {
		h = http.Header{}
	}
	n := int64(len(body))
	if req.Method == http.MethodHead {
		body, n = "", r.ContentLength
		if n <= 0 {
			n, _ = strconv.ParseInt(h.Get("Content-Length"), 10, 64)
		}
	} else if h.Get("Content-Length") != "" {
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	status := r.Status
	if status == "" {
		status = fmt.Sprintf("%d %s", r.Code, http.StatusText(r.Code))
	} else if !strings.HasPrefix(status, strconv.Itoa(r.Code)) {
		status = fmt.Sprintf("%d %s", r.Code, status)
	}
	return &http.Response{StatusCode: r.Code, Status: status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: h, Request: req,
		Trailer: r.Trailer.Clone(), Body: io.NopCloser(strings.NewReader(body)), ContentLength: n}
}

func (p *Proxy) passTrip(req *http.Request, _ *goproxy.ProxyCtx) (*http.Response, error) {
	resp, err := p.tr.RoundTrip(req)
	if err != nil {
		return p.upstreamFailure(req, err), nil
	}
	return resp, nil
}

func (p *Proxy) upstreamFailure(req *http.Request, err error) *http.Response {
	// A query may hold a credential known only by its parameter's name (the
	// recorder learns it from stored interactions; this one is not stored):
	// messages show the URL without its query.
	u := redact.RedactString(shownURL(req.URL.String()), p.secrets())
	msg := redact.RedactString(strings.ReplaceAll(err.Error(), req.URL.String(), u), p.secrets())
	f := p.failed(req, err, 0, "")
	p.logf("upstream failed: %s %s: [%s] %s", req.Method, u, f.Reason, msg)
	resp := p.synthetic(req, http.StatusBadGateway,
		fmt.Sprintf("cassette: the upstream did not answer %s %s: [%s] %s: %s\nnext step: check that the service is reachable, then retry\n", req.Method, u, f.Reason, f.Class, msg))
	resp.Header.Set(MissHeader, "upstream")
	return resp
}

// redact decodes compressed bodies, learns the values of the credential
// headers (request side, then response side, all before any body is
// scrubbed), calls Options.Redact, then applies the built-in redaction with
// the declared and learned values, and makes the recorded lengths agree with
// the (possibly shortened) bodies.
func (p *Proxy) redact(it *cassettes.Interaction) {
	DecodeBodies(it)
	rq, rs := &it.Request, &it.Response
	p.learned.learnHeaders(rq.Headers)
	p.learned.learnHeaders(rq.Trailer)
	p.learned.learnHeaders(rs.Headers)
	p.learned.learnHeaders(rs.Trailer)
	if p.opts.Redact != nil {
		p.opts.Redact(it)
	}
	s := p.secrets()
	rq.URL = redact.RedactString(rq.URL, s)
	rq.RequestURI = redact.RedactString(rq.RequestURI, s)
	rq.Host = redact.RedactString(rq.Host, s)
	rq.Headers = redact.RedactHeaders(rq.Headers, s)
	rq.Trailer = redact.RedactHeaders(rq.Trailer, s)
	rq.Body = cassettes.Body(redact.Redact([]byte(rq.Body), s))
	rq.Form = formOf(rq)
	rs.Headers = redact.RedactHeaders(rs.Headers, s)
	rs.Trailer = redact.RedactHeaders(rs.Trailer, s)
	rs.Status = redact.RedactString(rs.Status, s)
	rs.Body = cassettes.Body(redact.Redact([]byte(rs.Body), s))
	fixLength(&rq.ContentLength, rq.Headers, len(rq.Body))
	if it.Response.Code != 0 && !headOrBodiless(rq.Method, rs.Code) {
		fixLength(&rs.ContentLength, rs.Headers, len(rs.Body))
	}
}

// secrets returns the declared values and those learned so far.
func (p *Proxy) secrets() map[string]string { return p.learned.with(p.opts.Secrets) }

func headOrBodiless(method string, code int) bool {
	return method == http.MethodHead || code == http.StatusNoContent || code == http.StatusNotModified || (code >= 100 && code < 200)
}

func fixLength(n *int64, h http.Header, l int) {
	if *n > 0 {
		*n = int64(l)
	}
	if h.Get("Content-Length") != "" {
		h.Set("Content-Length", strconv.Itoa(l))
	}
}

func captureRequest(req *http.Request, body []byte) cassettes.Request {
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	return cassettes.Request{
		Proto: req.Proto, ProtoMajor: req.ProtoMajor, ProtoMinor: req.ProtoMinor,
		ContentLength: int64(len(body)), TransferEncoding: req.TransferEncoding,
		Host: host, Body: cassettes.Body(body), Headers: req.Header.Clone(),
		URL: req.URL.String(), Method: req.Method,
	}
}

// formOf is the request's form as go-vcr records it (and its default
// matcher compares it): the URL query and a urlencoded body, parsed. It is
// taken from the request once redacted, so that it holds nothing the URL
// and body do not (a decoded query value is another spelling of a secret:
// `a+b` decodes to `a b`).
func formOf(q *cassettes.Request) url.Values {
	u, err := url.Parse(q.URL)
	if err != nil {
		return nil
	}
	r := &http.Request{Method: q.Method, URL: u, Header: q.Headers, Body: io.NopCloser(bytes.NewReader([]byte(q.Body))), ContentLength: int64(len(q.Body))}
	if err := r.ParseForm(); err != nil || len(r.Form) == 0 {
		return nil
	}
	return r.Form
}

// recordTrip is the per-request round tripper of record mode: it reads the
// request body (to store it), forwards the request, and hands back the
// response with its body wrapped, so the client receives each chunk as the
// upstream sends it while a copy accumulates for the cassette.
func (p *Proxy) recordTrip(seq int64) goproxy.RoundTripper {
	return goproxy.RoundTripperFunc(func(req *http.Request, _ *goproxy.ProxyCtx) (*http.Response, error) {
		body, err := p.readBoundedBody(req)
		if err != nil {
			return p.bodyError(req, err), nil
		}
		if body != nil {
			req.Body = io.NopCloser(bytes.NewReader(body))
			req.ContentLength = int64(len(body))
			req.TransferEncoding = nil
		}
		rec := captureRequest(req, body)
		p.begin()
		start := p.now()
		resp, err := p.tr.RoundTrip(req)
		if err != nil {
			p.end()
			return p.upstreamFailure(req, err), nil
		}
		p.failingStatus(req, resp)
		// goproxy rewrites the response after this returns (Proto, framing):
		// snapshot what is recorded now.
		it := cassettes.Interaction{Request: rec, Response: cassettes.Response{
			Proto: resp.Proto, ProtoMajor: resp.ProtoMajor, ProtoMinor: resp.ProtoMinor,
			TransferEncoding: append([]string(nil), resp.TransferEncoding...),
			ContentLength:    resp.ContentLength, Uncompressed: resp.Uncompressed,
			Headers: resp.Header.Clone(), Status: resp.Status, Code: resp.StatusCode,
			Duration: cassettes.Duration(p.now().Sub(start)),
		}}
		clock := p.newEventClock(resp, start) // nil unless a stream (pace.go)
		resp.Body = &captureBody{rc: resp.Body, clock: clock, fail: func(err error) { p.failed(req, err, 0, "") }, done: func(b []byte, complete bool) {
			// All the announced bytes, or none due (HEAD, 204, 304), is
			// whole even when the end was not read.
			complete = complete || headOrBodiless(req.Method, it.Response.Code) ||
				(it.Response.ContentLength >= 0 && int64(len(b)) == it.Response.ContentLength)
			if !complete { // a truncated body is never saved as if whole
				p.dropIncomplete(req.Method, rec.URL, it.Response.Code, len(b), it.Response.ContentLength)
				p.end()
				return
			}
			it.Response.Body = cassettes.Body(b)
			if clock != nil {
				it.Response.EventTimes = clock.times
			}
			it.Response.Trailer = resp.Trailer.Clone()
			p.store(seq, it)
			p.end()
		}}
		return resp, nil
	})
}

// captureBody copies what the client reads into a buffer and reports it
// once, at the end of the body or when it is closed.
type captureBody struct {
	rc    io.ReadCloser
	clock *eventClock // a stream's: when each event ended
	buf   bytes.Buffer
	once  sync.Once
	done  func(b []byte, complete bool)
	fail  func(err error) // the upstream failed mid-body
}

func (c *captureBody) Read(b []byte) (int, error) {
	n, err := c.rc.Read(b)
	c.buf.Write(b[:n])
	if c.clock != nil {
		c.clock.observe(b[:n])
	}
	if err == io.EOF {
		c.finish(true)
	} else if err != nil && c.fail != nil {
		c.fail(err)
	}
	return n, err
}

func (c *captureBody) Close() error {
	err := c.rc.Close()
	c.finish(false)
	return err
}

func (c *captureBody) finish(complete bool) {
	c.once.Do(func() { c.done(c.buf.Bytes(), complete) })
}

func (p *Proxy) store(seq int64, it cassettes.Interaction) {
	it.Request.RemoteAddr, it.Request.RequestURI = "", ""
	p.redact(&it)
	// Only the origin is logged live: a value in the path may be learned as
	// a credential later in the session (a token first seen in a URL, then
	// as a bearer). Run lists the whole URLs at the end, redacted with
	// everything learned by then.
	p.logf("record %s %s → %d (%d bytes)", it.Request.Method, originOf(it.Request.URL), it.Response.Code, len(it.Response.Body))
	p.mu.Lock()
	p.recorded = append(p.recorded, recorded{seq, it})
	p.mu.Unlock()
}

func (p *Proxy) begin() {
	p.mu.Lock()
	p.inflight++
	p.mu.Unlock()
}

func (p *Proxy) end() {
	p.mu.Lock()
	p.inflight--
	if p.inflight == 0 {
		for _, w := range p.waiters {
			close(w)
		}
		p.waiters = nil
	}
	p.mu.Unlock()
}

// Flush waits until every interaction being recorded has been stored (its
// response body fully relayed or abandoned by the client), or ctx ends.
func (p *Proxy) Flush(ctx context.Context) error {
	p.mu.Lock()
	if p.inflight == 0 {
		p.mu.Unlock()
		return nil
	}
	w := make(chan struct{})
	p.waiters = append(p.waiters, w)
	n := p.inflight
	p.mu.Unlock()
	select {
	case <-w:
		return nil
	case <-ctx.Done():
		return &cassettes.Error{Reason: cassettes.ETimeout, Err: ctx.Err(),
			Message:  fmt.Sprintf("%d interaction(s) were still being recorded", n),
			NextStep: "let long-running responses finish before stopping the proxy, then record again"}
	}
}

// Interactions returns the interactions recorded so far (complete ones),
// redacted, in arrival order, with IDs 0..n-1. In replay-with-new-episodes
// mode these are the new episodes only. Each is redacted again on the way
// out, so that a value learned from a later interaction (a token a login
// response returned, sent by the next request as a bearer) is scrubbed
// from the earlier ones as well.
func (p *Proxy) Interactions() []cassettes.Interaction {
	p.mu.Lock()
	rs := append([]recorded(nil), p.recorded...)
	p.mu.Unlock()
	sort.Slice(rs, func(i, j int) bool { return rs[i].seq < rs[j].seq })
	out := make([]cassettes.Interaction, len(rs))
	for i, r := range rs {
		it := r.it
		it.Request.Headers, it.Request.Trailer = it.Request.Headers.Clone(), it.Request.Trailer.Clone()
		it.Response.Headers, it.Response.Trailer = it.Response.Headers.Clone(), it.Response.Trailer.Clone()
		it.Request.Form = cloneValues(it.Request.Form)
		p.redact(&it)
		out[i] = it
		out[i].ID = i
	}
	return out
}

func cloneValues(v url.Values) url.Values {
	if v == nil {
		return nil
	}
	out := make(url.Values, len(v))
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// Misses returns the replay misses so far, in order.
func (p *Proxy) Misses() []*Miss {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*Miss(nil), p.misses...)
}

// Mode is the effective mode (record-once resolved to record or replay).
func (p *Proxy) Mode() Mode { return p.mode }

// Handler is the proxy as an http.Handler (for embedding in a server the
// caller runs; Start is the usual way).
func (p *Proxy) Handler() http.Handler { return p.handler }

// Start listens and serves; the proxy is ready for requests when it returns.
func (p *Proxy) Start() error {
	ln, err := net.Listen("tcp", p.opts.Listen)
	if err != nil {
		return &cassettes.Error{Reason: cassettes.EUsage, Err: err,
			Message:  "cannot listen on " + p.opts.Listen,
			NextStep: "cassette proxy --listen 127.0.0.1:0"}
	}
	p.ln = &trackingListener{Listener: ln, conns: map[net.Conn]struct{}{}}
	p.addr = ln.Addr().String()
	p.srv = &http.Server{Handler: p.handler, ReadHeaderTimeout: ReadHeaderTimeout, IdleTimeout: IdleTimeout,
		ErrorLog: log.New(logWriter{p}, "http: ", 0)}
	go func() { _ = p.srv.Serve(p.ln) }()
	return nil
}

// Addr is the host:port the proxy listens on ("" before Start).
func (p *Proxy) Addr() string { return p.addr }

// URL is "http://" + Addr(): the value for HTTPS_PROXY, or the base URL
// clients use in reverse-proxy mode.
func (p *Proxy) URL() string { return "http://" + p.addr }

// Shutdown stops accepting connections, waits (until ctx ends) for the
// interactions being recorded to be stored, then closes everything. What
// was recorded stays available from Interactions.
func (p *Proxy) Shutdown(ctx context.Context) error {
	var err error
	if p.srv != nil {
		if e := p.srv.Shutdown(ctx); e != nil && !errors.Is(e, http.ErrServerClosed) {
			err = e
		}
	}
	if e := p.Flush(ctx); e != nil {
		err = e
	}
	p.Close()
	return err
}

// Close stops the proxy at once, closing every client connection
// (including hijacked MITM tunnels) and idle upstream connections.
func (p *Proxy) Close() error {
	p.close.Do(func() {
		if p.srv != nil {
			_ = p.srv.Close()
			p.ln.closeAll()
		}
		p.tr.CloseIdleConnections()
	})
	return nil
}

// trackingListener remembers accepted connections so Close can end the
// hijacked ones, which http.Server no longer tracks.
type trackingListener struct {
	net.Listener
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
}

func (l *trackingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		c.Close()
		return nil, net.ErrClosed
	}
	tc := &trackedConn{Conn: c, l: l}
	l.conns[tc] = struct{}{}
	return tc, nil
}

func (l *trackingListener) closeAll() {
	l.mu.Lock()
	l.closed = true
	conns := l.conns
	l.conns = map[net.Conn]struct{}{}
	l.mu.Unlock()
	for c := range conns {
		c.(*trackedConn).Conn.Close()
	}
}

type trackedConn struct {
	net.Conn
	l    *trackingListener
	once sync.Once
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
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
