package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/websocket"

	"github.com/cassette-dev/cassette/internal/har"
	"github.com/cassette-dev/cassette/internal/procgroup"
)

// TestChromiumHARImportsAndReplays: real headless Chromium (Debian's
// chromium) loads a page from a real server; its network
// activity, read over the DevTools protocol, is written as a HAR the way
// the dev tools' "Save all as HAR" does; `cassette import har` turns it into
// a cassette (the credential the page sent is redacted); the server is
// closed; a second Chromium loads the same page through `cassette proxy
// --mode replay` and renders the same result.
func TestChromiumHARImportsAndReplays(t *testing.T) {
	chrome, err := exec.LookPath("chromium")
	if err != nil {
		missingTool(t, "chromium not installed (apt-get install -y chromium)")
	}
	const token = "shop-live-credential-7f3a9c"
	logo := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, `<!doctype html><html><head><title>Shop</title><script src="/app.js"></script></head>`+
				`<body><img src="/logo.png"><div id="out">loading</div></body></html>`)
		case "/app.js":
			w.Header().Set("Content-Type", "text/javascript")
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			io.WriteString(zw, `fetch('/api/cart?id=7&token=`+token+`', {method: 'POST', headers: {'Content-Type': 'application/json', 'Authorization': 'Bearer `+token+`'}, body: JSON.stringify({item: 1})})
  .then(r => r.json()).then(j => { document.getElementById('out').textContent = 'total ' + j.total; });`)
			zw.Close()
		case "/api/cart":
			body, _ := io.ReadAll(r.Body)
			if r.Header.Get("Authorization") != "Bearer "+token || string(body) != `{"item":1}` {
				http.Error(w, "bad request", 400)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"total": 42}`)
		case "/logo.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write(logo)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	dir := t.TempDir()
	b := startChromium(t, chrome)
	text, a := b.capture(t, srv.URL+"/", "total")
	if text != "total 42" {
		t.Fatalf("the page rendered %q", text)
	}
	srv.Close() // from here on, only the cassette knows the answers

	bin, caDir, _ := proxyTestSetup(t)
	saved := importHAR(t, bin, dir, a, "shop", `{base_url: "https://shop.example", credentials: [SHOP_TOKEN]}`, "SHOP_TOKEN="+token)
	if strings.Contains(string(saved), token) {
		t.Fatalf("the imported cassette holds the credential:\n%s", saved)
	}
	for _, want := range []string{"/api/cart?", "total", "/logo.png", "[REDACTED]"} {
		if !strings.Contains(string(saved), want) {
			t.Errorf("the cassette lacks %q", want)
		}
	}

	// Replay: Chromium through the replay proxy (loopback included).
	proxyURL := startProxyURL(t, bin, dir, caDir, "--cassette", "cassettes/shop", "--sequence", "replayable")
	b2 := startChromium(t, chrome, "--proxy-server="+proxyURL, "--proxy-bypass-list=<-loopback>")
	text, _ = b2.capture(t, srv.URL+"/", "total")
	if text != "total 42" {
		t.Errorf("replayed through cassette, the page rendered %q", text)
	}
}

// importHAR writes archive a to dir/ADAPTER.har and a cassette.yaml that
// declares adapter with the real side real, runs `cassette import har`
// in dir (env added to its environment), and returns the one cassette it
// wrote.
func importHAR(t *testing.T, bin, dir string, a *har.Archive, adapter, real string, env ...string) []byte {
	t.Helper()
	harFile := filepath.Join(dir, adapter+".har")
	data, _ := json.MarshalIndent(a, "", "  ")
	os.WriteFile(harFile, data, 0o644)
	os.WriteFile(filepath.Join(dir, "cassette.yaml"), []byte("version: 1\nadapters:\n  "+adapter+":\n    kind: http\n    real: "+real+
		"\n    fake: {base_url: \"http://127.0.0.1:1\"}\n"), 0o644)
	imp := exec.Command(bin, "import", "har", harFile, "--adapter", adapter)
	imp.Dir = dir
	imp.Env = append(os.Environ(), env...)
	if out, err := imp.CombinedOutput(); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "cassettes", adapter, "*.yaml"))
	if len(files) != 1 {
		t.Fatalf("imported %v", files)
	}
	saved, _ := os.ReadFile(files[0])
	return saved
}

// browser is a headless Chromium driven over the DevTools protocol.
type browser struct {
	ws     *websocket.Conn
	mu     sync.Mutex
	id     int
	wait   map[int]chan json.RawMessage
	events chan cdpEvent
}

type cdpEvent struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

var devtoolsRe = regexp.MustCompile(`DevTools listening on (ws://\S+)`)

func startChromium(t *testing.T, chrome string, extra ...string) *browser {
	t.Helper()
	// The profile is removed by hand, not by t.TempDir: Chromium's helper
	// processes may still be writing to it when the test ends.
	profile, err := os.MkdirTemp("", "cassette-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--remote-debugging-port=0",
		"--user-data-dir=" + profile}, extra...)
	cmd := exec.Command(chrome, append(args, "about:blank")...)
	cmd.Env = append(os.Environ(), "HOME="+profile)
	cmd.SysProcAttr = procgroup.Attr() // its helpers go with it
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		procgroup.Kill(cmd.Process.Pid)
		cmd.Wait()
		os.RemoveAll(profile)
	})
	sc := bufio.NewScanner(stderr)
	var wsURL string
	for sc.Scan() {
		if m := devtoolsRe.FindStringSubmatch(sc.Text()); m != nil {
			wsURL = m[1]
			break
		}
	}
	if wsURL == "" {
		t.Fatal("Chromium did not print its DevTools address")
	}
	go io.Copy(io.Discard, stderr)
	// The page target of about:blank.
	host := strings.Split(strings.TrimPrefix(wsURL, "ws://"), "/")[0]
	resp, err := http.Get("http://" + host + "/json/list")
	if err != nil {
		t.Fatal(err)
	}
	var targets []struct{ Type, WebSocketDebuggerURL string }
	json.NewDecoder(resp.Body).Decode(&targets)
	resp.Body.Close()
	for _, tg := range targets {
		if tg.Type == "page" {
			wsURL = tg.WebSocketDebuggerURL
			break
		}
	}
	ws, err := websocket.Dial(wsURL, "", "http://"+host)
	if err != nil {
		t.Fatal(err)
	}
	ws.MaxPayloadBytes = 64 << 20
	t.Cleanup(func() { ws.Close() })
	b := &browser{ws: ws, wait: map[int]chan json.RawMessage{}, events: make(chan cdpEvent, 4096)}
	go b.read()
	return b
}

func (b *browser) read() {
	for {
		var msg struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
			cdpEvent
		}
		if err := websocket.JSON.Receive(b.ws, &msg); err != nil {
			close(b.events)
			return
		}
		if msg.ID == 0 {
			b.events <- msg.cdpEvent
			continue
		}
		b.mu.Lock()
		ch := b.wait[msg.ID]
		b.mu.Unlock()
		if msg.Error != nil {
			ch <- msg.Error
		} else {
			ch <- msg.Result
		}
	}
}

func (b *browser) call(t *testing.T, method string, params any) json.RawMessage {
	t.Helper()
	b.mu.Lock()
	b.id++
	id := b.id
	ch := make(chan json.RawMessage, 1)
	b.wait[id] = ch
	b.mu.Unlock()
	if err := websocket.JSON.Send(b.ws, map[string]any{"id": id, "method": method, "params": params}); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-ch:
		return r
	case <-time.After(5 * time.Minute): // a hang guard, not a wait: Chromium normally answers at once, but a loaded CI machine has made one start take 36 s
		t.Fatalf("Chromium did not answer %s", method)
		return nil
	}
}

// capture loads url, waits until #out's text starts with want (the page's
// own fetch finished), and returns that text and the page's network
// activity as a HAR 1.2 archive, as the dev tools write it.
func (b *browser) capture(t *testing.T, url, want string) (string, *har.Archive) {
	t.Helper()
	b.call(t, "Network.enable", map[string]any{})
	b.call(t, "Page.enable", map[string]any{})
	b.call(t, "Page.navigate", map[string]any{"url": url})
	res := b.call(t, "Runtime.evaluate", map[string]any{"awaitPromise": true, "returnByValue": true, "expression": fmt.Sprintf(
		`new Promise(r => { const f = () => { const o = document.getElementById('out'); if (o && o.textContent.startsWith(%q)) r(o.textContent); else setTimeout(f, 5); }; f(); })`, want)})
	var ev struct {
		Result struct{ Value string } `json:"result"`
	}
	json.Unmarshal(res, &ev)
	title := b.call(t, "Runtime.evaluate", map[string]any{"expression": "document.title", "returnByValue": true})
	var tv struct {
		Result struct{ Value string } `json:"result"`
	}
	json.Unmarshal(title, &tv)

	type req struct {
		entry    har.Entry
		done     bool
		response bool
		ws       *wsClock // a WebSocket's: DevTools' pseudo wall time of its frames
	}
	reqs := map[string]*req{}
	var order []string
	drain := func() bool { // reads the events seen so far; true when every request has finished
		for {
			select {
			case e, ok := <-b.events:
				if !ok {
					return true
				}
				var p struct {
					RequestID    string  `json:"requestId"`
					WallTime     float64 `json:"wallTime"`
					Timestamp    float64 `json:"timestamp"`
					URL          string  `json:"url"`
					ErrorMessage string  `json:"errorMessage"`
					Request      struct {
						URL, Method string
						Headers     map[string]string
						PostData    string
					}
					Response struct {
						Status         int
						StatusText     string
						Headers        map[string]string
						RequestHeaders map[string]string
						HeadersText    string
						MimeType       string
						Protocol       string
						Opcode         int
						PayloadData    string
					}
				}
				json.Unmarshal(e.Params, &p)
				r := reqs[p.RequestID]
				switch e.Method {
				case "Network.requestWillBeSent":
					if strings.HasPrefix(p.Request.URL, "data:") {
						continue
					}
					r = &req{}
					reqs[p.RequestID] = r
					order = append(order, p.RequestID)
					r.entry = har.Entry{Pageref: "page_1", StartedDateTime: time.UnixMilli(int64(p.WallTime * 1000)).UTC().Format(time.RFC3339Nano),
						Request: har.Request{Method: p.Request.Method, URL: p.Request.URL, HTTPVersion: "http/1.1", Cookies: []har.Cookie{},
							Headers: nvs(p.Request.Headers), QueryString: []har.NV{}, HeadersSize: -1, BodySize: len(p.Request.PostData)},
						Timings: har.Timings{Blocked: -1, DNS: -1, Connect: -1, SSL: -1}}
					if p.Request.PostData != "" {
						r.entry.Request.PostData = &har.PostData{MimeType: p.Request.Headers["Content-Type"], Text: p.Request.PostData, Params: []har.Param{}}
					}
				case "Network.responseReceived":
					if r != nil {
						r.response = true
						r.entry.Request.HTTPVersion = p.Response.Protocol
						r.entry.Response = har.Response{Status: p.Response.Status, StatusText: p.Response.StatusText, HTTPVersion: p.Response.Protocol,
							Cookies: []har.Cookie{}, Headers: nvs(p.Response.Headers), Content: har.Content{MimeType: p.Response.MimeType}, HeadersSize: -1, BodySize: -1}
					}
				case "Network.loadingFinished", "Network.loadingFailed":
					if r != nil {
						r.done = true
					}
				// A WebSocket, as DevTools' NetworkManager and HAR writer
				// (front_end/models/har/Log.ts) build its entry: the URL from
				// webSocketCreated, the handshake's request and response, and
				// every frame as {type, time, opcode, data} in
				// _webSocketMessages, time being the frame's pseudo wall time
				// (the handshake's wallTime plus the monotonic time since it).
				case "Network.webSocketCreated":
					r = &req{ws: &wsClock{}}
					reqs[p.RequestID] = r
					order = append(order, p.RequestID)
					r.entry = har.Entry{Pageref: "page_1", Request: har.Request{Method: "GET", URL: p.URL, HTTPVersion: "HTTP/1.1",
						Cookies: []har.Cookie{}, Headers: []har.NV{}, QueryString: []har.NV{}, HeadersSize: -1},
						Timings: har.Timings{Blocked: -1, DNS: -1, Connect: -1, SSL: -1}, WebSocketMessages: []har.WebSocketMessage{}}
				case "Network.webSocketWillSendHandshakeRequest":
					if r != nil && r.ws != nil {
						r.ws.issue, r.ws.wall = p.Timestamp, p.WallTime
						r.entry.StartedDateTime = time.UnixMilli(int64(p.WallTime * 1000)).UTC().Format(time.RFC3339Nano)
						r.entry.Request.Headers = nvs(p.Request.Headers)
					}
				case "Network.webSocketHandshakeResponseReceived":
					if r != nil && r.ws != nil {
						r.response = true
						version := "HTTP/1.1"
						if v, _, ok := strings.Cut(p.Response.HeadersText, " "); ok && strings.HasPrefix(v, "HTTP/") {
							version = v
						}
						if p.Response.RequestHeaders != nil {
							r.entry.Request.Headers = nvs(p.Response.RequestHeaders)
						}
						r.entry.Request.HTTPVersion = version
						r.entry.Response = har.Response{Status: p.Response.Status, StatusText: p.Response.StatusText, HTTPVersion: version,
							Cookies: []har.Cookie{}, Headers: nvs(p.Response.Headers), Content: har.Content{MimeType: "x-unknown"}, HeadersSize: -1, BodySize: -1}
					}
				case "Network.webSocketFrameSent", "Network.webSocketFrameReceived", "Network.webSocketFrameError":
					if r != nil && r.ws != nil {
						m := har.WebSocketMessage{Type: "receive", Time: r.ws.at(p.Timestamp), Opcode: p.Response.Opcode, Data: p.Response.PayloadData}
						switch e.Method {
						case "Network.webSocketFrameSent":
							m.Type = "send"
						case "Network.webSocketFrameError":
							m = har.WebSocketMessage{Type: "error", Time: m.Time, Opcode: -1, Data: p.ErrorMessage}
						}
						r.entry.WebSocketMessages = append(r.entry.WebSocketMessages, m)
					}
				case "Network.webSocketClosed":
					if r != nil {
						r.done = true
					}
				}
			default:
				for _, id := range order {
					if !reqs[id].done {
						return false
					}
				}
				return true
			}
		}
	}
	for !drain() {
		// Ask for something so that pending events arrive before the reply.
		b.call(t, "Runtime.evaluate", map[string]any{"expression": "1"})
	}
	a := &har.Archive{Log: har.Log{Version: "1.2", Creator: har.Creator{Name: "WebInspector", Version: "chromium"},
		Pages: []har.Page{{StartedDateTime: time.Now().UTC().Format(time.RFC3339Nano), ID: "page_1", Title: tv.Result.Value,
			PageTimings: har.PageTimings{OnContentLoad: -1, OnLoad: -1}}}, Entries: []har.Entry{}}}
	for _, id := range order {
		r := reqs[id]
		if !r.response {
			continue
		}
		if r.ws != nil { // DevTools keeps no body for a WebSocket: its frames are the content
			a.Log.Entries = append(a.Log.Entries, r.entry)
			continue
		}
		body := b.call(t, "Network.getResponseBody", map[string]any{"requestId": id})
		var rb struct {
			Body          string
			Base64Encoded bool
		}
		json.Unmarshal(body, &rb)
		r.entry.Response.Content.Text = rb.Body
		r.entry.Response.Content.Size = len(rb.Body)
		if rb.Base64Encoded {
			r.entry.Response.Content.Encoding = "base64"
		}
		a.Log.Entries = append(a.Log.Entries, r.entry)
	}
	return ev.Result.Value, a
}

// wsClock turns a WebSocket frame's monotonic timestamp into DevTools'
// pseudo wall time (NetworkRequest.pseudoWallTime): the wall time of the
// handshake plus the monotonic time since it, in seconds.
type wsClock struct{ issue, wall float64 }

func (c *wsClock) at(monotonic float64) float64 { return c.wall - c.issue + monotonic }

func nvs(h map[string]string) []har.NV {
	out := []har.NV{}
	for k, v := range h {
		for _, line := range strings.Split(v, "\n") { // DevTools joins repeated headers with newlines
			out = append(out, har.NV{Name: k, Value: line})
		}
	}
	return out
}

// startProxyURL runs `cassette proxy --mode replay ARGS` in dir and returns
// its URL.
func startProxyURL(t *testing.T, bin, dir, caDir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"proxy", "--mode", "replay", "--listen", "127.0.0.1:0"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CASSETTE_CA_DIR="+caDir)
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if m := listenRe.FindStringSubmatch(sc.Text()); m != nil {
			go io.Copy(io.Discard, stdout)
			return m[1]
		}
	}
	cmd.Wait()
	t.Fatalf("the proxy did not start:\n%s", stderr.String())
	return ""
}

func missingTool(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("%s: CI must install it (.ci/run)", why)
	}
	t.Skip(why)
}
