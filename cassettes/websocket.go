package cassettes

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
)

// A WebSocket session is stored as an extension of the interaction whose
// request upgraded to it: the request and the 101 response keep go-vcr's
// shape (go-vcr loads the file and ignores the `websocket:` key), and the
// messages follow, in the order the proxy saw them, each with who sent it,
// its type, when it was sent and its data as a Body (text as text, binary
// bytes as !!binary):
//
//	websocket:
//	  messages:
//	    - from: client
//	      at: 1.2ms
//	      data: '{"type":"hello"}'
//	    - from: server
//	      type: binary
//	      at: 3ms
//	      data: !!binary AAEC
//	  close: {from: client, code: 1000}

// The senders of a message.
const (
	FromClient = "client"
	FromServer = "server"
)

// The types of a message; "" is text.
const (
	MessageText   = "text"
	MessageBinary = "binary"
)

// WebSocket is the session that followed a WebSocket upgrade.
type WebSocket struct {
	Messages []WebSocketMessage `yaml:"messages"`
	// Close is the first close frame either side sent; nil when the
	// session ended without one (the recording stopped while it was open).
	Close *WebSocketClose `yaml:"close,omitempty"`
}

// WebSocketMessage is one data message (ping and pong frames are not kept:
// each side's library answers them).
type WebSocketMessage struct {
	From string `yaml:"from"`           // client or server
	Type string `yaml:"type,omitempty"` // text (the default) or binary
	// At is when the message was sent, since the session opened (the 101
	// arrived): replay with latency keeps the gaps between messages.
	At   Duration `yaml:"at"`
	Data Body     `yaml:"data"`
}

// Binary reports whether the message is a binary one.
func (m WebSocketMessage) Binary() bool { return m.Type == MessageBinary }

// WebSocketClose is a close frame: who sent it, its status code (0: none)
// and reason.
type WebSocketClose struct {
	From   string `yaml:"from"`
	Code   int    `yaml:"code,omitempty"`
	Reason string `yaml:"reason,omitempty"`
}

// IsWebSocketUpgrade reports whether h (a request's or a response's
// headers) asks for or grants an upgrade to WebSocket.
func IsWebSocketUpgrade(h http.Header) bool {
	return headerHas(h, "Connection", "upgrade") && headerHas(h, "Upgrade", "websocket")
}

func headerHas(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// webSocketProblems checks the sessions of a strictly loaded cassette: a
// session belongs to a 101, its senders and types are known, its times do
// not go back, its close code is one a close frame may carry; and a
// WebSocket upgrade's 101 has its session (a bodiless 101 replays nothing).
func webSocketProblems(c *Cassette) []outcome.Problem {
	var out []outcome.Problem
	add := func(field, msg, expected string) {
		out = append(out, outcome.Problem{File: c.Path, Line: c.Line(field), Field: field, Message: msg, Expected: expected})
	}
	for i, in := range c.Interactions {
		f := fmt.Sprintf("interactions[%d]", i)
		ws := in.WebSocket
		if ws == nil {
			if !c.Plain && in.Response.Code == http.StatusSwitchingProtocols && IsWebSocketUpgrade(in.Response.Headers) {
				add(f+".response", "a WebSocket upgrade (101) without its session", "`websocket:` with the messages; record it again")
			}
			continue
		}
		if in.Response.Code != http.StatusSwitchingProtocols {
			add(f+".response.code", fmt.Sprintf("a WebSocket session after a %d response", in.Response.Code), "101")
		}
		var prev Duration
		for k, m := range ws.Messages {
			mf := fmt.Sprintf("%s.websocket.messages[%d]", f, k)
			if m.From != FromClient && m.From != FromServer {
				add(mf+".from", fmt.Sprintf("`%s` is not a sender", m.From), "client or server")
			}
			if m.Type != "" && m.Type != MessageText && m.Type != MessageBinary {
				add(mf+".type", fmt.Sprintf("`%s` is not a message type", m.Type), "text or binary")
			}
			if m.At < prev {
				add(mf+".at", fmt.Sprintf("%s is before the previous message (%s)", time.Duration(m.At), time.Duration(prev)), "times in the order of the messages")
			}
			prev = max(prev, m.At)
		}
		if cl := ws.Close; cl != nil {
			if cl.From != FromClient && cl.From != FromServer {
				add(f+".websocket.close.from", fmt.Sprintf("`%s` is not a sender", cl.From), "client or server")
			}
			if cl.Code != 0 && (cl.Code < 1000 || cl.Code > 4999 || cl.Code == 1005 || cl.Code == 1006) {
				add(f+".websocket.close.code", fmt.Sprintf("%d is not a close frame's status", cl.Code), "1000-4999 (not 1005, 1006), or none")
			}
		}
	}
	return out
}

// webSocketLeaks scans, with scan, binary messages, which the file holds
// as base64 and the raw scan cannot read.
func webSocketLeaks(c *Cassette, scan func([]byte) []redact.Finding) []outcome.Problem {
	var out []outcome.Problem
	for i, in := range c.Interactions {
		if in.WebSocket == nil {
			continue
		}
		for k, m := range in.WebSocket.Messages {
			if !m.Data.IsBinary() {
				continue // text: in the file as it is, already scanned
			}
			field := fmt.Sprintf("interactions[%d].websocket.messages[%d].data", i, k)
			for _, f := range scan(m.Data.Bytes()) {
				out = append(out, outcome.Problem{File: c.Path, Line: c.Line(field), Field: field,
					Message: "a credential (" + f.Kind + ") is stored in this message (found after decoding it)", Expected: redact.Redacted})
			}
		}
	}
	return out
}

// learn teaches r the values the session's text messages hide by their
// name (a JSON key named like a credential), as Interaction.learn does
// for bodies.
func (ws *WebSocket) learn(r *redact.Redactor) {
	if ws == nil {
		return
	}
	for _, m := range ws.Messages {
		if !m.Binary() {
			r.LearnBody("", m.Data.Bytes())
		}
	}
}

// redact scrubs every message as a body is scrubbed (a text message's
// credential-named JSON keys, then values and key formats in any message),
// and the close reason.
func (ws *WebSocket) redact(r *redact.Redactor) {
	if ws == nil {
		return
	}
	for i := range ws.Messages {
		m := &ws.Messages[i]
		if m.Binary() {
			m.Data = Body(r.Bytes(m.Data.Bytes()))
		} else {
			m.Data = Body(r.Body("", m.Data.Bytes()))
		}
	}
	if ws.Close != nil {
		ws.Close.Reason = r.String(ws.Close.Reason)
	}
}

// Clone is a copy of the session that shares no slice with it.
func (ws *WebSocket) Clone() *WebSocket {
	if ws == nil {
		return nil
	}
	out := &WebSocket{Messages: append([]WebSocketMessage(nil), ws.Messages...)}
	if ws.Close != nil {
		c := *ws.Close
		out.Close = &c
	}
	return out
}
