package cassettes_test

import (
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/redact"
)

// TestRedactWebSocketMessages: a credential-named JSON key in a text
// message is hidden and its value learned, then scrubbed from the other
// messages; declared values go from text and binary messages alike.
func TestRedactWebSocketMessages(t *testing.T) {
	r := redact.New(nil, map[string]string{"API_KEY": "declared-value-123"})
	in := cassettes.Interaction{
		Request:  cassettes.Request{Method: "GET", URL: "wss://rt.example.com/v1"},
		Response: cassettes.Response{Code: 101},
		WebSocket: &cassettes.WebSocket{Messages: []cassettes.WebSocketMessage{
			{From: cassettes.FromServer, Data: `{"type":"echo","text":"your key is learned-key-987654"}`},
			{From: cassettes.FromClient, Data: `{"type":"session.update","session":{"api_key":"learned-key-987654"}}`},
			{From: cassettes.FromClient, Type: cassettes.MessageBinary, Data: "\xff\x00declared-value-123\xfe"},
		}, Close: &cassettes.WebSocketClose{From: cassettes.FromServer, Code: 4000, Reason: "bad key declared-value-123"}},
	}
	in.Redact(r)
	ws := in.WebSocket
	if got := string(ws.Messages[1].Data); got != `{"type":"session.update","session":{"api_key":"[REDACTED]"}}` {
		t.Errorf("by name: %s", got)
	}
	for i, m := range ws.Messages {
		if strings.Contains(string(m.Data), "learned-key-987654") || strings.Contains(string(m.Data), "declared-value-123") {
			t.Errorf("messages[%d] keeps a credential: %q", i, m.Data)
		}
	}
	if strings.Contains(ws.Close.Reason, "declared-value-123") {
		t.Errorf("close reason keeps a credential: %q", ws.Close.Reason)
	}
}
