package wsplay

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/cassette-dev/cassette/cassettes"
)

// upgrade opens a session with srv through Go's own HTTP client, as verify
// and the recorder do.
func upgrade(t *testing.T, srv *httptest.Server) (io.ReadWriteCloser, error) {
	t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), "GET", srv.URL+"/s", nil)
	req.Header.Set("Sec-WebSocket-Extensions", "permessage-deflate")
	key := Handshake(req.Header)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if req.Header.Get("Sec-WebSocket-Extensions") != "" {
		t.Error("Handshake kept an extension offer")
	}
	return Upgraded(resp, key)
}

var recorded = &cassettes.WebSocket{Messages: []cassettes.WebSocketMessage{
	{From: cassettes.FromServer, Data: `{"id":"a1"}`},
	{From: cassettes.FromClient, Data: `{"use":"a1"}`},
	{From: cassettes.FromServer, Data: "ok a1"},
	{From: cassettes.FromServer, Type: cassettes.MessageBinary, Data: "\x00\x01"},
}, Close: &cassettes.WebSocketClose{From: cassettes.FromClient, Code: 1000}}

// TestPlay: the client side is played against a real server (which makes
// its own id, that the client's message must quote: Rewrite), and the
// server's side comes back whole, with the echo of the client's close.
func TestPlay(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		_ = c.Write(r.Context(), websocket.MessageText, []byte(`{"id":"b2"}`))
		_, data, err := c.Read(r.Context())
		if err != nil {
			return
		}
		_ = c.Write(r.Context(), websocket.MessageText, []byte("ok "+strings.TrimSuffix(strings.TrimPrefix(string(data), `{"use":"`), `"}`)))
		_ = c.Write(r.Context(), websocket.MessageBinary, []byte{0, 1})
		_, _, _ = c.Read(r.Context()) // the client's close, answered by the library
	}))
	defer srv.Close()
	conn, err := upgrade(t, srv)
	if err != nil {
		t.Fatal(err)
	}
	var learned []string
	got, err := Play(conn, recorded, Options{
		Rewrite: func(b cassettes.Body) cassettes.Body {
			return cassettes.Body(strings.ReplaceAll(string(b), "a1", "b2"))
		},
		Learn: func(rec, got cassettes.WebSocketMessage) {
			learned = append(learned, string(rec.Data)+"→"+string(got.Data))
		},
	})
	if err != nil {
		t.Fatalf("Play: %v", err)
	}
	if len(got.Messages) != 4 || got.Messages[1].Data != `{"use":"b2"}` || got.Messages[2].Data != "ok b2" || !got.Messages[3].Binary() ||
		got.Close == nil || got.Close.Code != 1000 || len(learned) != 3 || learned[0] != `{"id":"a1"}→{"id":"b2"}` {
		t.Fatalf("session %+v, learned %q", got, learned)
	}
}

// TestPlayEndsWithoutClose: a server that cuts the session, and one that
// owes a message longer than Wait, end it with an error, never a hang.
func TestPlayEndsWithoutClose(t *testing.T) {
	for _, tc := range []struct {
		name string
		cut  bool
	}{{"cut", true}, {"late", false}} {
		t.Run(tc.name, func(t *testing.T) {
			release := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				c, err := websocket.Accept(w, r, nil)
				if err != nil {
					return
				}
				if tc.cut {
					_ = c.CloseNow()
					return
				}
				<-release
				_ = c.CloseNow()
			}))
			defer srv.Close()
			defer close(release)
			conn, err := upgrade(t, srv)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Play(conn, recorded, Options{Wait: 50 * time.Millisecond})
			if err == nil || (tc.cut == errors.Is(err, ErrLate)) || len(got.Messages) != 0 {
				t.Fatalf("Play = %+v, %v", got, err)
			}
		})
	}
}

// TestUpgradedRefusal: a server that does not upgrade is named by its status.
func TestUpgradedRefusal(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	if _, err := upgrade(t, srv); err == nil || !strings.Contains(err.Error(), "404 Not Found instead of 101") {
		t.Fatalf("Upgraded = %v", err)
	}
}
