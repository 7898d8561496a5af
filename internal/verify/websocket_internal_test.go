package verify

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
)

// realtimeFake is a fake of a realtime API written with a real WebSocket
// library: a greeting with a fresh session id, then a delta and a binary
// chunk for each input. upper=false is a broken fake.
func realtimeFake(upper bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		ctx := r.Context()
		var b [4]byte
		_, _ = rand.Read(b[:])
		item := hex.EncodeToString(b[:]) + "-aaaa-4bbb-8ccc-" + strings.Repeat("d", 12)
		_ = c.Write(ctx, websocket.MessageText, []byte(`{"type":"session.created","item":"`+item+`"}`))
		for {
			_, data, err := c.Read(ctx)
			if err != nil {
				return
			}
			var in struct{ Text, Item string }
			_ = json.Unmarshal(data, &in)
			text := in.Text
			if in.Item != item { // the client must quote the item this fake made
				text = "unknown item " + in.Item
			}
			if upper {
				text = strings.ToUpper(text)
			}
			out, _ := json.Marshal(map[string]string{"type": "delta", "text": text})
			_ = c.Write(ctx, websocket.MessageText, out)
			_ = c.Write(ctx, websocket.MessageBinary, append([]byte{0xFF, 0}, in.Text...))
		}
	})
}

// sessionCassette is a session as the proxy records one, saved and loaded
// so that drifts have lines.
func sessionCassette(t *testing.T) *cassettes.Cassette {
	c := &cassettes.Cassette{Cassette: 1, Version: 2, Adapter: "realtime", Scenario: "hello", Kind: cfgschema.KindHTTP,
		Path: filepath.Join(t.TempDir(), "realtime", "hello.yaml"), Normalizers: []string{"uuid", "json.canonical"},
		Interactions: []cassettes.Interaction{{
			Request: cassettes.Request{Method: "GET", URL: "wss://rt.example.com/v1/realtime",
				Headers: http.Header{"Connection": {"Upgrade"}, "Upgrade": {"websocket"}, "Sec-Websocket-Key": {"dGhlIHNhbXBsZSBub25jZQ=="}}},
			Response: cassettes.Response{Code: 101, Status: "101 Switching Protocols", Headers: http.Header{"Connection": {"Upgrade"}, "Upgrade": {"websocket"}}},
			WebSocket: &cassettes.WebSocket{Messages: []cassettes.WebSocketMessage{
				{From: "server", Data: `{"type":"session.created","item":"0f8e2a4c-aaaa-4bbb-8ccc-dddddddddddd"}`},
				{From: "client", At: cassettes.Duration(time.Millisecond), Data: `{"type":"input","item":"0f8e2a4c-aaaa-4bbb-8ccc-dddddddddddd","text":"hello"}`},
				{From: "server", At: cassettes.Duration(2 * time.Millisecond), Data: `{"type":"delta","text":"HELLO"}`},
				{From: "server", Type: "binary", At: cassettes.Duration(2 * time.Millisecond), Data: "\xff\x00hello"},
			}, Close: &cassettes.WebSocketClose{From: "client", Code: 1000}},
		}}}
	if err := cassettes.Save(c, cassettes.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	loaded, err := cassettes.Load(c.Path, cassettes.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return loaded
}

// TestVerifyWebSocketSession: verify plays the recorded client side to a
// fake, message by message; the fake's session, normalized (its own item
// id is <uuid:1> as the recorded one is, and the client's message quotes
// the fake's id, as a request would), equals the recording;
// a fake that answers in lower case drifts at the message's index, JSON
// path and cassette line.
func TestVerifyWebSocketSession(t *testing.T) {
	c := sessionCassette(t)
	kase := Case{Cassette: c, Adapter: &cfgschema.Adapter{Kind: cfgschema.KindHTTP}}
	for _, tc := range []struct {
		name  string
		upper bool
		drift string
	}{{"good fake", true, ""}, {"broken fake", false, `value drift at interactions[0].websocket.messages[2].data $.text: value changed (want "HELLO", got "hello")`}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(realtimeFake(tc.upper))
			defer srv.Close()
			p, err := pipeline(kase, Options{Config: &cfgschema.Config{}})
			if err != nil {
				t.Fatal(err)
			}
			got, acts, err := replayHTTP(context.Background(), HTTPTarget{BaseURL: srv.URL, Client: srv.Client()}, c, p)
			if err != nil {
				t.Fatal(err)
			}
			if len(acts) != 1 || acts[0].StatusCode != 101 || !strings.Contains(string(acts[0].Body), "→ {\"type\":\"input\"") {
				t.Errorf("action: %+v", acts)
			}
			cmp, err := CompareSides(kase, got, Options{Config: &cfgschema.Config{}})
			if err != nil {
				t.Fatal(err)
			}
			if tc.drift == "" {
				if len(cmp.Drifts) != 0 {
					t.Fatalf("drifts: %+v\n%s", cmp.Drifts, cmp.Explain)
				}
				return
			}
			want := c.Line("interactions[0].websocket.messages[2].data")
			if len(cmp.Drifts) != 1 || cmp.Drifts[0].Message != tc.drift || cmp.Drifts[0].Line != want || want == 0 {
				t.Fatalf("drifts %+v, want one %q at line %d", cmp.Drifts, tc.drift, want)
			}
		})
	}
}

// TestVerifyWebSocketFakeRefuses: a fake that does not upgrade is a status
// drift on the 101, not a transport error.
func TestVerifyWebSocketFakeRefuses(t *testing.T) {
	c := sessionCassette(t)
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	got, _, err := replayHTTP(context.Background(), HTTPTarget{BaseURL: srv.URL, Client: srv.Client()}, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	cmp, err := CompareSides(Case{Cassette: c}, got, Options{Config: &cfgschema.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	msgs := fmt.Sprint(cmp.Drifts)
	if !strings.Contains(msgs, "interactions[0].response.code") || !strings.Contains(msgs, "interactions[0].websocket") {
		t.Errorf("drifts: %s", msgs)
	}
}
