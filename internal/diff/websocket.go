package diff

import (
	"fmt"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/normalize"
)

// WebSocket sessions are compared like streams, message by message: each
// message's data is normalized as a body (a JSON message by its JSON, so
// ids and timestamps get their placeholders), and the server's messages
// are compared in order, the k-th against the k-th; a drift names the
// message by its index in the want cassette (interactions[i].websocket.
// messages[j]) and its line. The client's messages are what verify sent,
// and times are never compared.

// normalizeSession returns the normalized copy of a session, numbered in
// the cassette's identity state after the interaction's bodies.
func normalizeSession(st *normalize.State, p *normalize.Pipeline, ws *cassettes.WebSocket) *cassettes.WebSocket {
	if ws == nil {
		return nil
	}
	out := ws.Clone()
	for i := range out.Messages {
		m := &out.Messages[i]
		m.At = 0
		if !m.Binary() {
			m.Data = cassettes.Body(p.Body(st, "", m.Data.Bytes()))
		}
	}
	if out.Close != nil {
		out.Close.Reason = p.Text(st, out.Close.Reason)
	}
	return out
}

// serverMessages are the indices of the server's messages of a session.
func serverMessages(ws *cassettes.WebSocket) []int {
	var out []int
	if ws == nil {
		return out
	}
	for i, m := range ws.Messages {
		if m.From == cassettes.FromServer {
			out = append(out, i)
		}
	}
	return out
}

// session compares the normalized sessions of interaction f (raw is the
// want cassette's own, where lines are counted).
func (c *comparer) session(f string, raw, w, g *cassettes.WebSocket) {
	if w == nil && g == nil {
		return
	}
	if w == nil || g == nil {
		d := Drift{Class: ClassInteraction, Field: f + ".websocket", Change: Added, Got: "a WebSocket session"}
		if g == nil {
			d.Change, d.Got, d.Want = Removed, "", "a WebSocket session"
		}
		c.add(d)
		return
	}
	wi, gi := serverMessages(w), serverMessages(g)
	for k := 0; k < max(len(wi), len(gi)); k++ {
		switch {
		case k >= len(gi):
			m := w.Messages[wi[k]]
			c.add(Drift{Class: ClassStream, Change: Removed, Field: fmt.Sprintf("%s.websocket.messages[%d]", f, wi[k]), Want: messageSnippet(m)})
		case k >= len(wi):
			field, line := f+".websocket.messages", 0
			if len(w.Messages) > 0 {
				line = c.want.Line(fmt.Sprintf("%s.websocket.messages[%d]", f, len(w.Messages)-1))
			}
			c.add(Drift{Class: ClassStream, Change: Added, Field: fmt.Sprintf("%s[%d]", field, len(w.Messages)+k-len(wi)), Line: line, Got: messageSnippet(g.Messages[gi[k]])})
		default:
			field := fmt.Sprintf("%s.websocket.messages[%d]", f, wi[k])
			wm, gm := w.Messages[wi[k]], g.Messages[gi[k]]
			if wm.Binary() != gm.Binary() {
				c.add(Drift{Class: ClassStream, Change: TypeChanged, Field: field + ".type", Want: messageType(wm), Got: messageType(gm)})
				continue
			}
			c.body(field+".data", "", raw.Messages[wi[k]].Data.Bytes(), wm.Data.Bytes(), gm.Data.Bytes())
		}
	}
	if w.Close != nil && (g.Close == nil || g.Close.Code != w.Close.Code) {
		got := "no close frame"
		if g.Close != nil {
			got = fmt.Sprintf("%d from the %s", g.Close.Code, g.Close.From)
		}
		c.add(Drift{Class: ClassStatus, Change: ValueChanged, Field: f + ".websocket.close.code",
			Want: fmt.Sprintf("%d from the %s", w.Close.Code, w.Close.From), Got: got})
	}
}

func messageType(m cassettes.WebSocketMessage) string {
	if m.Binary() {
		return cassettes.MessageBinary
	}
	return cassettes.MessageText
}

func messageSnippet(m cassettes.WebSocketMessage) string {
	if m.Binary() {
		return fmt.Sprintf("binary, %d bytes", len(m.Data))
	}
	return string(m.Data)
}
