package proxy

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
)

// wakeClock is the proxy's clock in a test: sleeping moves it on, and each
// time it moves is noted (since the start).
type wakeClock struct {
	mu    sync.Mutex
	start time.Time
	now   time.Time
	woke  []time.Duration
}

func (c *wakeClock) install(p *Proxy) {
	c.start = time.Unix(1_800_000_000, 0)
	c.now = c.start
	p.now = func() time.Time {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.now
	}
	p.sleep = func(_ context.Context, d time.Duration) error {
		c.mu.Lock()
		defer c.mu.Unlock()
		if d > 0 {
			c.now = c.now.Add(d)
			c.woke = append(c.woke, c.now.Sub(c.start))
		}
		return nil
	}
}

func (c *wakeClock) wakes() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.woke...)
}

// TestLatencySpreadsStreamsWithoutEventTimes: a stream recorded without
// event times (a go-vcr file's: only `duration`) came whole after its
// duration, first and last event at the same moment. With latency its 4
// events are served at duration·1/4 … duration·4/4 (the headers with the
// first), and the log says the times were spread.
// A stream with recorded event times keeps them; without latency nothing
// waits.
func TestLatencySpreadsStreamsWithoutEventTimes(t *testing.T) {
	imported := it("POST", "http://llm.test/v1/messages", "", llmStream)
	imported.Response.Headers.Set("Content-Type", "text/event-stream; charset=utf-8")
	imported.Response.Duration = cassettes.Duration(2 * time.Second)
	recorded := imported
	recorded.Request.URL = "http://llm.test/v1/recorded"
	recorded.Response.EventTimes = []cassettes.Duration{cassettes.Duration(100 * time.Millisecond), cassettes.Duration(2500 * time.Millisecond),
		cassettes.Duration(2600 * time.Millisecond), cassettes.Duration(2700 * time.Millisecond)}
	recorded.Response.Duration = cassettes.Duration(100 * time.Millisecond)
	c := &cassettes.Cassette{Interactions: []cassettes.Interaction{imported, recorded}}

	for _, tc := range []struct {
		name    string
		latency bool
		path    string
		want    []time.Duration
		logged  bool
	}{
		{"imported, latency", true, "/v1/messages", []time.Duration{500 * time.Millisecond, time.Second, 1500 * time.Millisecond, 2 * time.Second}, true},
		{"recorded event times, latency", true, "/v1/recorded", []time.Duration{100 * time.Millisecond, 2500 * time.Millisecond, 2600 * time.Millisecond, 2700 * time.Millisecond}, false},
		{"imported, no latency", false, "/v1/messages", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log bytes.Buffer
			p, err := New(Options{Mode: ModeReplay, Upstream: "http://llm.test", Cassettes: []*cassettes.Cassette{c}, SimulateLatency: tc.latency, Log: &syncWriter{w: &log}})
			if err != nil {
				t.Fatal(err)
			}
			var clock wakeClock
			clock.install(p)
			if err := p.Start(); err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			resp, err := http.Post(p.URL()+tc.path, "application/json", nil)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil || string(body) != llmStream {
				t.Fatalf("the stream: %v\n%s", err, body)
			}
			// When the proxy woke to serve the headers and each event.
			if got := clock.wakes(); fmt.Sprint(got) != fmt.Sprint(tc.want) && (tc.want != nil || got != nil) {
				t.Errorf("served at %v, want %v", got, tc.want)
			}
			if got := strings.Contains(log.String(), "its 4 events are spread evenly over the recorded 2s"); got != tc.logged {
				t.Errorf("the log says it spread the events: %v, want %v\n%s", got, tc.logged, log.String())
			}
		})
	}
	if c.Interactions[0].Response.EventTimes != nil || c.Interactions[0].Response.Duration != cassettes.Duration(2*time.Second) {
		t.Error("replay changed the cassette")
	}
}

// TestSpreadEvents: which responses get event times, and which.
func TestSpreadEvents(t *testing.T) {
	resp := func(ctype, body string, d time.Duration) cassettes.Response {
		return cassettes.Response{Headers: http.Header{"Content-Type": {ctype}}, Body: cassettes.Body(body), Duration: cassettes.Duration(d)}
	}
	for _, tc := range []struct {
		name string
		r    cassettes.Response
		want string
	}{
		{"NDJSON, a tail without its newline counts", resp("application/x-ndjson", "{}\n{}\n{}", 300*time.Millisecond), "[100ms 200ms 300ms]"},
		{"SSE with CRLF", resp("text/event-stream", "data: 1\r\n\r\ndata: 2\r\n\r\n", time.Second), "[500ms 1s]"},
		{"one event: nothing to spread", resp("text/event-stream", "data: 1\n\n", time.Second), "[]"},
		{"no duration", resp("text/event-stream", "data: 1\n\ndata: 2\n\n", 0), "[]"},
		{"not a stream", resp("application/json", "{}\n{}\n", time.Second), "[]"},
	} {
		got, n := spreadEvents(tc.r)
		times := make([]time.Duration, len(got.EventTimes))
		for i, d := range got.EventTimes {
			times[i] = time.Duration(d)
		}
		if fmt.Sprint(times) != tc.want || (n > 0) != (tc.want != "[]") {
			t.Errorf("%s: %v (%d), want %s", tc.name, times, n, tc.want)
		}
		if n > 0 && got.Duration != got.EventTimes[0] {
			t.Errorf("%s: headers at %v, want with the first event", tc.name, got.Duration)
		}
	}
}
