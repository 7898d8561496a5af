package proxy

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/internal/wsframe"
)

// The WebSocket tests run a real WebSocket server and a real client
// library (coder/websocket: context-aware, no dependencies, and its Dial
// goes through a plain http.Client, so the forward proxy and the CA are
// set the way every other client test here sets them) through the proxy.

// realtimeServer is the real service: a session in the shape of the LLM
// realtime APIs. It greets with a session id, answers each input with a
// text delta and a binary chunk, and closes the session itself on "bye".
func realtimeServer(t testing.TB) http.Handler {
	var mu sync.Mutex
	n := 0
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("deny") != "" {
			http.Error(w, "no such model", http.StatusForbidden)
			return
		}
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{"realtime.v1"},
			CompressionMode: websocket.CompressionContextTakeover})
		if err != nil {
			t.Errorf("server: %v", err)
			return
		}
		defer c.CloseNow()
		mu.Lock()
		n++
		id := n
		mu.Unlock()
		ctx := r.Context()
		_ = c.Write(ctx, websocket.MessageText, []byte(`{"type":"session.created","id":"sess_`+strings.Repeat("x", id)+`"}`))
		for {
			typ, data, err := c.Read(ctx)
			if err != nil {
				return
			}
			var in struct{ Type, Text string }
			if typ != websocket.MessageText || json.Unmarshal(data, &in) != nil {
				_ = c.Close(websocket.StatusUnsupportedData, "text JSON only")
				return
			}
			if in.Type == "bye" {
				_ = c.Close(websocket.StatusNormalClosure, "bye")
				return
			}
			out, _ := json.Marshal(map[string]string{"type": "delta", "text": strings.ToUpper(in.Text)})
			_ = c.Write(ctx, websocket.MessageText, out)
			_ = c.Write(ctx, websocket.MessageBinary, append([]byte{0xFF, 0x00}, in.Text...))
		}
	})
}

type wsMsg struct {
	typ  websocket.MessageType
	data string
}

// dialForward dials a wss URL through p as the client's HTTPS proxy, offering
// compression (which the proxy must keep out of the session).
func dialForward(t testing.TB, p *Proxy, rawURL string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	pu, _ := url.Parse(p.URL())
	tr := &http.Transport{Proxy: http.ProxyURL(pu), TLSClientConfig: &tls.Config{RootCAs: testCA(t).CertPool()}}
	t.Cleanup(tr.CloseIdleConnections)
	return dial(t, rawURL, &http.Client{Transport: tr})
}

func dial(t testing.TB, rawURL string, client *http.Client) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return websocket.Dial(ctx, rawURL, &websocket.DialOptions{HTTPClient: client, Subprotocols: []string{"realtime.v1"},
		HTTPHeader:      http.Header{"Authorization": {"Bearer live-token-0123456789"}},
		CompressionMode: websocket.CompressionContextTakeover})
}

// converse is the client's side of a session: it reads the greeting, sends
// the inputs, reads two answers to each, and says bye (the server closes)
// or closes itself.
func converse(t testing.TB, c *websocket.Conn, inputs []string, bye bool) []wsMsg {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var got []wsMsg
	read := func() {
		typ, data, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		got = append(got, wsMsg{typ, string(data)})
	}
	read()
	for _, in := range inputs {
		if err := c.Write(ctx, websocket.MessageText, []byte(`{"type":"input","text":"`+in+`"}`)); err != nil {
			t.Fatal(err)
		}
		read()
		read()
	}
	if bye {
		_ = c.Write(ctx, websocket.MessageText, []byte(`{"type":"bye"}`))
		if _, _, err := c.Read(ctx); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
			t.Fatalf("after bye: %v, want the server's close", err)
		}
	} else if err := c.Close(websocket.StatusNormalClosure, ""); err != nil {
		t.Fatalf("close: %v", err)
	}
	return got
}

// recordedSession checks what a recording proxy stored of one session.
func recordedSession(t *testing.T, p *Proxy, closeFrom string) cassettes.Interaction {
	t.Helper()
	its := flushed(t, p)
	if len(its) != 1 || its[0].WebSocket == nil {
		t.Fatalf("recorded %d interactions, want 1 WebSocket session: %+v", len(its), its)
	}
	it := its[0]
	if it.Response.Code != 101 || it.Request.Headers.Get("Sec-WebSocket-Extensions") != "" || it.Response.Headers.Get("Sec-WebSocket-Protocol") != "realtime.v1" {
		t.Errorf("upgrade recorded as %d, request extensions %q, protocol %q", it.Response.Code, it.Request.Headers.Get("Sec-WebSocket-Extensions"), it.Response.Headers.Get("Sec-WebSocket-Protocol"))
	}
	ws := it.WebSocket
	want := []string{"server text", "client text", "server text", "server binary", "client text", "server text", "server binary"}
	if len(ws.Messages) < len(want) {
		t.Fatalf("recorded %d messages, want at least %d: %+v", len(ws.Messages), len(want), ws.Messages)
	}
	for i, w := range want {
		m := ws.Messages[i]
		typ := "text"
		if m.Binary() {
			typ = "binary"
		}
		if m.From+" "+typ != w || (i > 0 && m.At < ws.Messages[i-1].At) {
			t.Errorf("messages[%d] = %s %s at %v, want %s", i, m.From, typ, time.Duration(m.At), w)
		}
	}
	if ws.Messages[3].Data != "\xff\x00hello" {
		t.Errorf("binary message recorded as %q", ws.Messages[3].Data)
	}
	if ws.Close == nil || ws.Close.From != closeFrom || ws.Close.Code != 1000 {
		t.Errorf("close recorded as %+v, want from %s, 1000", ws.Close, closeFrom)
	}
	if s, _ := cassettes.Marshal(&cassettes.Cassette{Interactions: []cassettes.Interaction{it}}); strings.Contains(string(s), "live-token-0123456789") || strings.Contains(string(s), "declared-secret-42") {
		t.Errorf("a credential is in the recorded session:\n%s", s)
	}
	return it
}

// TestWebSocketForwardRecordReplay: a wss client through the forward
// proxy's MITM is recorded message by message, both directions, text and
// binary, with the server's close; then, the server gone, the replaying
// proxy stands in for it and the same client gets the same session.
func TestWebSocketForwardRecordReplay(t *testing.T) {
	srv := newUpstream(t, realtimeServer(t), false)
	wsURL := "wss" + strings.TrimPrefix(srv.URL, "https") + "/v1/realtime?model=m1"
	rec := startProxy(t, Options{Mode: ModeRecord, CA: testCA(t), Transport: trusting(srv), Redact: redact.New(nil, map[string]string{"API_KEY": "declared-secret-42"})})
	c, resp, err := dialForward(t, rec, wsURL)
	if err != nil {
		t.Fatalf("dial through the recording proxy: %v", err)
	}
	if resp.Header.Get("Sec-WebSocket-Extensions") != "" {
		t.Errorf("the session was compressed: %q", resp.Header.Get("Sec-WebSocket-Extensions"))
	}
	live := converse(t, c, []string{"hello", "declared-secret-42"}, true)
	it := recordedSession(t, rec, cassettes.FromServer)
	srv.Close() // replay must not need it

	cas := &cassettes.Cassette{Adapter: "realtime", Scenario: "hello", Kind: cfgschema.KindHTTP, Interactions: []cassettes.Interaction{it}}
	rp := startProxy(t, Options{Mode: ModeReplay, CA: testCA(t), Cassettes: []*cassettes.Cassette{cas}})
	c, _, err = dialForward(t, rp, wsURL)
	if err != nil {
		t.Fatalf("dial through the replaying proxy: %v", err)
	}
	replayed := converse(t, c, []string{"hello", "[REDACTED]"}, true)
	if len(replayed) != len(live) || replayed[0] != live[0] || replayed[1] != live[1] || replayed[2] != live[2] {
		t.Errorf("replayed %v, recorded %v", replayed, live)
	}
	if n := len(rp.Misses()); n != 0 {
		t.Errorf("%d misses: %v", n, rp.Misses())
	}
}

// TestWebSocketReverseRecordReplay: a ws client of the reverse proxy in
// front of a plain-HTTP server; the client closes. Replay through the
// reverse door (the proxy writes the 101 itself) serves the same session,
// and a message the recording does not hold closes it with 4599 and a miss
// that names the message and its cassette line.
func TestWebSocketReverseRecordReplay(t *testing.T) {
	srv := httptest.NewServer(realtimeServer(t))
	defer srv.Close()
	rec := startProxy(t, Options{Mode: ModeRecord, Upstream: srv.URL})
	wsURL := "ws" + strings.TrimPrefix(rec.URL(), "http") + "/v1/realtime"
	c, _, err := dial(t, wsURL, http.DefaultClient)
	if err != nil {
		t.Fatal(err)
	}
	live := converse(t, c, []string{"hello", "again"}, false)
	it := recordedSession(t, rec, cassettes.FromClient)
	srv.Close()

	replayable := true
	cas := &cassettes.Cassette{Adapter: "realtime", Scenario: "hello", Kind: cfgschema.KindHTTP, Interactions: []cassettes.Interaction{it},
		Path: "cassettes/realtime/hello.yaml", Replayable: &replayable}
	var log syncBuffer
	rerecord := func(c *cassettes.Cassette) string {
		return "cassette record --adapter " + c.Adapter + " --scenario " + c.Scenario + " --upstream-ca ca.pem"
	}
	rp := startProxy(t, Options{Mode: ModeReplay, Upstream: srv.URL, Cassettes: []*cassettes.Cassette{cas}, Log: &log, Rerecord: rerecord})
	wsURL = "ws" + strings.TrimPrefix(rp.URL(), "http") + "/v1/realtime"
	c, _, err = dial(t, wsURL, http.DefaultClient)
	if err != nil {
		t.Fatal(err)
	}
	if replayed := converse(t, c, []string{"hello", "again"}, false); len(replayed) != len(live) || replayed[4] != live[4] {
		t.Errorf("replayed %v, recorded %v", replayed, live)
	}

	c, _, err = dial(t, wsURL, http.DefaultClient)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, _, _ = c.Read(ctx)
	_ = c.Write(ctx, websocket.MessageText, []byte(`{"type":"input","text":"goodbye"}`))
	if _, _, err := c.Read(ctx); websocket.CloseStatus(err) != MissCloseCode {
		t.Fatalf("a message the recording does not hold: %v, want close %d", err, MissCloseCode)
	}
	misses := rp.Misses()
	if len(misses) != 1 || !strings.Contains(misses[0].Text(), "interactions[0].websocket.messages[1]") || !strings.Contains(log.String(), `+{"type":"input","text":"goodbye"}`) {
		t.Fatalf("misses %v; log:\n%s", misses, log.String())
	}
	if misses[0].NextStep != rerecord(cas) { // the door's command, as an HTTP miss gives it
		t.Errorf("next step %q, want %q", misses[0].NextStep, rerecord(cas))
	}
}

// TestWebSocketReplayPaces: with SimulateLatency each server message is
// due at its recorded time after the client message before it (or the
// start), on the proxy's clock.
func TestWebSocketReplayPaces(t *testing.T) {
	ms := func(n int) cassettes.Duration { return cassettes.Duration(time.Duration(n) * time.Millisecond) }
	cas := &cassettes.Cassette{Adapter: "realtime", Scenario: "paced", Kind: cfgschema.KindHTTP, Interactions: []cassettes.Interaction{{
		Request:  cassettes.Request{Method: "GET", URL: "http://rt.example/v1"},
		Response: cassettes.Response{Code: 101, Status: "101 Switching Protocols", Headers: http.Header{"Upgrade": {"websocket"}, "Connection": {"Upgrade"}}},
		WebSocket: &cassettes.WebSocket{Messages: []cassettes.WebSocketMessage{
			{From: cassettes.FromServer, At: ms(40), Data: "a"},
			{From: cassettes.FromClient, At: ms(50), Data: "q"},
			{From: cassettes.FromServer, At: ms(350), Data: "b"},
			{From: cassettes.FromServer, At: ms(360), Data: "c"},
		}, Close: &cassettes.WebSocketClose{From: cassettes.FromServer, Code: 1000}},
	}}}
	p, err := New(Options{Mode: ModeReplay, Upstream: "http://rt.example", Cassettes: []*cassettes.Cassette{cas}, SimulateLatency: true})
	if err != nil {
		t.Fatal(err)
	}
	var clock wakeClock
	clock.install(p)
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, _, err := dial(t, "ws"+strings.TrimPrefix(p.URL(), "http")+"/v1", http.DefaultClient)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var got []string
	for range 3 {
		_, data, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(data))
		if len(got) == 1 {
			_ = c.Write(ctx, websocket.MessageText, []byte("q"))
		}
	}
	if _, _, err := c.Read(ctx); websocket.CloseStatus(err) != websocket.StatusNormalClosure || strings.Join(got, "") != "abc" {
		t.Fatalf("got %q, then %v", got, err)
	}
	// a at 40 ms; the client's q comes at once (the clock moves only by
	// sleeping), so b and c are due 300 and 310 ms after it.
	want := []time.Duration{40 * time.Millisecond, 340 * time.Millisecond, 350 * time.Millisecond}
	if got := clock.wakes(); !slices.Equal(got, want) {
		t.Fatalf("woke at %v, want %v", got, want)
	}
}

// TestWebSocketUpgradeFailures: an upgrade the server refuses, and a
// session the server cuts without a close frame, are upstream failures
// (exit 3 when the recorder sees them), never a recorded 101.
func TestWebSocketUpgradeFailures(t *testing.T) {
	srv := httptest.NewServer(realtimeServer(t))
	defer srv.Close()
	p := startProxy(t, Options{Mode: ModeRecord, Upstream: srv.URL})
	base := "ws" + strings.TrimPrefix(p.URL(), "http")
	if _, resp, err := dial(t, base+"/v1/realtime?deny=1", http.DefaultClient); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a refused upgrade: %v, %v; want the server's 403", err, resp)
	}
	fails := p.Failures()
	if len(fails) != 1 || fails[0].Reason != outcome.ERealUpgrade || !strings.Contains(fails[0].Class, "403 Forbidden") {
		t.Fatalf("failures %+v, want one E_REAL_UPGRADE naming the 403", fails)
	}

	cut := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		_ = c.Write(r.Context(), websocket.MessageText, []byte("one"))
		_ = c.CloseNow() // no close frame
	}))
	defer cut.Close()
	p2 := startProxy(t, Options{Mode: ModeRecord, Upstream: cut.URL})
	c, _, err := dial(t, "ws"+strings.TrimPrefix(p2.URL(), "http")+"/", http.DefaultClient)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, _, _ = c.Read(ctx)
	if _, _, err := c.Read(ctx); err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the client should see the session end: %v", err)
	}
	_ = flushed(t, p2)
	if fails := p2.Failures(); len(fails) != 1 || fails[0].Reason != outcome.ERealReset {
		t.Fatalf("failures %+v, want one E_REAL_RESET", fails)
	}
}

// TestWebSocketMessageOverTheLimitIsNoReset: a server that sends a
// message larger than the proxy records and then closes cleanly was
// reported as E_REAL_RESET (#35): the close frame after the message was
// never read. It is no upstream failure: the session is left out, and the
// log says it holds a message over the limit.
func TestWebSocketMessageOverTheLimitIsNoReset(t *testing.T) {
	// The server writes its frames by hand: the message, its close frame,
	// and then it closes the connection without waiting for the client's
	// close (as many servers do).
	up := newUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		fmt.Fprintf(rw, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: %s\r\nSec-WebSocket-Protocol: realtime.v1\r\n\r\n",
			wsframe.AcceptKey(r.Header.Get("Sec-WebSocket-Key")))
		rw.Write([]byte{0x81, 126, 0x08, 0x00}) // a text frame of 2048 bytes
		rw.WriteString(strings.Repeat("x", 2048))
		rw.Write([]byte{0x88, 0x02, 0x03, 0xe8}) // close, 1000
		rw.Flush()
	}), false)
	var log strings.Builder
	var mu sync.Mutex
	rec := startProxy(t, Options{Mode: ModeRecord, CA: testCA(t), Transport: trusting(up), MaxWebSocketMessage: 1024,
		Log: writerFunc(func(b []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return log.Write(b) })})
	c, _, err := dialForward(t, rec, strings.Replace(up.URL, "https://", "wss://", 1)+"/v1/realtime")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, data, err := c.Read(ctx); err != nil || len(data) != 2048 {
		t.Fatalf("read %d bytes: %v", len(data), err)
	}
	if _, _, err := c.Read(ctx); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Fatalf("the server's close did not reach the client: %v", err)
	}
	c.CloseNow()
	flushed(t, rec)
	if f := rec.Failures(); len(f) != 0 {
		t.Errorf("failures %v, want none: the server closed cleanly", f)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(log.String(), "has a message larger than 1024 bytes") {
		t.Errorf("log %q, want the message over the limit named", log.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// TestWebSocketReplayAnswersPings: a client that pings while the replayed
// session awaits its message gets its pong (read by the play loop itself
// when unpaced, by a reader of its own when paced), and its message is
// then answered as recorded.
func TestWebSocketReplayAnswersPings(t *testing.T) {
	for _, paced := range []bool{false, true} {
		t.Run(fmt.Sprintf("paced=%v", paced), func(t *testing.T) {
			cas := &cassettes.Cassette{Adapter: "realtime", Scenario: "ping", Kind: cfgschema.KindHTTP, Interactions: []cassettes.Interaction{{
				Request:  cassettes.Request{Method: "GET", URL: "http://rt.example/v1"},
				Response: cassettes.Response{Code: 101, Status: "101 Switching Protocols", Headers: http.Header{"Upgrade": {"websocket"}, "Connection": {"Upgrade"}}},
				WebSocket: &cassettes.WebSocket{Messages: []cassettes.WebSocketMessage{
					{From: cassettes.FromClient, Data: "q"},
					{From: cassettes.FromServer, Data: "a"},
				}, Close: &cassettes.WebSocketClose{From: cassettes.FromClient, Code: 1000}},
			}}}
			p := startProxy(t, Options{Mode: ModeReplay, Upstream: "http://rt.example", Cassettes: []*cassettes.Cassette{cas}, SimulateLatency: paced})
			c, _, err := dial(t, "ws"+strings.TrimPrefix(p.URL(), "http")+"/v1", http.DefaultClient)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			read := make(chan string, 1)
			go func() { // the pong is read by a Read in progress
				_, data, err := c.Read(ctx)
				if err != nil {
					read <- err.Error()
				}
				read <- string(data)
			}()
			if err := c.Ping(ctx); err != nil {
				t.Fatalf("no pong: %v", err)
			}
			if err := c.Write(ctx, websocket.MessageText, []byte("q")); err != nil {
				t.Fatal(err)
			}
			if got := <-read; got != "a" {
				t.Fatalf("the answer to q: %q, want a", got)
			}
			if err := c.Close(websocket.StatusNormalClosure, ""); err != nil {
				t.Fatalf("the recorded close: %v", err)
			}
			if n := len(p.Misses()); n != 0 {
				t.Errorf("%d misses: %v", n, p.Misses())
			}
		})
	}
}
