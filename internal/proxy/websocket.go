package proxy

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/infra"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/wsframe"
)

// WebSocket recording: an upgrade request is forwarded like any other
// (without Sec-WebSocket-Extensions, so that no side compresses frames and
// what crosses the proxy is readable), and a 101 hands goproxy, which
// relays the two connections byte for byte, a connection to the upstream
// that taps both directions (wsframe.Tap): each whole message is noted
// with who sent it and when, since the 101 arrived. The session is stored
// when the connection closes, redacted like a body, as the interaction's
// `websocket:` (cassettes.WebSocket).
//
// What is never recorded: an upgrade the upstream refused (any answer but
// 101) or answered with a handshake that is not valid, and a session the
// upstream cut without a close frame — each is an upstream failure
// (E_REAL_UPGRADE, E_REAL_RESET: exit 3, nothing saved); and a session
// whose frames cannot be read (a message over MaxWebSocketMessage, a
// compressed frame), which is left out like a truncated body (Incomplete).
// A session still open when the proxy shuts down is stored as far as it
// went, without a close.

// MaxWebSocketMessage bounds one WebSocket message the proxy records,
// replays or reads from a fake.
const MaxWebSocketMessage = 64 << 20

// isWebSocket reports whether req asks to upgrade to WebSocket.
func isWebSocket(req *http.Request) bool { return cassettes.IsWebSocketUpgrade(req.Header) }

// recordWebSocket is recordTrip for a WebSocket upgrade.
func (p *Proxy) recordWebSocket(seq int64, req *http.Request) *http.Response {
	req.Header.Del("Sec-WebSocket-Extensions")
	key := req.Header.Get("Sec-WebSocket-Key")
	rec := captureRequest(req, nil)
	p.begin()
	start := p.now()
	resp, err := p.trFor(req).RoundTrip(req)
	if err != nil {
		p.end()
		return p.upstreamFailure(req, err)
	}
	opened := p.now()
	why := ""
	conn, isConn := resp.Body.(io.ReadWriteCloser)
	switch {
	case resp.StatusCode != http.StatusSwitchingProtocols:
	case !cassettes.IsWebSocketUpgrade(resp.Header):
		why = "the 101 does not upgrade to websocket"
	case resp.Header.Get("Sec-WebSocket-Accept") != wsframe.AcceptKey(key):
		why = "Sec-WebSocket-Accept does not answer Sec-WebSocket-Key"
	case resp.Header.Get("Sec-WebSocket-Extensions") != "":
		why = "the server chose an extension (" + resp.Header.Get("Sec-WebSocket-Extensions") + ") the client was not offered"
	case !isConn:
		why = "the upstream connection cannot be taken over"
	}
	if resp.StatusCode != http.StatusSwitchingProtocols || why != "" {
		class := infra.Upgrade(resp.Status, why)
		if c, failing := infra.ClassifyStatus(resp.StatusCode); failing && why == "" && c.Reason != outcome.ERealAuth {
			class = c // the service failing (5xx, 429, 408) says more than "refused"; a 401 or 403 is the upgrade refused
		}
		f := p.failedWith(req, class, resp.Status)
		p.logf("upstream failed: %s", f)
		p.end()
		if why != "" {
			resp.Body.Close()
			return p.synthetic(req, http.StatusBadGateway, "cassette: "+f.String()+"\n")
		}
		return resp // the refusal goes to the client as it came
	}
	it := cassettes.Interaction{Request: rec, Response: cassettes.Response{
		Proto: resp.Proto, ProtoMajor: resp.ProtoMajor, ProtoMinor: resp.ProtoMinor,
		Headers: resp.Header.Clone(), Status: resp.Status, Code: resp.StatusCode,
		Duration: cassettes.Duration(opened.Sub(start)),
	}}
	// The handshake's nonce and its answer change on every upgrade: replay
	// answers the client's own key, verify sends a fresh one.
	it.Request.Headers.Del("Sec-WebSocket-Key")
	it.Response.Headers.Del("Sec-WebSocket-Accept")
	s := &wsSession{p: p, seq: seq, req: req, it: it, opened: opened, conn: conn}
	limit := cmp.Or(p.opts.MaxWebSocketMessage, MaxWebSocketMessage)
	s.client = wsframe.NewTap(limit, s.note(cassettes.FromClient))
	s.server = wsframe.NewTap(limit, s.note(cassettes.FromServer))
	p.sessions.add(s)
	resp.Body = &tappedConn{conn: conn, s: s}
	return resp
}

// failedWith notes a classified failure of req (see Failures).
func (p *Proxy) failedWith(req *http.Request, f infra.Failure, detail string) UpstreamFailure {
	p.settle() // what the interactions before taught is known (storing.go)
	u := UpstreamFailure{Method: req.Method, URL: p.red.String(shownURL(req.URL.String())), Failure: f, Detail: p.red.String(detail)}
	p.fails.mu.Lock()
	p.fails.list = append(p.fails.list, u)
	p.fails.mu.Unlock()
	return u
}

// wsSession is one WebSocket session being recorded.
type wsSession struct {
	p              *Proxy
	seq            int64
	req            *http.Request
	it             cassettes.Interaction
	opened         time.Time
	client, server *wsframe.Tap

	mu      sync.Mutex
	msgs    []cassettes.WebSocketMessage
	close   *cassettes.WebSocketClose
	closing bool // the proxy closes the upstream connection: its read errors are ours
	conn    io.Closer
	once    sync.Once
}

// note returns the tap callback of one direction.
func (s *wsSession) note(from string) func(wsframe.Message) {
	return func(m wsframe.Message) {
		s.mu.Lock()
		defer s.mu.Unlock()
		switch m.Op {
		case wsframe.Text, wsframe.Binary:
			at := s.p.now().Sub(s.opened).Truncate(time.Microsecond) // finer is noise in review
			msg := cassettes.WebSocketMessage{From: from, At: cassettes.Duration(at), Data: cassettes.Body(m.Data)}
			if m.Op == wsframe.Binary {
				msg.Type = cassettes.MessageBinary
			}
			s.msgs = append(s.msgs, msg)
		case wsframe.Close:
			if s.close == nil {
				code, reason := wsframe.ParseClose(m.Data)
				s.close = &cassettes.WebSocketClose{From: from, Code: code, Reason: reason}
			}
		}
	}
}

// upstreamEnded is called when a read from the upstream fails: without a
// close frame first, and unless the proxy closed the connection itself,
// the upstream cut the session.
func (s *wsSession) upstreamEnded(err error) {
	s.mu.Lock()
	cut := s.close == nil && !s.closing && !errors.Is(err, net.ErrClosed)
	s.mu.Unlock()
	if s.server.Err() != nil {
		// The server's frames stopped being read (a message over the
		// limit): its close frame after it was never seen, and the session
		// is no reset; finish says what it is. (The server's tap is
		// written by this goroutine, the one that reads the upstream.)
		cut = false
	}
	if cut {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		f := s.p.failedWith(s.req, infra.ClassifyTransport(err), "the WebSocket connection ended without a close frame: "+err.Error())
		s.p.logf("upstream failed: %s", f)
	}
}

// finish stores the session once its connection is closed.
func (s *wsSession) finish() {
	s.once.Do(func() {
		defer s.p.end()
		s.p.sessions.remove(s)
		for _, tap := range []*wsframe.Tap{s.client, s.server} {
			if err := tap.Err(); err != nil {
				s.p.settle()
				in := Incomplete{Method: s.req.Method, URL: s.p.red.String(shownURL(s.it.Request.URL)), Code: s.it.Response.Code, Length: -1}
				s.p.mu.Lock()
				s.p.incomplete = append(s.p.incomplete, in)
				s.p.mu.Unlock()
				if errors.Is(err, wsframe.ErrTooLarge) {
					s.p.logf("not recorded: the WebSocket session %s has a message larger than %s, the most the proxy records of one message; the rest of the recording is kept",
						in, byteSize(cmp.Or(s.p.opts.MaxWebSocketMessage, MaxWebSocketMessage)))
				} else {
					s.p.logf("not recorded: the frames of the WebSocket session %s cannot be read (%v); record it again", in, err)
				}
				return
			}
		}
		s.mu.Lock()
		s.it.WebSocket = &cassettes.WebSocket{Messages: s.msgs, Close: s.close}
		s.mu.Unlock()
		s.p.store(s.seq, s.it)
	})
}

// tappedConn is the upstream connection of a session as goproxy relays it:
// what it reads comes from the server, what it writes from the client.
type tappedConn struct {
	conn io.ReadWriteCloser
	s    *wsSession
}

func (t *tappedConn) Read(b []byte) (int, error) {
	n, err := t.conn.Read(b)
	_, _ = t.s.server.Write(b[:n])
	if err != nil {
		t.s.upstreamEnded(err)
	}
	return n, err
}

func (t *tappedConn) Write(b []byte) (int, error) {
	_, _ = t.s.client.Write(b)
	return t.conn.Write(b)
}

func (t *tappedConn) Close() error {
	t.s.mu.Lock()
	t.s.closing = true
	t.s.mu.Unlock()
	err := t.conn.Close()
	t.s.finish()
	closeClient(t.s.req)
	return err
}

// sessions are the WebSocket sessions open through the proxy, so that
// Shutdown can end them (their connections are hijacked: the server no
// longer tracks them).
type sessions struct {
	mu   sync.Mutex
	open map[*wsSession]struct{}
}

func (ss *sessions) add(s *wsSession) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.open == nil {
		ss.open = map[*wsSession]struct{}{}
	}
	ss.open[s] = struct{}{}
}

func (ss *sessions) remove(s *wsSession) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	delete(ss.open, s)
}

// endSessions stores every session still open as far as it went, and
// closes its upstream connection (goproxy then ends the client's).
func (p *Proxy) endSessions() {
	p.sessions.mu.Lock()
	open := make([]*wsSession, 0, len(p.sessions.open))
	for s := range p.sessions.open {
		open = append(open, s)
	}
	p.sessions.mu.Unlock()
	for _, s := range open {
		s.mu.Lock()
		s.closing = true
		s.mu.Unlock()
		s.finish()
		_ = s.conn.Close()
	}
}

// goproxy's plain-HTTP door (the reverse proxy's, and absolute-URL
// requests) hijacks the client's connection for a WebSocket and never
// closes it: once the session has ended upstream, the client would wait
// forever. upgradeWriter notes the connection it hands out, in the
// request's context, so that the end of the session closes it
// (closeClient). The MITM door closes its own.

type hijackedKey struct{}

// hijacked is the client connection of one upgrade request, once taken.
type hijacked struct {
	mu   sync.Mutex
	conn net.Conn
	done bool
}

func (h *hijacked) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.done = true
	if h.conn != nil {
		_ = h.conn.Close()
	}
}

// upgradeWriter returns w and r as the doors hand an upgrade request on:
// w notes the connection it hands to goproxy, r carries the note.
func upgradeWriter(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, *http.Request) {
	if !isWebSocket(r) {
		return w, r
	}
	h := &hijacked{}
	return &noteHijack{ResponseWriter: w, h: h}, r.WithContext(context.WithValue(r.Context(), hijackedKey{}, h))
}

// closeClient closes the client connection of req's session, if a door
// took it over.
func closeClient(req *http.Request) {
	if h, ok := req.Context().Value(hijackedKey{}).(*hijacked); ok {
		h.close()
	}
}

type noteHijack struct {
	http.ResponseWriter
	h *hijacked
}

func (n *noteHijack) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := n.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("cassette proxy: the connection cannot be taken over")
	}
	conn, rw, err := hj.Hijack()
	if err == nil {
		n.h.mu.Lock()
		n.h.conn = conn
		if n.h.done {
			_ = conn.Close()
		}
		n.h.mu.Unlock()
	}
	return conn, rw, err
}

func (n *noteHijack) Flush() {
	if fl, ok := n.ResponseWriter.(http.Flusher); ok {
		fl.Flush()
	}
}

func (n *noteHijack) Unwrap() http.ResponseWriter { return n.ResponseWriter }

// byteSize is n in MiB when it is a whole number of them, else in bytes.
func byteSize(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return strconv.FormatInt(n>>20, 10) + " MiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
