package cassettes

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	vcrcassette "gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

// wsCassette is a recorded WebSocket session: text both ways, a binary
// message from the server, and the client's close.
func wsCassette(dir string) *Cassette {
	return &Cassette{Cassette: SchemaVersion, Version: GoVCRVersion, Adapter: "realtime", Scenario: "hello", Kind: cfgschema.KindHTTP,
		Path: filepath.Join(dir, "realtime", "hello.yaml"),
		Interactions: []Interaction{{
			Request: Request{Method: "GET", URL: "wss://rt.example.com/v1/realtime?model=m",
				Headers: http.Header{"Connection": {"Upgrade"}, "Upgrade": {"websocket"}, "Sec-Websocket-Version": {"13"}}},
			Response: Response{Code: 101, Status: "101 Switching Protocols",
				Headers: http.Header{"Connection": {"Upgrade"}, "Upgrade": {"websocket"}}},
			WebSocket: &WebSocket{Messages: []WebSocketMessage{
				{From: FromServer, At: Duration(2 * time.Millisecond), Data: `{"type":"session.created"}`},
				{From: FromClient, At: Duration(3 * time.Millisecond), Data: "{\n  \"type\": \"input\",\n  \"text\": \"hi\"\n}\n"},
				{From: FromServer, Type: MessageBinary, At: Duration(5 * time.Millisecond), Data: "\x00\x01\xff\xfe"},
			}, Close: &WebSocketClose{From: FromClient, Code: 1000}},
		}},
	}
}

// TestWebSocketSessionRoundTrips: a session is saved in the layout the
// README shows, loads strictly, saves again to the same bytes, and go-vcr
// v4 loads the file (the `websocket:` key is one it ignores).
func TestWebSocketSessionRoundTrips(t *testing.T) {
	c := wsCassette(t.TempDir())
	if err := Save(c, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(c.Path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"    websocket:\n      messages:\n        - from: server\n          at: 2ms\n          data: '{\"type\":\"session.created\"}'\n",
		"          data: |\n            {\n", "          type: binary\n", "          data: !!binary AAH//g==\n",
		"      close:\n        from: client\n        code: 1000\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the saved file lacks %q:\n%s", want, data)
		}
	}
	got, err := Load(c.Path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ws := got.Interactions[0].WebSocket
	if ws == nil || len(ws.Messages) != 3 || ws.Messages[2].Data != "\x00\x01\xff\xfe" || !ws.Messages[2].Binary() || ws.Close.Code != 1000 {
		t.Fatalf("loaded session: %+v", ws)
	}
	if line := got.Line("interactions[0].websocket.messages[1].data"); line == 0 || !strings.HasPrefix(strings.Split(string(data), "\n")[line-1], "          data: |") {
		t.Errorf("messages[1].data is located at line %d", line)
	}
	again, err := Marshal(got)
	if err != nil || !bytes.Equal(again, data) {
		t.Errorf("load → save is not a fixed point (%v):\n%s", err, again)
	}
	vc, err := vcrcassette.Load(strings.TrimSuffix(c.Path, ".yaml"))
	if err != nil || len(vc.Interactions) != 1 || vc.Interactions[0].Response.Code != 101 {
		t.Errorf("go-vcr v4 does not load a cassette with a session: %v", err)
	}
}

// TestWebSocketSessionValidation: strict load names each wrong field of a
// session by file, line and field, and refuses a bodiless 101.
func TestWebSocketSessionValidation(t *testing.T) {
	dir := t.TempDir()
	c := wsCassette(dir)
	ws := c.Interactions[0].WebSocket
	ws.Messages[1].From = "browser"
	ws.Messages[2].Type = "blob"
	ws.Messages[2].At = Duration(time.Millisecond) // before messages[1]
	ws.Close.Code = 1006
	c.Interactions = append(c.Interactions, c.Interactions[0])
	c.Interactions[1].WebSocket = nil // a bodiless 101
	data, err := Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Parse(c.Path, data, LoadOptions{})
	e, ok := err.(*outcome.Error)
	if !ok || e.Reason != outcome.ECassetteInvalid {
		t.Fatalf("Parse = %v, want E_CASSETTE_INVALID", err)
	}
	want := map[string]string{
		"interactions[0].websocket.messages[1].from": "`browser` is not a sender",
		"interactions[0].websocket.messages[2].type": "`blob` is not a message type",
		"interactions[0].websocket.messages[2].at":   "1ms is before the previous message (3ms)",
		"interactions[0].websocket.close.code":       "1006 is not a close frame's status",
		"interactions[1].response":                   "a WebSocket upgrade (101) without its session",
	}
	for _, p := range e.Problems {
		if msg, ok := want[p.Field]; ok && p.Message == msg && p.Line > 0 {
			delete(want, p.Field)
		}
	}
	for f, msg := range want {
		t.Errorf("no problem %q at %s (with a line) in %+v", msg, f, e.Problems)
	}
}

// TestWebSocketBinaryLeak: a credential inside a binary message, which the
// file holds as base64, is found.
func TestWebSocketBinaryLeak(t *testing.T) {
	c := wsCassette(t.TempDir())
	c.Interactions[0].WebSocket.Messages[2].Data = Body("\xff\x00token=ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4s") // gitleaks skips low-entropy tokens (ghp_aaaa…)
	data, err := Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Parse(c.Path, data, LoadOptions{})
	if e, ok := err.(*outcome.Error); !ok || e.Reason != outcome.ESecretLeak || !strings.Contains(e.Error(), "messages[2].data") {
		t.Fatalf("Parse = %v, want E_SECRET_LEAK at messages[2].data", err)
	}
}

// TestWebSocketSessionsInALargeCassette: a cassette large enough to be
// read one interaction at a time (split.go, and whatever faster reader of
// the interactions comes) loads its sessions as the whole-file parse
// does, with their lines.
func TestWebSocketSessionsInALargeCassette(t *testing.T) {
	c := wsCassette(t.TempDir())
	one := c.Interactions[0]
	c.Interactions = nil
	for i := range 400 {
		it := one
		it.ID = i
		it.WebSocket = one.WebSocket.Clone()
		it.WebSocket.Messages[0].Data = Body(`{"type":"session.created","n":` + strings.Repeat("1", i%7+1) + `,"pad":"` + strings.Repeat("p", 600) + `"}`)
		c.Interactions = append(c.Interactions, it)
	}
	if err := Save(c, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(c.Path)
	if err != nil || len(data) < splitBytes {
		t.Fatalf("the file is %d bytes, under the split threshold %d (%v)", len(data), splitBytes, err)
	}
	got, err := Load(c.Path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	old := splitBytes
	splitBytes = 1 << 62 // parsed whole
	whole, err := Load(c.Path, LoadOptions{})
	splitBytes = old
	if err != nil {
		t.Fatal(err)
	}
	for i := range c.Interactions {
		a, b := got.Interactions[i].WebSocket, whole.Interactions[i].WebSocket
		if a == nil || b == nil || len(a.Messages) != 3 || a.Messages[0].Data != b.Messages[0].Data || a.Messages[2].Data != "\x00\x01\xff\xfe" || *a.Close != *b.Close {
			t.Fatalf("interaction %d: split %+v, whole %+v", i, a, b)
		}
	}
	field := "interactions[399].websocket.messages[2].data"
	if l, w := got.Line(field), whole.Line(field); l == 0 || l != w {
		t.Errorf("%s at line %d split, %d whole", field, l, w)
	}
}

// TestFastDecodeReadsSessions: the fast reader of the writer's layout reads
// a session (text, a literal block, binary, an empty list, a close) as
// yaml.v3 does, and the writer's bytes come back.
func TestFastDecodeReadsSessions(t *testing.T) {
	c := wsCassette(t.TempDir())
	empty := c.Interactions[0]
	empty.WebSocket = &WebSocket{Messages: []WebSocketMessage{}}
	c.Interactions = append(c.Interactions, empty)
	data, err := Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	text := interactionsOf(data)
	got := make([]Interaction, len(c.Interactions))
	if !fastItems(text, got, false) {
		t.Fatalf("the fast reader declined a session:\n%s", text)
	}
	if want, ok := yamlItems(text); !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("yaml.v3 reads %#v, the fast reader %#v", want, got)
	}
	back := *c
	back.Interactions = got
	if again, err := Marshal(&back); err != nil || !bytes.Equal(again, data) {
		t.Fatalf("read back differently (%v):\n%s", err, again)
	}
}
