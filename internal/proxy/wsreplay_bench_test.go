package proxy

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
)

// BenchmarkWebSocketReplay is a session of 100 messages, each answered
// before the next is sent, against a direct echo server (coder/websocket,
// the baseline) and against the replay proxy playing the same session
// from a cassette: bench/go-rows.sh's websocket row is replay ÷ direct in
// messages per second.
func BenchmarkWebSocketReplay(b *testing.B) {
	const n = 100
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		for {
			typ, data, err := c.Read(r.Context())
			if err != nil {
				return
			}
			if c.Write(r.Context(), typ, data) != nil {
				return
			}
		}
	}))
	defer echo.Close()
	it := cassettes.Interaction{
		Request: cassettes.Request{Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Method: "GET", URL: "http://echo.test/echo", Host: "echo.test",
			Headers: http.Header{"Connection": {"Upgrade"}, "Upgrade": {"websocket"}, "Sec-Websocket-Version": {"13"}}},
		Response: cassettes.Response{Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Code: 101, Status: "101 Switching Protocols",
			Headers: http.Header{"Connection": {"Upgrade"}, "Upgrade": {"websocket"}}},
		WebSocket: &cassettes.WebSocket{Close: &cassettes.WebSocketClose{From: cassettes.FromClient, Code: 1000}},
	}
	for i := range n {
		msg := cassettes.Body(fmt.Sprintf(`{"type":"input","seq":%d,"text":"hello"}`, i))
		it.WebSocket.Messages = append(it.WebSocket.Messages,
			cassettes.WebSocketMessage{From: cassettes.FromClient, Data: msg}, cassettes.WebSocketMessage{From: cassettes.FromServer, Data: msg})
	}
	replayable := true
	cas := &cassettes.Cassette{Adapter: "echo", Scenario: "echo", Kind: cfgschema.KindHTTP, Interactions: []cassettes.Interaction{it},
		Path: "cassettes/echo/echo.yaml", Replayable: &replayable}
	rp := startProxy(b, Options{Mode: ModeReplay, Upstream: "http://echo.test", Cassettes: []*cassettes.Cassette{cas}})
	for _, bc := range []struct{ name, url string }{{"direct", echo.URL}, {"replay", rp.URL()}} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			wsURL := "ws" + strings.TrimPrefix(bc.url, "http") + "/echo"
			for b.Loop() {
				c, _, err := websocket.Dial(ctx, wsURL, nil)
				if err != nil {
					b.Fatal(err)
				}
				for i := range n {
					msg := fmt.Appendf(nil, `{"type":"input","seq":%d,"text":"hello"}`, i)
					if err := c.Write(ctx, websocket.MessageText, msg); err != nil {
						b.Fatal(err)
					}
					if _, got, err := c.Read(ctx); err != nil || string(got) != string(msg) {
						b.Fatalf("message %d: %q, %v", i, got, err)
					}
				}
				c.Close(websocket.StatusNormalClosure, "")
			}
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}
