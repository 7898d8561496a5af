package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/cassette-dev/cassette/internal/har"
)

// chatPage opens a WebSocket to its own server, sends two text messages
// and a binary one, and once the three answers are in, closes it and shows
// what it got.
const chatPage = `<!doctype html><html><head><title>Chat</title></head><body><div id="out">loading</div><script>
const got = [];
const ws = new WebSocket('ws://' + location.host + '/chat?room=7');
ws.binaryType = 'arraybuffer';
ws.onopen = () => { ws.send('hello'); ws.send(JSON.stringify({n: 2})); ws.send(new Uint8Array([1, 2, 3])); };
ws.onmessage = e => {
  got.push(typeof e.data === 'string' ? e.data : 'bytes ' + Array.from(new Uint8Array(e.data)).join(','));
  if (got.length === 3) ws.close(1000, 'done');
};
ws.onclose = e => { document.getElementById('out').textContent = 'ws ' + got.join(' | ') + ' closed ' + e.code; };
</script></body></html>`

// chatServer serves chatPage and its WebSocket, which answers a text
// message in upper case and a binary one reversed.
func chatServer(t *testing.T) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, chatPage)
		case "/chat":
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
				if typ == websocket.MessageText {
					data = []byte(strings.ToUpper(string(data)))
				} else {
					slices.Reverse(data)
				}
				if c.Write(r.Context(), typ, data) != nil {
					return
				}
			}
		default:
			http.NotFound(w, r)
		}
	}))
}

// TestChromiumWebSocketHARImportsAndReplays: real headless Chromium loads
// a page that talks to a real WebSocket server; its network activity, read
// over the DevTools protocol (webSocketCreated, the handshake, every frame
// sent and received, webSocketClosed), is written as a HAR the way the dev
// tools' HAR writer does, the frames in _webSocketMessages; `cassette
// import har` turns it into a cassette with the session; the server is
// closed; a second Chromium loads the page through `cassette proxy --mode
// replay` and shows the same WebSocket answers (#35).
func TestChromiumWebSocketHARImportsAndReplays(t *testing.T) {
	chrome, err := exec.LookPath("chromium")
	if err != nil {
		missingTool(t, "chromium not installed (apt-get install -y chromium)")
	}
	const want = `ws HELLO | {"N":2} | bytes 3,2,1 closed 1000`
	srv := chatServer(t)
	defer srv.Close()

	dir := t.TempDir()
	text, a := startChromium(t, chrome).capture(t, srv.URL+"/", "ws ")
	if text != want {
		t.Fatalf("the page rendered %q, want %q", text, want)
	}
	var upgrade *har.Entry
	for i, e := range a.Log.Entries {
		if strings.HasPrefix(e.Request.URL, "ws://") {
			upgrade = &a.Log.Entries[i]
		}
	}
	if upgrade == nil || upgrade.Response.Status != http.StatusSwitchingProtocols {
		t.Fatalf("Chromium reported no WebSocket handshake: %+v", a.Log.Entries)
	}
	var got []string
	for _, m := range upgrade.WebSocketMessages {
		got = append(got, m.Type+" "+string(rune('0'+m.Opcode))+" "+m.Data)
	}
	// Chromium gives a binary frame's payload in base64 (AQID is 1,2,3).
	wantFrames := []string{"send 1 hello", `send 1 {"n":2}`, "send 2 AQID", "receive 1 HELLO", `receive 1 {"N":2}`, "receive 2 AwIB"}
	slices.Sort(wantFrames)
	if sorted := slices.Sorted(slices.Values(got)); !slices.Equal(sorted, wantFrames) {
		t.Fatalf("_webSocketMessages %q, want (in any order) %q", got, wantFrames)
	}
	srv.Close() // from here on, only the cassette knows the answers

	bin, caDir, _ := proxyTestSetup(t)
	saved := importHAR(t, bin, dir, a, "chat", `{base_url: "https://chat.example"}`)
	for _, want := range []string{"/chat?room=7", "websocket:", "HELLO"} {
		if !strings.Contains(string(saved), want) {
			t.Errorf("the cassette lacks %q:\n%s", want, saved)
		}
	}

	proxyURL := startProxyURL(t, bin, dir, caDir, "--cassette", "cassettes/chat")
	text, _ = startChromium(t, chrome, "--proxy-server="+proxyURL, "--proxy-bypass-list=<-loopback>").capture(t, srv.URL+"/", "ws ")
	if text != want {
		t.Errorf("replayed through cassette, the page rendered %q, want %q", text, want)
	}
}
