package recording

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// greeter is a real WebSocket service: it greets with greeting, answers
// each message with its upper case, and closes on "bye".
func greeter(greeting string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+plantedValue {
			http.Error(w, "who are you", http.StatusUnauthorized)
			return
		}
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		_ = c.Write(r.Context(), websocket.MessageText, []byte(greeting))
		for {
			_, data, err := c.Read(r.Context())
			if err != nil {
				return
			}
			if string(data) == "bye" {
				_ = c.Close(websocket.StatusNormalClosure, "bye")
				return
			}
			_ = c.Write(r.Context(), websocket.MessageText, []byte(strings.ToUpper(string(data))))
		}
	})
}

func sessionCassette() *cassettes.Cassette {
	return &cassettes.Cassette{Adapter: "chat", Scenario: "hello", Path: "cassettes/chat/hello.yaml", Kind: cfgschema.KindHTTP,
		Interactions: []cassettes.Interaction{{
			Request: cassettes.Request{Method: "GET", URL: "wss://chat.example/v1/ws",
				Headers: http.Header{"Authorization": {"[REDACTED]"}, "Connection": {"Upgrade"}, "Upgrade": {"websocket"}, "Sec-Websocket-Version": {"13"}}},
			Response: cassettes.Response{Code: 101, Status: "101 Switching Protocols", Headers: http.Header{"Connection": {"Upgrade"}, "Upgrade": {"websocket"}}},
			WebSocket: &cassettes.WebSocket{Messages: []cassettes.WebSocketMessage{
				{From: cassettes.FromServer, Data: "hello"},
				{From: cassettes.FromClient, Data: "abc"},
				{From: cassettes.FromServer, Data: "ABC"},
				{From: cassettes.FromClient, Data: "bye"},
			}, Close: &cassettes.WebSocketClose{From: cassettes.FromServer, Code: 1000, Reason: "bye"}},
		}}}
}

// TestRerecordWebSocketSession: a session is recorded again by playing its
// client side against the real service, whose answers (a new greeting)
// make the new session; a service that refuses the upgrade is
// E_REAL_UPGRADE, never a recording.
func TestRerecordWebSocketSession(t *testing.T) {
	srv := httptest.NewServer(greeter("hello again"))
	defer srv.Close()
	opts := HTTPOptions{BaseURL: srv.URL, Transport: srv.Client().Transport, Meta: Meta{Now: fixedNow},
		Headers: map[string]string{"Authorization": "Bearer ${T}"}, Credentials: []string{"T"}, LookupEnv: env(map[string]string{"T": plantedValue})}
	rec, err := RerecordHTTP(context.Background(), sessionCassette(), opts)
	if err != nil {
		t.Fatal(err)
	}
	in := rec.Cassette.Interactions[0]
	ws := in.WebSocket
	if in.Response.Code != 101 || ws == nil || len(ws.Messages) != 4 || ws.Messages[0].Data != "hello again" || ws.Messages[2].Data != "ABC" ||
		ws.Close == nil || ws.Close.From != cassettes.FromServer || ws.Close.Code != 1000 {
		t.Fatalf("re-recorded %d, session %+v", in.Response.Code, ws)
	}
	if in.Request.Headers.Get("Sec-WebSocket-Key") != "" || in.Response.Headers.Get("Sec-WebSocket-Accept") != "" || in.Request.Headers.Get("Authorization") != "[REDACTED]" {
		t.Errorf("request headers %v, response headers %v", in.Request.Headers, in.Response.Headers)
	}

	opts.LookupEnv = env(map[string]string{"T": "another-token-value"})
	_, err = RerecordHTTP(context.Background(), sessionCassette(), opts)
	if e, ok := err.(*outcome.Error); !ok || e.Reason != outcome.ERealUpgrade || !strings.Contains(e.Message, "401 Unauthorized") {
		t.Fatalf("a refused upgrade: %v, want E_REAL_UPGRADE naming the 401", err)
	}
}
