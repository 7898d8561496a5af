// Command realtime is the fake of examples/realtime's WebSocket service,
// the stand-in a team's tests would use: it listens on 127.0.0.1:$PORT
// (ready when GET /healthz answers) and speaks the service's protocol
// (see ../../server) from a table of answers instead of a model.
// `cassette verify` plays each recorded session's client side to it and
// compares its messages with the recorded ones, one by one.
package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/coder/websocket"
)

func main() {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("/v1/realtime", session)
	srv := &http.Server{Addr: "127.0.0.1:" + os.Getenv("PORT"), Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	if err := srv.ListenAndServe(); err != nil {
		fmt.Fprintln(os.Stderr, "fake realtime:", err)
		os.Exit(3)
	}
}

// event is what the fake reads and writes: one JSON object per message.
type event map[string]any

func session(w http.ResponseWriter, r *http.Request) {
	model := r.URL.Query().Get("model")
	if model != "realtime-mini" && model != "realtime-large" {
		http.Error(w, `{"error":{"message":"model not found"}}`, http.StatusNotFound)
		return
	}
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{"realtime.v1"}})
	if err != nil {
		return
	}
	defer c.CloseNow()
	ctx := r.Context()
	send := func(e event) error {
		b, _ := json.Marshal(e)
		return c.Write(ctx, websocket.MessageText, b)
	}
	_ = send(event{"type": "session.created", "session": event{"id": "sess_fake00000001", "model": model, "created_at": time.Now().UTC().Format(time.RFC3339)}})
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			return
		}
		var in struct{ Type, Text string }
		_ = json.Unmarshal(data, &in)
		switch in.Type {
		case "input.text":
			words := strings.Fields(in.Text)
			for _, w := range words {
				_ = send(event{"type": "response.delta", "delta": strings.ToUpper(w)})
			}
			_ = c.Write(ctx, websocket.MessageBinary, append([]byte("PCM16"), in.Text...))
			_ = send(event{"type": "response.done", "response": event{"words": len(words)}})
		case "session.close":
			_ = c.Close(websocket.StatusNormalClosure, "session closed")
			return
		default:
			_ = send(event{"type": "error", "error": event{"message": "unknown event type " + in.Type}})
		}
	}
}
