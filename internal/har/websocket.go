package har

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
)

// A browser's HAR holds a WebSocket as the entry of its upgrade (a GET of
// a ws:// or wss:// URL answered 101) with the session's messages in
// Chromium's `_webSocketMessages`: each sent or received, with its time
// (seconds since the epoch), opcode (1 text, 2 binary) and data (binary
// data in base64); a frame error is written among them as type "error",
// opcode -1, and is no message. They map onto the cassette's session directly; the
// URL is written as the proxy records an upgrade (http, https). An
// upgrade whose messages the HAR does not hold (Firefox writes none) is
// left out with a warning: a 101 without its session is a cassette
// replay refuses.

// WebSocketMessage is one message of Chromium's _webSocketMessages.
type WebSocketMessage struct {
	Type   string  `json:"type"` // "send" (the client's) or "receive" (the server's)
	Time   float64 `json:"time"` // seconds since the epoch
	Opcode int     `json:"opcode"`
	Data   string  `json:"data"`
}

// isUpgrade reports whether an entry is a WebSocket upgrade.
func isUpgrade(e Entry) bool {
	if e.Response.Status != http.StatusSwitchingProtocols {
		return false
	}
	return len(e.WebSocketMessages) > 0 || cassettes.IsWebSocketUpgrade(headers(e.Response.Headers)) ||
		strings.HasPrefix(e.Request.URL, "ws://") || strings.HasPrefix(e.Request.URL, "wss://")
}

// httpURL is a ws:// or wss:// URL as http:// or https://.
func httpURL(u string) string {
	if rest, ok := strings.CutPrefix(u, "wss://"); ok {
		return "https://" + rest
	}
	if rest, ok := strings.CutPrefix(u, "ws://"); ok {
		return "http://" + rest
	}
	return u
}

// webSocket is the session of upgrade entry e (log.entries[i]), its
// message times counted from the entry's start; an opcode other than text
// and binary (a close or ping frame some exporters add) is not a message.
func webSocket(e Entry, i int) (*cassettes.WebSocket, error) {
	ws := &cassettes.WebSocket{Messages: []cassettes.WebSocketMessage{}}
	start, err := time.Parse(time.RFC3339Nano, e.StartedDateTime)
	var prev cassettes.Duration
	for k, m := range e.WebSocketMessages {
		msg := cassettes.WebSocketMessage{From: cassettes.FromClient}
		switch m.Type {
		case "send":
		case "receive":
			msg.From = cassettes.FromServer
		case "error":
			continue // DevTools' record of a frame error (opcode -1, data the error text): no message was sent
		default:
			return nil, fmt.Errorf("log.entries[%d]._webSocketMessages[%d].type %q: expected send, receive or error", i, k, m.Type)
		}
		switch m.Opcode {
		case 1:
			msg.Data = cassettes.Body(m.Data)
		case 2:
			b, derr := base64.StdEncoding.DecodeString(m.Data)
			if derr != nil {
				return nil, fmt.Errorf("log.entries[%d]._webSocketMessages[%d].data is not base64: %w", i, k, derr)
			}
			msg.Type, msg.Data = cassettes.MessageBinary, cassettes.Body(b)
		default:
			continue
		}
		if err == nil && m.Time > 0 {
			at := time.Unix(0, int64(m.Time*float64(time.Second))).Sub(start)
			msg.At = max(prev, cassettes.Duration(max(at, 0)))
		} else {
			msg.At = prev
		}
		prev = msg.At
		ws.Messages = append(ws.Messages, msg)
	}
	return ws, nil
}
