package proxy

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/matching"
	"github.com/cassette-dev/cassette/internal/wsframe"
	"github.com/cassette-dev/cassette/match"
)

// WebSocket replay: the proxy stands in for the server. An upgrade request
// that matches a recorded one (as any request does) is answered with the
// recorded 101, its Sec-WebSocket-Accept computed for the client's key;
// then the recorded messages are played in their order: the server's are
// sent, and each of the client's is awaited and matched against the
// recorded one with the cassette's match rules (Rules.Body, IgnoreJSON…,
// the same redaction), so a server message goes out only once the client
// messages recorded before it have come. With SimulateLatency each server
// message keeps its recorded gap after the message before it. A client
// message that does not match is a replay miss: logged with the message's
// file:line and a diff, counted in Misses, and the session is closed with
// status MissCloseCode. Once the recording is played, the recorded close
// is played too (a server's is sent; a client's is awaited and echoed).
// Pings are answered; ping and pong frames are never recorded.

// MissCloseCode is the close status of a replayed WebSocket session whose
// client sent a message the recording does not hold (4599: an application
// status, as 599 is the HTTP status of a miss).
const MissCloseCode = 4599

// wsOwner is where a recorded session is: its cassette and interaction.
type wsOwner struct {
	c *cassettes.Cassette
	i int
}

// wsOwners indexes the recorded WebSocket upgrades by interaction.
func wsOwners(list []*cassettes.Cassette) map[*cassettes.Interaction]wsOwner {
	out := map[*cassettes.Interaction]wsOwner{}
	for _, c := range list {
		for i := range c.Interactions {
			if it := &c.Interactions[i]; it.Response.Code == http.StatusSwitchingProtocols {
				out[it] = wsOwner{c, i}
			}
		}
	}
	return out
}

// replayWebSocket answers an upgrade with the recorded 101 and plays the
// session on the connection goproxy (or serveUpgrade) relays to the client.
func (p *Proxy) replayWebSocket(req *http.Request, it *cassettes.Interaction) *http.Response {
	h := it.Response.Headers.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set("Upgrade", "websocket")
	h.Set("Connection", "Upgrade")
	h.Set("Sec-WebSocket-Accept", wsframe.AcceptKey(req.Header.Get("Sec-WebSocket-Key")))
	h.Del("Sec-WebSocket-Extensions")
	h.Del("Content-Length")
	pl := &player{p: p, it: it, owner: p.wsOwners[it], url: req.URL.String(), req: req}
	return &http.Response{StatusCode: http.StatusSwitchingProtocols, Status: "101 Switching Protocols",
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: h, Request: req, Body: &replaySession{pl: pl}}
}

// replaySession is a replayed session, the body of its 101. A door that hands
// its connection over (serveUpgrade) has the session played on it
// (playOn); one that relays the body (goproxy's MITM) reads and writes an
// in-memory pipe whose other end the session is played on, started when
// the door first uses it. Playing on the connection spares a copy of
// every frame through the pipe, and a goroutine handoff each way
// (BenchmarkWebSocketReplay).
type replaySession struct {
	pl   *player
	once sync.Once
	pipe net.Conn // the door's end of the pipe; nil when played on the connection
}

func (s *replaySession) start() {
	s.once.Do(func() {
		ours, theirs := net.Pipe()
		s.pl.conn, s.pipe = ours, theirs
		go s.pl.play()
	})
}

func (s *replaySession) Read(b []byte) (int, error) {
	if s.start(); s.pipe == nil {
		return 0, io.EOF
	}
	return s.pipe.Read(b)
}

func (s *replaySession) Write(b []byte) (int, error) {
	if s.start(); s.pipe == nil {
		return 0, net.ErrClosed
	}
	return s.pipe.Write(b)
}

func (s *replaySession) Close() error {
	if s.start(); s.pipe == nil {
		return nil
	}
	return s.pipe.Close()
}

// playOn plays the session on conn, the client's frames read through r
// (which holds what the client sent after its upgrade request), until it
// ends; false when the session was started on a pipe already.
func (s *replaySession) playOn(conn net.Conn, r io.Reader) bool {
	on := false
	s.once.Do(func() { s.pl.conn, on = &readerConn{Conn: conn, r: r}, true })
	if on {
		s.pl.play()
	}
	return on
}

// readerConn is a connection whose reads come through r.
type readerConn struct {
	net.Conn
	r io.Reader
}

func (c *readerConn) Read(b []byte) (int, error) { return c.r.Read(b) }

// serveUpgrade writes a replayed 101 on a connection the server hands over
// and relays it to the session (serveReplay's door, which writes
// responses itself); false when resp is not a session's 101.
func serveUpgrade(w http.ResponseWriter, resp *http.Response) bool {
	session, ok := resp.Body.(io.ReadWriteCloser)
	if !ok || resp.StatusCode != http.StatusSwitchingProtocols {
		return false
	}
	defer session.Close()
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "cassette: this connection cannot carry a WebSocket", http.StatusInternalServerError)
		return true
	}
	conn, rw, err := hj.Hijack()
	if err != nil {
		return true
	}
	defer conn.Close()
	resp.Body = nil
	if err := resp.Write(rw); err != nil || rw.Flush() != nil {
		return true
	}
	if s, ok := session.(*replaySession); ok && s.playOn(conn, rw.Reader) {
		return true
	}
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(session, rw.Reader) // the client's frames, bytes it sent with the upgrade first
		session.Close()
		close(done)
	}()
	_, _ = io.Copy(conn, session)
	conn.Close()
	<-done
	return true
}

// player plays one recorded session to one client.
type player struct {
	p     *Proxy
	conn  net.Conn
	it    *cassettes.Interaction
	owner wsOwner
	url   string
	req   *http.Request

	wmu    sync.Mutex // frames are written by the play loop and a paced session's reader (pongs)
	closed bool       // a close frame was sent
	wbuf   []byte     // the frame being written, kept for the next

	matcher *matching.Matcher // the cassette's rules, compiled at the first client message
}

// play runs the session. The client's messages are read by the play loop
// itself when it awaits one (next answers pings on the way): no goroutine
// hands each message over, so a message is answered on the goroutine
// that read it, as an echo server answers. A paced session waits between
// messages, while the client may ping: there a reader of its own hands
// the client's messages over (read).
func (pl *player) play() {
	defer closeClient(pl.req)
	defer pl.conn.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := wsframe.NewReader(pl.conn, MaxWebSocketMessage)
	next := func() (wsframe.Message, bool) { return pl.next(r) }
	if pl.p.opts.SimulateLatency {
		in := make(chan wsframe.Message)
		go pl.read(ctx, cancel, r, in)
		next = func() (wsframe.Message, bool) {
			m, ok := <-in
			return m, ok
		}
	}
	var msgs []cassettes.WebSocketMessage
	var cl *cassettes.WebSocketClose
	if ws := pl.it.WebSocket; ws != nil {
		msgs, cl = ws.Messages, ws.Close
	}
	// A server message is due at its recorded time counted from the last
	// client message (when it came, and when it was recorded), or from the
	// start: deadlines, not gaps summed after each write (see paced).
	base, baseAt := pl.p.now(), cassettes.Duration(0)
	for k, m := range msgs {
		if m.From == cassettes.FromServer {
			if pl.p.opts.SimulateLatency {
				if pl.p.sleepUntil(ctx, base.Add(time.Duration(m.At-baseAt))) != nil {
					return
				}
			}
			op := wsframe.Text
			if m.Binary() {
				op = wsframe.Binary
			}
			if pl.write(wsframe.Frame{Fin: true, Op: op, Payload: m.Data.Bytes()}) != nil {
				return
			}
		} else {
			got, ok := next()
			if !ok {
				return // the client went away
			}
			if !pl.matches(got, m) {
				pl.miss(k, &m, got)
				pl.drain(next)
				return
			}
			if pl.p.opts.SimulateLatency {
				base, baseAt = pl.p.now(), m.At
			}
		}
	}
	pl.end(cl, next, len(msgs))
}

// end plays the recorded close: a server's is sent, then the client's
// answer awaited; otherwise the client's close is awaited and echoed. A
// message the client sends meanwhile is one the recording does not hold.
func (pl *player) end(cl *cassettes.WebSocketClose, next func() (wsframe.Message, bool), n int) {
	if cl != nil && cl.From == cassettes.FromServer {
		_ = pl.write(wsframe.Frame{Fin: true, Op: wsframe.Close, Payload: wsframe.CloseData(cl.Code, cl.Reason)})
	}
	for got, ok := next(); ok; got, ok = next() {
		if got.Op == wsframe.Close {
			if !pl.closed {
				code, _ := wsframe.ParseClose(got.Data)
				_ = pl.write(wsframe.Frame{Fin: true, Op: wsframe.Close, Payload: wsframe.CloseData(code, "")})
			}
			return
		}
		if !pl.closed {
			pl.miss(n, nil, got)
			pl.drain(next)
			return
		}
	}
}

// closeWait bounds the wait for a client to answer the close frame the
// proxy sent before the connection is closed.
const closeWait = 5 * time.Second

// drain waits, after the proxy sent a close frame, for the client's
// answer (so that the client reads the frame before the connection
// closes), at most closeWait.
func (pl *player) drain(next func() (wsframe.Message, bool)) {
	t := time.AfterFunc(closeWait, func() { pl.conn.Close() })
	defer t.Stop()
	for m, ok := next(); ok; m, ok = next() {
		if m.Op == wsframe.Close {
			return
		}
	}
}

// next reads the client's next data message or its close, answering
// pings on the way; false once the client is gone.
func (pl *player) next(r *wsframe.Reader) (wsframe.Message, bool) {
	for {
		m, err := r.Next()
		if err != nil {
			return wsframe.Message{}, false
		}
		switch m.Op {
		case wsframe.Ping:
			_ = pl.write(wsframe.Frame{Fin: true, Op: wsframe.Pong, Payload: m.Data})
		case wsframe.Pong:
		default:
			return m, true
		}
	}
}

// read hands the client's data messages and its close to a paced play
// loop, so that pings are answered while it waits, and ends (closing in)
// when the client is gone.
func (pl *player) read(ctx context.Context, cancel context.CancelFunc, r *wsframe.Reader, in chan<- wsframe.Message) {
	defer close(in)
	defer cancel()
	for {
		m, ok := pl.next(r)
		if !ok {
			return
		}
		select {
		case in <- m:
		case <-ctx.Done():
			return
		}
		if m.Op == wsframe.Close {
			return
		}
	}
}

func (pl *player) write(f wsframe.Frame) error {
	pl.wmu.Lock()
	defer pl.wmu.Unlock()
	if pl.closed {
		return io.ErrClosedPipe
	}
	if f.Op == wsframe.Close {
		pl.closed = true
	}
	b := wsframe.AppendFrame(pl.wbuf[:0], f, false)
	_, err := pl.conn.Write(b)
	if cap(b) <= 64<<10 { // a big message's buffer is not held for the session
		pl.wbuf = b
	}
	return err
}

// matches compares a client's message with the recorded one under the
// cassette's match rules, redacted like a request body.
func (pl *player) matches(got wsframe.Message, want cassettes.WebSocketMessage) bool {
	if got.Op != wsframe.Text && got.Op != wsframe.Binary || (got.Op == wsframe.Binary) != want.Binary() {
		return false
	}
	if pl.matcher == nil { // the play loop alone calls matches
		m, err := matching.NewMatcher(pl.rules(), pl.p.redact)
		if err != nil {
			return false // the rules compiled when the proxy started
		}
		pl.matcher = m
	}
	req := func(b []byte) matching.Request {
		return matching.Request{Method: "MESSAGE", URL: pl.it.Request.URL, Body: b}
	}
	return pl.matcher.Match(req(got.Data), req(want.Data.Bytes()))
}

func (pl *player) rules() match.Rules {
	if pl.p.opts.MatchFor != nil && pl.owner.c != nil {
		return pl.p.opts.MatchFor(pl.owner.c)
	}
	return pl.p.opts.Match
}

// miss explains a client message the recording does not hold at index k
// (want nil: the recording holds no more messages), logs it, counts it,
// and closes the session with MissCloseCode.
func (pl *player) miss(k int, want *cassettes.WebSocketMessage, got wsframe.Message) {
	c, i := pl.owner.c, pl.owner.i
	field := fmt.Sprintf("interactions[%d].websocket.messages[%d]", i, k)
	cand := &matching.Candidate{Index: i, Request: pl.it.Request.Method + " " + pl.it.Request.URL}
	if c != nil {
		cand.File, cand.Cassette, cand.Line = c.Path, c.ID(), c.Line(field)
	}
	d := matching.Difference{Field: "body", Got: messageText(got.Op == wsframe.Binary, got.Data)}
	if want == nil {
		d.Recorded = "(no more messages: the recording ends here)"
		d.Diff = "+ " + d.Got
	} else {
		d.Recorded = messageText(want.Binary(), want.Data.Bytes())
		d.Diff = strings.TrimSuffix(udiff.Unified("recorded", "got", d.Recorded+"\n", d.Got+"\n"), "\n")
	}
	cand.Differences = []matching.Difference{d}
	rerecord := pl.p.opts.Rerecord // as an HTTP miss says it
	if rerecord == nil {
		rerecord = matching.RecordStep
	}
	miss := &matching.Miss{Request: fmt.Sprintf("WebSocket message %s from the client on %s", field, pl.p.red.String(shownURL(pl.url))), Closest: cand,
		NextStep: rerecord(c)}
	pl.p.mu.Lock()
	pl.p.misses = append(pl.p.misses, miss)
	pl.p.mu.Unlock()
	pl.p.logf("%s", strings.TrimSuffix(miss.Text(), "\n"))
	_ = pl.write(wsframe.Frame{Fin: true, Op: wsframe.Close, Payload: wsframe.CloseData(MissCloseCode, "cassette: replay miss at "+field+" (see the proxy's log)")})
}

// messageText shows a message in a miss: text as it is, binary by size.
func messageText(binary bool, data []byte) string {
	if binary {
		return fmt.Sprintf("%d bytes (binary)", len(data))
	}
	return string(data)
}
