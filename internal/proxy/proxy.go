package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/matching"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/match"
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
	// ModeObserve is a reverse proxy in front of a fake (Upstream) that
	// records nothing and replays nothing: every request goes to
	// Options.Observe, the observer of package coverage, which relays it
	// to the fake and writes the call shape it saw.
	ModeObserve Mode = "observe"
)

// modes lists every mode, in the order the help text shows them.
var modes = [...]Mode{ModeRecord, ModeReplay, ModePassthrough, ModeRecordOnce, ModeReplayWithNewEpisodes, ModeObserve}

// ParseMode parses a --mode flag value.
func ParseMode(s string) (Mode, error) {
	for _, m := range modes {
		if string(m) == s {
			return m, nil
		}
	}
	names := make([]string, len(modes))
	for i, m := range modes {
		names[i] = string(m)
	}
	return "", &outcome.Error{Reason: outcome.EUsage,
		Message:  fmt.Sprintf("unknown proxy mode %q", s),
		Problems: []outcome.Problem{{Field: "--mode", Message: "unknown mode " + strconv.Quote(s), Expected: strings.Join(names, ", ")}},
		NextStep: outcome.Command("cassette", "proxy", "--help")}
}

// MissStatus is the status of the response to a request replay cannot serve.
const MissStatus = 599

// MissHeader marks a response the proxy made up (a replay miss or an
// upstream failure) rather than one recorded or relayed.
const MissHeader = "X-Cassette-Miss"

// ShouldRetryHeader is set to "false" on a replay miss: the official LLM
// SDKs honour it and do not retry the 599 (they retry any 5xx otherwise).
const ShouldRetryHeader = "X-Should-Retry"

// ReadyPath answers 204 to an origin-form GET on either proxy (reverse, or
// a forward proxy's front door), whatever its mode, so that a replay proxy
// can be an adapter's fake (`fake.ready` in cassette.yaml); it is never a
// replay miss.
const ReadyPath = "/.well-known/cassette/ready"

// Options configure a Proxy.
type Options struct {
	Mode             Mode
	Listen           string // default "127.0.0.1:0"
	AllowNonLoopback bool   // required for a non-loopback Listen
	// AllowStatus are failing statuses (401, 403, 408, 429, 5xx) the recorded calls
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
	// Match are the rules by which replay matches a request to a recorded
	// one (package match).
	Match match.Rules
	// MatchFor, when set, gives the match rules of each cassette (its
	// adapter's or scenario's `match:` in cassette.yaml); Match is then
	// only the default for an empty set of cassettes.
	MatchFor func(*cassettes.Cassette) match.Rules
	// Rerecord gives the command that records a cassette again, which a
	// replay miss names as its next step (c is nil when nothing is
	// recorded); nil is match's default (Options.Rerecord there). The
	// command line knows what runs where it is: `cassette record` only for
	// an adapter its cassette.yaml declares, the proxy with its --upstream.
	Rerecord func(c *cassettes.Cassette) string
	// Redact is the session's redaction (redact.New: the project's
	// credential names, the declared credential values, and every value it
	// learns). Each captured interaction goes through it before it is
	// stored (cassettes.Interaction.Redact), and again on its way out of
	// Interactions, so that values learned later are scrubbed from earlier
	// interactions too. Replay redacts with it an incoming request that
	// matches no recorded one as it came, before matching it again
	// (matching.Index.Lookup), and every line and message the proxy prints
	// goes through it. nil is redact.New(nil, nil): the built-in credential
	// names and key formats, no declared value.
	Redact *redact.Redactor
	// Transport reaches the upstream (Upstream.Transport builds one with the
	// user's TLS settings and corporate proxy; tests set RootCAs for a
	// self-signed upstream). It is cloned; its Proxy is kept (never used to
	// reach this proxy itself), and compression is not requested (see the
	// package doc).
	Transport *http.Transport
	// SimulateLatency delays each replayed response by its recorded
	// duration, and serves a recorded stream (SSE, NDJSON) event by event at
	// the recorded times (see pace.go), or spread evenly over its duration
	// when it was recorded without them (spread.go).
	SimulateLatency bool
	// Log receives a line per recorded request, the first replayed ones
	// (see logReplay) and the full text of every replay miss; nil discards.
	Log io.Writer
	// MaxRequestBody bounds a request body the proxy buffers to record or
	// match it (0: DefaultMaxRequestBody); see limits.go.
	MaxRequestBody int64
	// MaxWebSocketMessage bounds one WebSocket message the proxy records
	// (0: MaxWebSocketMessage).
	MaxWebSocketMessage int64
	// BodyReadTimeout bounds the reading of a request body (0:
	// DefaultBodyReadTimeout).
	BodyReadTimeout time.Duration
	// Observe serves every request in ModeObserve (required there, unused
	// otherwise): the caller's observing reverse proxy to Upstream, which
	// package proxy cannot build without importing what stands above it.
	Observe http.Handler
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
	idx      *matching.Index
	handler  http.Handler
	tunnels  *tunnels // a replaying forward proxy's CONNECT tunnels (tunnel.go)
	// tunnelTrs are the transports of tunnels dialled at a target other
	// than their inner host (connect.go).
	tunnelTrs tunnelTransports

	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error

	seq      atomic.Int64
	replayed atomic.Int64 // requests served from the cassettes (see logReplay)
	readies  readyResponses

	mu       sync.Mutex
	recorded []recorded
	misses   []*matching.Miss
	inflight int
	waiters  []chan struct{}

	// incomplete are the responses left out because they were cut short
	// (guarded by mu).
	incomplete []Incomplete

	logMu sync.Mutex

	// stores are the captured interactions still to be kept (storing.go).
	stores storeQueue

	// red is Options.Redact, or the built-in redaction.
	red *redact.Redactor

	// fails are the upstream failures seen (see Failures).
	fails failures
	// sessions are the WebSocket sessions being recorded (websocket.go);
	// wsOwners the recorded ones replay plays (wsreplay.go).
	sessions sessions
	wsOwners map[*cassettes.Interaction]wsOwner
	// origin is the one recorded host a replaying forward proxy serves
	// origin-form requests from; hosts are all the recorded hosts.
	origin *url.URL
	hosts  []string

	srv   *http.Server
	ln    *trackingListener
	addr  string
	close sync.Once
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
	p := &Proxy{opts: opts, mode: opts.Mode, now: time.Now, sleep: sleepCtx, red: opts.Redact}
	if p.red == nil {
		p.red = redact.New(nil, nil)
	}
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
			return nil, &outcome.Error{Reason: outcome.EUsage,
				Message:  fmt.Sprintf("--upstream %q is not an http(s) base URL", opts.Upstream),
				Problems: []outcome.Problem{{Field: "--upstream", Message: "not an absolute http(s) URL", Expected: "like https://api.example.com or unix:///run/podman/podman.sock"}},
				NextStep: outcome.Command("cassette", "proxy", "--help")}
		}
		u.RawQuery, u.Fragment = "", ""
		p.upstream = u
	}
	if p.mode == ModeObserve {
		return p.observing()
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
		return nil, &outcome.Error{Reason: outcome.EUsage,
			Message:  "a forward proxy in mode " + string(opts.Mode) + " needs a CA to intercept HTTPS",
			NextStep: outcome.Command("cassette", "ca", "init")}
	}
	idx, err := matching.New(opts.Cassettes, matching.Options{Rules: opts.Match, RulesFor: opts.MatchFor, Prepare: p.redact, Prepared: savedRedacted, Rerecord: opts.Rerecord})
	if err != nil {
		return nil, &outcome.Error{Reason: outcome.EUsage, Message: err.Error() + " (the matching flags are in cassette proxy --help)", NextStep: outcome.Command("cassette", "proxy", "--help")}
	}
	p.idx = idx
	p.wsOwners = wsOwners(opts.Cassettes)
	p.origin, p.hosts = replayOrigin(p.mode, p.upstream, opts.Cassettes)
	p.tr = upstreamTransport(opts.Transport)
	if p.socket != "" {
		DialUnix(p.tr, p.socket)
	}
	p.gp = p.newGoproxy()
	p.chainUpstream()
	if p.upstream != nil {
		p.handler = p.streaming(http.HandlerFunc(p.serveReverse))
	} else {
		p.handler = p.streaming(p.gp)
		if p.mode == ModeReplay {
			p.tunnels = p.newTunnels()
		}
	}
	return p, nil
}

// observing finishes New for ModeObserve: the handler is the caller's,
// in front of the fake at Upstream; nothing is matched or recorded.
func (p *Proxy) observing() (*Proxy, error) {
	if p.upstream == nil || p.opts.Observe == nil {
		return nil, &outcome.Error{Reason: outcome.EUsage, Message: "the observe mode needs --upstream, the fake's base URL, and an observer",
			NextStep: outcome.Command("cassette", "proxy", "--help")}
	}
	p.tr = upstreamTransport(p.opts.Transport)
	p.handler = p.opts.Observe
	return p, nil
}

// checkListen refuses a non-loopback address unless allowed.
// CheckListen is the rule of every door's --listen address, the observing
// proxy of `cassette proxy --mode observe` included: loopback unless allow.
func CheckListen(addr string, allow bool) error { return checkListen(addr, allow) }

func checkListen(addr string, allow bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return &outcome.Error{Reason: outcome.EUsage, Err: err,
			Message:  fmt.Sprintf("--listen %q is not host:port", addr),
			NextStep: outcome.Command("cassette", "proxy", "--help")}
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
	return &outcome.Error{Reason: outcome.EUsage,
		Message: fmt.Sprintf("--listen %q is not a loopback address: anyone who can reach it could use the proxy and read what it records", addr),
		Problems: []outcome.Problem{{Field: "--listen", Message: "non-loopback address", Expected: "127.0.0.1:PORT or [::1]:PORT",
			Suggestion: "pass --allow-non-loopback if this is really wanted"}},
		NextStep: outcome.Command("cassette", "proxy", "--help")}
}

type logWriter struct{ p *Proxy }

// urlQuery finds the query of a URL quoted in a message (see shownURL).
var urlQuery = regexp.MustCompile(`(https?://[^\s"'?]*)\?[^\s"']*`)

func (w logWriter) Write(b []byte) (int, error) {
	// goproxy's own warnings may quote URLs: scrub them like everything else.
	line := urlQuery.ReplaceAllString(strings.TrimSuffix(string(b), "\n"), "${1}?…")
	w.p.logf("%s", w.p.red.String(line))
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

// Misses returns the replay misses so far, in order.
func (p *Proxy) Misses() []*matching.Miss {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*matching.Miss(nil), p.misses...)
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
		return &outcome.Error{Reason: outcome.EUsage, Err: err,
			Message:  "cannot listen on " + p.opts.Listen + " (--listen 127.0.0.1:0 takes any free port)",
			NextStep: outcome.Command("cassette", "proxy", "--help")}
	}
	p.ln = &trackingListener{Listener: ln, conns: map[net.Conn]struct{}{}, now: time.Now}
	p.ln.startWatch() // the connections' far read deadlines (deadline.go)
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
	if e := p.tunnels.shutdown(ctx); e != nil {
		err = e
	}
	p.endSessions() // a WebSocket session still open is stored as far as it went
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
		p.tunnels.close()
		p.stopStores() // what is queued is still kept (storing.go)
		p.tr.CloseIdleConnections()
		p.tunnelTrs.closeIdle()
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
	now    func() time.Time // the clock of the read deadlines (deadline.go)
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
	rd   readDeadline // deadline.go
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}
