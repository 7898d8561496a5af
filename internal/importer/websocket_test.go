package importer

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/proxy"
)

// chromiumWebSocket is a WebSocket entry as Chromium's dev tools export it:
// the upgrade's GET of a wss:// URL answered 101, its messages in
// _webSocketMessages (seconds since the epoch, opcode 1 text, 2 binary in
// base64). With messages nil the HAR holds none (Firefox's export).
func chromiumWebSocket(page string, messages []any) map[string]any {
	e := map[string]any{
		"pageref": page, "startedDateTime": "2026-01-02T03:04:05.000Z", "time": 12, "_resourceType": "websocket",
		"request": map[string]any{"method": "GET", "url": "wss://chat.example/socket?room=1", "httpVersion": "HTTP/1.1",
			"headers": []any{
				map[string]any{"name": "Connection", "value": "Upgrade"}, map[string]any{"name": "Upgrade", "value": "websocket"},
				map[string]any{"name": "Sec-WebSocket-Version", "value": "13"}, map[string]any{"name": "Sec-WebSocket-Key", "value": "dGhlIHNhbXBsZSBub25jZQ=="},
			},
			"queryString": []any{map[string]any{"name": "room", "value": "1"}}, "cookies": []any{}, "headersSize": -1, "bodySize": 0},
		"response": map[string]any{"status": 101, "statusText": "Switching Protocols", "httpVersion": "HTTP/1.1",
			"headers": []any{
				map[string]any{"name": "Connection", "value": "Upgrade"}, map[string]any{"name": "Upgrade", "value": "websocket"},
				map[string]any{"name": "Sec-WebSocket-Accept", "value": "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="},
			},
			"cookies": []any{}, "content": map[string]any{"size": 0, "mimeType": "x-unknown"}, "redirectURL": "", "headersSize": -1, "bodySize": 0},
		"cache": map[string]any{}, "timings": map[string]any{"send": 0, "wait": 12, "receive": 0},
	}
	if messages != nil {
		e["_webSocketMessages"] = messages
	}
	return e
}

// TestImportHARWebSocketReplays: a Chromium HAR of a page with a WebSocket
// imports the session from _webSocketMessages (#35: it wrote a 101 that
// replay refused to load), a frame error DevTools lists among them being
// no message; the cassette loads strictly and a real
// WebSocket client is answered by the replaying proxy as the HAR says. An
// upgrade the HAR holds no messages of is left out with a warning naming
// the entry.
func TestImportHARWebSocketReplays(t *testing.T) {
	dir := t.TempDir()
	t0 := float64(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Unix())
	src := writeHAR(t, filepath.Join(dir, "chat.har"),
		[]any{map[string]any{"id": "p1", "title": "Chat", "startedDateTime": "2026-01-02T03:04:05Z"}},
		entry("p1", "GET", "https://chat.example/", "text/html", "<html>chat</html>"),
		chromiumWebSocket("p1", []any{
			map[string]any{"type": "receive", "time": t0 + 0.010, "opcode": 1, "data": `{"type":"hello"}`},
			map[string]any{"type": "send", "time": t0 + 0.020, "opcode": 1, "data": `{"say":"hi"}`},
			map[string]any{"type": "receive", "time": t0 + 0.030, "opcode": 2, "data": "AAEC"},
			// DevTools writes a frame error among the frames (NetworkRequest.addProtocolFrameError)
			map[string]any{"type": "error", "time": t0 + 0.040, "opcode": -1, "data": "Invalid frame header"},
		}),
		chromiumWebSocket("p1", nil))
	out := filepath.Join(dir, "cassettes")
	res, err := Import(Options{From: HAR, Source: src, Dir: out})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "log.entries[2]") || !strings.Contains(res.Warnings[0], "left out") {
		t.Errorf("warnings %q, want the upgrade without messages left out, by entry", res.Warnings)
	}
	c, err := cassettes.Load(res.Saved[0].Path, cassettes.LoadOptions{})
	if err != nil {
		t.Fatalf("the imported cassette does not load: %v", err)
	}
	ws := c.Interactions[1]
	if ws.Request.URL != "https://chat.example/socket?room=1" || ws.WebSocket == nil || len(ws.WebSocket.Messages) != 3 {
		t.Fatalf("interaction 1: %s %+v", ws.Request.URL, ws.WebSocket)
	}

	ca, err := proxy.LoadOrCreateCA(filepath.Join(dir, "ca"))
	if err != nil {
		t.Fatal(err)
	}
	rp, err := proxy.New(proxy.Options{Mode: proxy.ModeReplay, CA: ca, Upstream: "https://chat.example", Cassettes: []*cassettes.Cassette{c}})
	if err != nil {
		t.Fatal(err)
	}
	if err := rp.Start(); err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, strings.Replace(rp.URL(), "http://", "ws://", 1)+"/socket?room=1", nil)
	if err != nil {
		t.Fatalf("dial the replaying proxy: %v", err)
	}
	defer conn.CloseNow()
	read := func(wantType websocket.MessageType, want string) {
		typ, data, err := conn.Read(ctx)
		if err != nil || typ != wantType || string(data) != want {
			t.Fatalf("read %v %q %v, want %v %q", typ, data, err, wantType, want)
		}
	}
	read(websocket.MessageText, `{"type":"hello"}`)
	if err := conn.Write(ctx, websocket.MessageText, []byte(`{"say":"hi"}`)); err != nil {
		t.Fatal(err)
	}
	read(websocket.MessageBinary, "\x00\x01\x02")
	if m := rp.Misses(); len(m) > 0 {
		t.Errorf("replay missed: %s", m[0].Text())
	}
}
