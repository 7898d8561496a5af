package verify

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/report"
	"github.com/cassette-dev/cassette/wsframe"
)

// A recorded WebSocket session is verified as its client: verify upgrades
// a connection to the fake with the recorded request, sends the recorded
// client messages in their order, each once the server messages recorded
// before it have come from the fake, and collects what the fake sends;
// then it plays the recorded close (awaits the fake's, or sends the
// client's and awaits the answer). The fake's messages become the
// session compared (package diff, message by message, normalized like
// bodies). A fake that sends fewer messages than recorded is waited for at
// most SessionWait per message, then the missing ones are a drift.

// SessionWait bounds the wait for each message a fake's session owes.
const SessionWait = 5 * time.Second

// maxMessage bounds one message read from a fake.
const maxMessage = 64 << 20

// isSession reports whether a recorded interaction is a WebSocket session.
func isSession(in cassettes.Interaction) bool {
	return in.Response.Code == http.StatusSwitchingProtocols && cassettes.IsWebSocketUpgrade(in.Request.Headers)
}

// replaySession runs interaction i, a session, against the fake at base,
// and fills out with the fake's 101 and session (or its refusal).
func replaySession(ctx context.Context, client http.Client, base string, i int, in cassettes.Interaction, out *cassettes.Interaction, ids *identities) (report.Action, error) {
	act := report.Action{Kind: "http", ID: fmt.Sprintf("interactions[%d]", i), Method: in.Request.Method, URL: out.Request.URL}
	u, err := url.Parse(in.Request.URL)
	if err != nil {
		return act, fmt.Errorf("interactions[%d].request.url %q: %w", i, in.Request.URL, err)
	}
	target := base + u.EscapedPath()
	if u.RawQuery != "" {
		target += "?" + u.RawQuery
	}
	req, err := http.NewRequestWithContext(ctx, in.Request.Method, target, nil)
	if err != nil {
		return act, fmt.Errorf("interactions[%d].request: %w", i, err)
	}
	for k, vs := range in.Request.Headers {
		if !hopHeaders[http.CanonicalHeaderKey(k)] && !strings.HasPrefix(http.CanonicalHeaderKey(k), "Sec-Websocket-") {
			req.Header[k] = append([]string(nil), vs...)
		}
	}
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Sec-WebSocket-Key", wsframe.NewKey())
	if p := in.Request.Headers.Get("Sec-WebSocket-Protocol"); p != "" {
		req.Header.Set("Sec-WebSocket-Protocol", p)
	}
	client.Timeout = 0 // the session is bounded by ctx (the case's timeout) and SessionWait
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		act.Err, act.ErrKind = err.Error(), errKind(err)
		return act, fmt.Errorf("%s %s: %w", in.Request.Method, target, err)
	}
	r := &out.Response
	r.Code, r.Status, r.Headers, r.Body, r.BodyFile, r.Duration = resp.StatusCode, resp.Status, resp.Header, "", "", 0
	r.Proto, r.ProtoMajor, r.ProtoMinor, r.ContentLength = resp.Proto, resp.ProtoMajor, resp.ProtoMinor, resp.ContentLength
	out.WebSocket = nil
	act.StatusCode = resp.StatusCode
	conn, ok := resp.Body.(io.ReadWriteCloser)
	if resp.StatusCode != http.StatusSwitchingProtocols || !ok {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxMessage))
		resp.Body.Close()
		r.Body, act.Body = cassettes.Body(body), body
		act.Duration = time.Since(start)
		return act, nil
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	out.WebSocket = (&session{conn: conn, r: wsframe.NewReader(conn, maxMessage), ids: ids}).run(in.WebSocket)
	act.Duration, act.Body = time.Since(start), SessionText(out.WebSocket)
	return act, nil
}

// session is verify's side of one session with a fake.
type session struct {
	conn io.ReadWriteCloser
	r    *wsframe.Reader
	ids  *identities // the fake's ids for the recording's, learned from its messages
	got  cassettes.WebSocket
	done bool // the fake closed, or stopped answering
}

// run plays the recorded client side and returns the fake's session.
func (s *session) run(rec *cassettes.WebSocket) *cassettes.WebSocket {
	if rec == nil {
		rec = &cassettes.WebSocket{}
	}
	for _, m := range rec.Messages {
		if s.done {
			break
		}
		if m.From == cassettes.FromServer {
			if s.next() && !m.Binary() && s.ids != nil {
				s.ids.learn(cassettes.Response{Body: m.Data}, cassettes.Response{Body: s.got.Messages[len(s.got.Messages)-1].Data})
			}
			continue
		}
		op, data := wsframe.Text, m.Data
		if m.Binary() {
			op = wsframe.Binary
		} else if s.ids != nil {
			// A client message that quotes an id the server gave (an item
			// to continue) quotes the fake's, as a request does.
			it := s.ids.apply(cassettes.Interaction{Request: cassettes.Request{Body: data}})
			data = it.Request.Body
		}
		if wsframe.WriteFrame(s.conn, wsframe.Frame{Fin: true, Op: op, Payload: data.Bytes()}, true) != nil {
			s.done = true
			break
		}
		s.got.Messages = append(s.got.Messages, cassettes.WebSocketMessage{From: cassettes.FromClient, Type: m.Type, Data: data})
	}
	if cl := rec.Close; (cl == nil || cl.From == cassettes.FromClient) && !s.done {
		code := 1000
		if cl != nil {
			code = cl.Code
		}
		_ = wsframe.WriteFrame(s.conn, wsframe.Frame{Fin: true, Op: wsframe.Close, Payload: wsframe.CloseData(code, "")}, true)
		s.got.Close = &cassettes.WebSocketClose{From: cassettes.FromClient, Code: code}
	}
	for !s.done {
		s.next() // what the fake sends until it closes: beyond the recording, a drift
	}
	return &s.got
}

// next reads the fake's next data message (answering pings), or notes its
// close; done when the fake closed, failed or sent nothing in SessionWait.
// It reports whether a data message came.
func (s *session) next() bool {
	for {
		t := time.AfterFunc(SessionWait, func() { s.conn.Close() })
		m, err := s.r.Next()
		t.Stop()
		switch {
		case err != nil:
			s.done = true
			return false
		case m.Op == wsframe.Ping:
			_ = wsframe.WriteFrame(s.conn, wsframe.Frame{Fin: true, Op: wsframe.Pong, Payload: m.Data}, true)
		case m.Op == wsframe.Pong:
		case m.Op == wsframe.Close:
			if s.got.Close == nil {
				code, reason := wsframe.ParseClose(m.Data)
				s.got.Close = &cassettes.WebSocketClose{From: cassettes.FromServer, Code: code, Reason: reason}
				_ = wsframe.WriteFrame(s.conn, wsframe.Frame{Fin: true, Op: wsframe.Close, Payload: wsframe.CloseData(code, "")}, true)
			}
			s.done = true
			return false
		default:
			msg := cassettes.WebSocketMessage{From: cassettes.FromServer, Data: cassettes.Body(m.Data)}
			if m.Op == wsframe.Binary {
				msg.Type = cassettes.MessageBinary
			}
			s.got.Messages = append(s.got.Messages, msg)
			return true
		}
	}
}

// SessionText shows a session in a report, one message a line: "→" the
// client's, "←" the server's, binary messages by size.
func SessionText(ws *cassettes.WebSocket) []byte {
	if ws == nil {
		return nil
	}
	var b strings.Builder
	for _, m := range ws.Messages {
		arrow := "←"
		if m.From == cassettes.FromClient {
			arrow = "→"
		}
		if m.Binary() {
			fmt.Fprintf(&b, "%s (binary, %d bytes)\n", arrow, len(m.Data))
		} else {
			fmt.Fprintf(&b, "%s %s\n", arrow, m.Data)
		}
	}
	if cl := ws.Close; cl != nil {
		fmt.Fprintf(&b, "close from the %s: %d %s\n", cl.From, cl.Code, cl.Reason)
	}
	return []byte(b.String())
}
