package proxy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
)

const llmStream = "event: message_start\ndata: {\"type\":\"message_start\"}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"text\":\"Hello\"}}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"text\":\" world\"}}\n\n" +
	"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"

// TestStreamRecordsEventTimes records an SSE stream and an NDJSON stream
// through the reverse proxy with an injected clock: each event's arrival
// time is kept, one per event, and a plain body gets none.
func TestStreamRecordsEventTimes(t *testing.T) {
	next := make(chan struct{})
	up := newUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/sse":
			w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
			for _, ev := range strings.SplitAfter(llmStream, "\n\n") {
				if ev == "" {
					continue
				}
				io.WriteString(w, strings.ReplaceAll(ev, "\n", "\r\n")) // CRLF framing counts too
				w.(http.Flusher).Flush()
				<-next
			}
		case "/ndjson":
			w.Header().Set("Content-Type", "application/x-ndjson")
			io.WriteString(w, "{\"a\":1}\n{\"a\":2}\n")
		default:
			io.WriteString(w, "plain\n\nbody\n\n")
		}
	}), false)
	p, err := New(Options{Mode: ModeRecord, Upstream: up.URL, Transport: trusting(up)})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var ticks time.Duration
	p.now = func() time.Time { // each reading of the clock is 10ms later
		mu.Lock()
		defer mu.Unlock()
		ticks += 10 * time.Millisecond
		return time.Unix(0, 0).Add(ticks)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	resp, err := http.Get(p.URL() + "/sse")
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	for range 4 {
		readCRLFEvent(t, br)
		next <- struct{}{}
	}
	io.Copy(io.Discard, br)
	resp.Body.Close()
	for _, path := range []string{"/ndjson", "/plain"} {
		resp, err := http.Get(p.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	its := flushed(t, p)
	if len(its) != 3 {
		t.Fatalf("%d interactions", len(its))
	}
	times := func(i int) string {
		var ds []time.Duration
		for _, d := range its[i].Response.EventTimes {
			ds = append(ds, time.Duration(d))
		}
		return fmt.Sprint(ds)
	}
	if got := times(0); got != "[20ms 30ms 40ms 50ms]" {
		t.Errorf("SSE event times %s, want one per event, after the headers (10ms)", got)
	}
	if got := len(its[1].Response.EventTimes); got != 2 {
		t.Errorf("NDJSON: %d event times, want 2", got)
	}
	if got := its[2].Response.EventTimes; got != nil {
		t.Errorf("a plain body got event times %v", got)
	}
}

func readCRLFEvent(t *testing.T, br *bufio.Reader) {
	t.Helper()
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading an event: %v", err)
		}
		if line == "\r\n" {
			return
		}
	}
}

// gatedSleep stands for the clock of replay with latency: each wait is
// noted and returns only when the test lets it, the clock (now) then
// that much later.
type gatedSleep struct {
	waits chan time.Duration
	gate  chan struct{}
	mu    sync.Mutex
	at    time.Time
}

func newGatedSleep() *gatedSleep {
	return &gatedSleep{waits: make(chan time.Duration, 16), gate: make(chan struct{}), at: time.Unix(1e9, 0)}
}

func (g *gatedSleep) now() time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.at
}

func (g *gatedSleep) sleep(ctx context.Context, d time.Duration) error {
	g.waits <- d
	select {
	case <-g.gate:
		g.mu.Lock()
		g.at = g.at.Add(d)
		g.mu.Unlock()
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// let lets the next wait end, after checking it is the expected one.
func (g *gatedSleep) let(t *testing.T, want time.Duration) {
	t.Helper()
	if got := <-g.waits; got != want {
		t.Fatalf("replay waited %s, want %s", got, want)
	}
	g.gate <- struct{}{}
}

// TestReplayPacesStream replays a recorded SSE stream with latency to two
// real SSE clients, Go's and curl -N: each receives the first event while
// replay is still holding back the last one (its wait has not been let go),
// and the waits are the recorded gaps.
func TestReplayPacesStream(t *testing.T) {
	c := &cassettes.Cassette{Path: "cassettes/llm/stream.yaml", Adapter: "llm", Scenario: "stream", Interactions: []cassettes.Interaction{{
		Request: cassettes.Request{Method: "POST", URL: "https://api.example.com/v1/messages", Body: `{"stream":true}`},
		Response: cassettes.Response{Code: 200, Status: "200 OK", Body: cassettes.Body(llmStream),
			Headers:  http.Header{"Content-Type": {"text/event-stream"}},
			Duration: cassettes.Duration(300 * time.Millisecond),
			EventTimes: []cassettes.Duration{cassettes.Duration(350 * time.Millisecond), cassettes.Duration(400 * time.Millisecond),
				cassettes.Duration(450 * time.Millisecond), cassettes.Duration(2 * time.Second)}}}}}
	var startForward func(t *testing.T, upstream string) (*Proxy, *gatedSleep)
	gaps := []time.Duration{50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond, 1550 * time.Millisecond}
	events := strings.SplitAfter(llmStream, "\n\n")[:4]

	start := func(t *testing.T) (*Proxy, *gatedSleep) {
		return startForward(t, "https://api.example.com")
	}
	startForward = func(t *testing.T, upstream string) (*Proxy, *gatedSleep) {
		opts := Options{Mode: ModeReplay, Upstream: upstream, Cassettes: []*cassettes.Cassette{c}, SimulateLatency: true}
		if upstream == "" {
			opts.CA = testCA(t)
		}
		p, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		g := newGatedSleep()
		p.sleep, p.now = g.sleep, g.now
		if err := p.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		return p, g
	}
	// serve lets the headers and the first event go, checks that the client
	// got that event while the last one is held back, then lets the rest go.
	serve := func(t *testing.T, g *gatedSleep, firstEvent func() string, rest func() string) {
		g.let(t, 300*time.Millisecond) // the headers
		g.let(t, gaps[0])
		if got := firstEvent(); got != events[0] {
			t.Fatalf("first event %q, want %q", got, events[0])
		}
		for _, d := range gaps[1:] {
			g.let(t, d)
		}
		if got := rest(); got != strings.Join(events[1:], "") {
			t.Fatalf("the rest of the stream: %q", got)
		}
	}

	for _, front := range []string{"reverse", "forward h1", "forward h2"} {
		t.Run("Go client, "+front, func(t *testing.T) {
			p, g := startForward(t, "")
			client, base := forwardClient(t, p, front == "forward h2"), "https://api.example.com"
			if front == "reverse" {
				p, g = start(t)
				client, base = http.DefaultClient, p.URL()
			}
			done := make(chan *http.Response, 1)
			go func() {
				resp, err := client.Post(base+"/v1/messages", "application/json", strings.NewReader(`{"stream":true}`))
				if err != nil {
					t.Error(err)
					close(done)
					return
				}
				done <- resp
			}()
			var br *bufio.Reader
			serve(t, g, func() string {
				resp := <-done
				if resp == nil {
					t.FailNow()
				}
				t.Cleanup(func() { resp.Body.Close() })
				if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
					t.Errorf("content type %q", ct)
				}
				br = bufio.NewReader(resp.Body)
				return readEvent(t, br)
			}, func() string {
				b, _ := io.ReadAll(br)
				return string(b)
			})
		})
	}

	t.Run("curl -N", func(t *testing.T) {
		if _, err := exec.LookPath("curl"); err != nil {
			t.Skip("curl is not installed")
		}
		p, g := start(t)
		cmd := exec.Command("curl", "-sSN", "--fail", "-H", "Content-Type: application/json", "--data", `{"stream":true}`, p.URL()+"/v1/messages")
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		br := bufio.NewReader(out)
		serve(t, g, func() string { return readEvent(t, br) }, func() string {
			b, _ := io.ReadAll(br)
			return string(b)
		})
		if err := cmd.Wait(); err != nil {
			t.Errorf("curl: %v", err)
		}
	})

	t.Run("without latency, at once", func(t *testing.T) {
		p, err := New(Options{Mode: ModeReplay, Upstream: "https://api.example.com", Cassettes: []*cassettes.Cassette{c}})
		if err != nil {
			t.Fatal(err)
		}
		p.sleep = func(context.Context, time.Duration) error { t.Error("replay without latency waited"); return nil }
		if err := p.Start(); err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		_, body, _ := do(t, http.DefaultClient, p.URL(), call{"POST", "/v1/messages", "application/json", `{"stream":true}`})
		if string(body) != llmStream {
			t.Errorf("body %q", body)
		}
	})
}

// fakeClock is a clock that moves only when told: by a sleep, or by the
// cost of a write.
type fakeClock struct {
	mu sync.Mutex
	at time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.at
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at = c.at.Add(d)
}

func (c *fakeClock) sleep(_ context.Context, d time.Duration) error {
	c.advance(d)
	return nil
}

// costlyWriter is a response writer each write to which takes cost on
// the clock (the time a real one spends writing and flushing).
type costlyWriter struct {
	*httptest.ResponseRecorder
	clock  *fakeClock
	cost   time.Duration
	writes int
}

func (w *costlyWriter) Write(b []byte) (int, error) {
	w.clock.advance(w.cost)
	w.writes++
	return w.ResponseRecorder.Write(b)
}

// TestPacedStreamKeepsDeadlines replays a stream recorded as 50 events
// over 998 ms through a writer whose every write costs 1 ms: it ends at
// 998 ms plus the last write, within 1%, because each event waits for its
// time counted from the start, not for its gap after the previous one
// (summed gaps ended at 1,048 ms: the writes added up).
func TestPacedStreamKeepsDeadlines(t *testing.T) {
	var body strings.Builder
	var times []cassettes.Duration
	for i := range 50 {
		fmt.Fprintf(&body, "data: {\"i\":%d}\n\n", i)
		times = append(times, cassettes.Duration(998*time.Millisecond*time.Duration(i+1)/50))
	}
	c := &cassettes.Cassette{Path: "sse.yaml", Interactions: []cassettes.Interaction{{
		Request: cassettes.Request{Method: "GET", URL: "http://svc.test/stream"},
		Response: cassettes.Response{Code: 200, Status: "200 OK", Body: cassettes.Body(body.String()),
			Headers: http.Header{"Content-Type": {"text/event-stream"}}, Duration: times[0], EventTimes: times}}}}
	p, err := New(Options{Mode: ModeReplay, Upstream: "http://svc.test", Cassettes: []*cassettes.Cassette{c}, SimulateLatency: true})
	if err != nil {
		t.Fatal(err)
	}
	clock := &fakeClock{at: time.Unix(1e9, 0)}
	p.now, p.sleep = clock.now, clock.sleep
	w := &costlyWriter{ResponseRecorder: httptest.NewRecorder(), clock: clock, cost: time.Millisecond}
	start := clock.now()
	p.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/stream", nil))
	took := clock.now().Sub(start)
	if w.Body.String() != body.String() || w.writes < 50 {
		t.Fatalf("%d writes of %q", w.writes, w.Body.String())
	}
	if took < 998*time.Millisecond || took > 998*time.Millisecond*101/100 {
		t.Errorf("the stream ended at %s, want 998ms within 1%%", took)
	}
}
