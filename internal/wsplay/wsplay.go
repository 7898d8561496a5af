// Package wsplay plays the client side of a recorded WebSocket session
// against a live server — a fake, when verify checks it, or the real
// service, when a cassette is recorded again — and returns the session as
// the server answered it. Both callers need the same thing: send the
// recorded client messages in their order, each once the server messages
// recorded before it have come; collect what the server sends; play the
// recorded close. It sits on wsframe and the cassette types, below verify
// and recorder.
//
// Decisions:
//
//   - A server owes each recorded server message at most Options.Wait
//     (SessionWait by default): one that sends fewer is not waited for
//     forever; the session as it came then lacks them, which the caller
//     compares.
//   - The server's messages are kept whole with their times since the
//     session opened; ping frames are answered, ping and pong never kept.
//   - What a client message says may depend on what the server said (an
//     id it made): Options.Rewrite rewrites each client message before it
//     is sent, Options.Learn is told each server message next to the one
//     recorded in its place.
package wsplay

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/wsframe"
)

// SessionWait bounds the wait for each message a server owes.
const SessionWait = 5 * time.Second

// ErrLate is the error of a session whose server owed a message longer
// than Options.Wait.
var ErrLate = errors.New("the WebSocket server sent nothing for too long")

// MaxMessage bounds one message read from a server.
const MaxMessage = 64 << 20

// Options tune a session's play.
type Options struct {
	// Wait bounds the wait for each message the server owes (0:
	// SessionWait).
	Wait time.Duration
	// Rewrite, when set, rewrites a text message of the client before it
	// is sent.
	Rewrite func(data cassettes.Body) cassettes.Body
	// Learn, when set, is told each server message next to the recorded
	// one in its place.
	Learn func(recorded, got cassettes.WebSocketMessage)
	// Now is the clock of the messages' times (nil: time.Now).
	Now func() time.Time
}

// Play plays the client side of rec on conn, an upgraded connection, and
// returns the session as it went: the client messages sent, the server
// messages received, the close. The error says why the session ended
// without the server's close frame (it cut the connection, or owed a
// message longer than Options.Wait): nil when the server closed it. conn
// is closed when Play returns.
func Play(conn io.ReadWriteCloser, rec *cassettes.WebSocket, o Options) (*cassettes.WebSocket, error) {
	if o.Wait <= 0 {
		o.Wait = SessionWait
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if rec == nil {
		rec = &cassettes.WebSocket{}
	}
	s := &session{conn: conn, r: wsframe.NewReader(conn, MaxMessage), o: o, opened: o.Now()}
	defer conn.Close()
	s.run(rec)
	if !s.closed {
		return &s.got, s.err
	}
	return &s.got, nil
}

// session is the client's side of one session.
type session struct {
	conn   io.ReadWriteCloser
	r      *wsframe.Reader
	o      Options
	opened time.Time
	got    cassettes.WebSocket
	done   bool  // the server closed, failed, or stopped answering
	closed bool  // the server sent its close frame
	err    error // why the session ended otherwise
}

func (s *session) at() cassettes.Duration {
	return cassettes.Duration(s.o.Now().Sub(s.opened).Truncate(time.Microsecond))
}

func (s *session) run(rec *cassettes.WebSocket) {
	for _, m := range rec.Messages {
		if s.done {
			break
		}
		if m.From == cassettes.FromServer {
			if s.next() && s.o.Learn != nil {
				s.o.Learn(m, s.got.Messages[len(s.got.Messages)-1])
			}
			continue
		}
		op, data := wsframe.Text, m.Data
		if m.Binary() {
			op = wsframe.Binary
		} else if s.o.Rewrite != nil {
			data = s.o.Rewrite(data)
		}
		if wsframe.WriteFrame(s.conn, wsframe.Frame{Fin: true, Op: op, Payload: data.Bytes()}, true) != nil {
			s.done = true
			break
		}
		s.got.Messages = append(s.got.Messages, cassettes.WebSocketMessage{From: cassettes.FromClient, Type: m.Type, At: s.at(), Data: data})
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
		s.next() // what the server sends until it closes: beyond the recording
	}
}

// next reads the server's next data message (answering pings), or notes
// its close; it reports whether a data message came.
func (s *session) next() bool {
	for {
		var late atomic.Bool
		t := time.AfterFunc(s.o.Wait, func() { late.Store(true); s.conn.Close() })
		m, err := s.r.Next()
		t.Stop()
		switch {
		case err != nil:
			s.done, s.err = true, err
			if late.Load() {
				s.err = ErrLate
			}
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
			s.done, s.closed = true, true
			return false
		default:
			msg := cassettes.WebSocketMessage{From: cassettes.FromServer, At: s.at(), Data: cassettes.Body(m.Data)}
			if m.Op == wsframe.Binary {
				msg.Type = cassettes.MessageBinary
			}
			s.got.Messages = append(s.got.Messages, msg)
			return true
		}
	}
}

// Handshake sets the headers of a client's upgrade request on h (a fresh
// Sec-WebSocket-Key, no extensions offered) and returns the key.
func Handshake(h http.Header) string {
	for k := range h {
		if strings.HasPrefix(http.CanonicalHeaderKey(k), "Sec-Websocket-") && http.CanonicalHeaderKey(k) != "Sec-Websocket-Protocol" {
			delete(h, k)
		}
	}
	key := wsframe.NewKey()
	h.Set("Connection", "Upgrade")
	h.Set("Upgrade", "websocket")
	h.Set("Sec-WebSocket-Version", "13")
	h.Set("Sec-WebSocket-Key", key)
	return key
}

// Upgraded returns the connection of a response to an upgrade request
// whose key was key: an error says why it is not a WebSocket session (a
// status other than 101, an accept key that does not answer key, a body
// that is not a connection).
func Upgraded(resp *http.Response, key string) (io.ReadWriteCloser, error) {
	conn, ok := resp.Body.(io.ReadWriteCloser)
	switch {
	case resp.StatusCode != http.StatusSwitchingProtocols:
		return nil, fmt.Errorf("the server answered %s instead of 101 Switching Protocols", resp.Status)
	case !cassettes.IsWebSocketUpgrade(resp.Header):
		return nil, errors.New("the 101 does not upgrade to websocket")
	case resp.Header.Get("Sec-WebSocket-Accept") != wsframe.AcceptKey(key):
		return nil, errors.New("the Sec-WebSocket-Accept does not answer the Sec-WebSocket-Key")
	case !ok:
		return nil, errors.New("the connection cannot be taken over")
	}
	return conn, nil
}
