package proxy

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/match"
	"go.yaml.in/yaml/v3"
)

func it(method, url, body, resp string) cassettes.Interaction {
	return cassettes.Interaction{
		Request:  cassettes.Request{Method: method, URL: url, Body: cassettes.Body(body), Headers: http.Header{"Accept": {"application/json"}}},
		Response: cassettes.Response{Code: 200, Status: "200 OK", Body: cassettes.Body(resp), Headers: http.Header{}},
	}
}

func githubCassette() *cassettes.Cassette {
	return &cassettes.Cassette{Path: "cassettes/github/list-pulls.yaml", Adapter: "github", Scenario: "list-pulls",
		Interactions: []cassettes.Interaction{
			it("GET", "https://api.github.com/repos/o/r/pulls?state=open&page=1", "", "[1]"),
			it("POST", "https://api.github.com/repos/o/r/issues", `{"title":"a","labels":["x","y"]}`, "{}"),
			it("GET", "https://api.github.com/repos/o/r/pulls?state=open&page=1", "", "[2]"),
		}}
}

// TestReplayMissOverTheWire: a miss is a 599 whose body explains it, and
// nothing reaches the network.
func TestReplayMissOverTheWire(t *testing.T) {
	var upstreamHits int
	var mu sync.Mutex
	up := newUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		upstreamHits++
		mu.Unlock()
	}), false)
	c := githubCassette()
	for i := range c.Interactions {
		c.Interactions[i].Request.URL = strings.Replace(c.Interactions[i].Request.URL, "https://api.github.com", up.URL, 1)
	}
	var log bytes.Buffer
	p := startProxy(t, Options{Mode: ModeReplay, CA: testCA(t), Transport: trusting(up), Cassettes: []*cassettes.Cassette{c}, Log: &syncWriter{w: &log}})
	code, body, h := do(t, forwardClient(t, p, false), up.URL, call{"GET", "/repos/o/r/pulls?state=closed&page=1", "", ""})
	if code != MissStatus || h.Get(MissHeader) != "replay" {
		t.Fatalf("status %d, %s=%q", code, MissHeader, h.Get(MissHeader))
	}
	// The official LLM SDKs retry a 5xx (the 599 too) unless the response
	// says not to: a miss is final.
	if h.Get("X-Should-Retry") != "false" {
		t.Errorf("X-Should-Retry = %q, want false", h.Get("X-Should-Retry"))
	}
	for _, want := range []string{"closest recorded request: cassettes/github/list-pulls.yaml (interactions[0])",
		"did not match on: [query]", "- state=open", "+ state=closed", "next step: cassette record --adapter github --scenario list-pulls"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("miss body lacks %q:\n%s", want, body)
		}
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q", want)
		}
	}
	if upstreamHits != 0 {
		t.Errorf("replay reached the network %d times", upstreamHits)
	}
	if len(p.Misses()) != 1 {
		t.Errorf("Misses() = %d", len(p.Misses()))
	}
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func TestSimulatedLatency(t *testing.T) {
	c := &cassettes.Cassette{Interactions: []cassettes.Interaction{it("GET", "http://svc.test/a", "", "ok")}}
	c.Interactions[0].Response.Duration = cassettes.Duration(1500 * time.Millisecond)
	for _, simulate := range []bool{false, true} {
		t.Run(map[bool]string{false: "off by default", true: "on"}[simulate], func(t *testing.T) {
			p, err := New(Options{Mode: ModeReplay, Upstream: "http://svc.test", Cassettes: []*cassettes.Cassette{c},
				SimulateLatency: simulate, Match: match.Rules{Replayable: true}})
			if err != nil {
				t.Fatal(err)
			}
			var slept []time.Duration
			p.sleep = func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }
			p.now = func() time.Time { return time.Unix(1e9, 0) } // a clock that stands still: the wait is the whole duration
			if err := p.Start(); err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if _, b, _ := do(t, http.DefaultClient, p.URL(), call{"GET", "/a", "", ""}); string(b) != "ok" {
				t.Fatalf("got %q", b)
			}
			want := 0
			if simulate {
				want = 1
			}
			if len(slept) != want || (want == 1 && slept[0] != 1500*time.Millisecond) {
				t.Errorf("slept %v", slept)
			}
		})
	}
}

// TestSecretsNeverWritten plants credentials in a header, a query string, a
// JSON body and a response, records, writes the cassette and the log into
// one directory, and greps all of it.
func TestSecretsNeverWritten(t *testing.T) {
	const declared = "s3cr3t-declared-value-42"
	const ghToken = "ghp_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"
	planted := []string{declared, ghToken, "sk-ant-api03-Pq7wLm2xZk4vRt8yN3bC6dF1", "hunter2-cookie"}
	up := newUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Set-Cookie", "session=hunter2-cookie")
		w.Header().Set("X-Echo-Query", r.URL.RawQuery)
		w.Write(b)
		io.WriteString(w, "\n"+r.Header.Get("Authorization"))
	}), false)
	out := t.TempDir()
	logf, err := os.Create(filepath.Join(out, "proxy.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	opts := Options{Mode: ModeRecord, CA: testCA(t), Transport: trusting(up), Log: logf,
		Redact: redact.New(nil, map[string]string{"SERVICE_TOKEN": declared})}
	p := startProxy(t, opts)
	client := forwardClient(t, p, false)
	send := func(c *http.Client) (int, string) {
		req, _ := http.NewRequest("POST", up.URL+"/v1/things?access_token="+declared+"&page=1",
			strings.NewReader(`{"key":"`+ghToken+`","other":"sk-ant-api03-Pq7wLm2xZk4vRt8yN3bC6dF1"}`))
		req.Header.Set("Authorization", "Bearer "+ghToken)
		req.Header.Set("Cookie", "session=hunter2-cookie")
		req.Header.Set("X-Custom", "v="+declared)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := send(client); code != 200 || !strings.Contains(body, ghToken) {
		t.Fatalf("the live call must still carry the real credentials: %d %q", code, body)
	}
	its := flushed(t, p)
	doc, err := yaml.Marshal(&cassettes.Cassette{Cassette: 1, Version: 2, Kind: cfgschema.KindHTTP, Interactions: its})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "cassette.yaml"), doc, 0o644); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(doc, []byte("[REDACTED]")) {
		t.Error("nothing was redacted")
	}
	filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(path)
		for _, s := range planted {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s contains a planted credential (%d chars)", filepath.Base(path), len(s))
			}
		}
		return nil
	})
	// The redacted cassette still replays the same request carrying live values.
	up.Close()
	rep := startProxy(t, Options{Mode: ModeReplay, CA: testCA(t), Redact: redact.New(nil, map[string]string{"SERVICE_TOKEN": declared}), Cassettes: []*cassettes.Cassette{{Interactions: its}}})
	if code, body := send(forwardClient(t, rep, false)); code != 200 || strings.Contains(body, ghToken) {
		t.Errorf("replay: %d %q", code, body)
	}
}

// TestReplayAddsNoDateHeader: a replayed response has the headers that
// were recorded, a Date among them only when one was recorded (Go's
// server adds one to every response unless told not to), through every
// door: reverse (direct, and paced through goproxy), forward plain HTTP,
// and the HTTPS tunnel over HTTP/1.1 and HTTP/2.
func TestReplayAddsNoDateHeader(t *testing.T) {
	const recordedDate = "Mon, 23 Nov 2026 19:30:00 GMT"
	cassette := func(base string) []*cassettes.Cassette {
		c := &cassettes.Cassette{Interactions: []cassettes.Interaction{it("GET", base+"/none", "", "a"), it("GET", base+"/dated", "", "b")}}
		c.Interactions[1].Response.Headers.Set("Date", recordedDate)
		return []*cassettes.Cassette{c}
	}
	check := func(t *testing.T, c *http.Client, base string) {
		t.Helper()
		if _, b, h := do(t, c, base, call{"GET", "/none", "", ""}); string(b) != "a" || h.Values("Date") != nil {
			t.Errorf("/none: %q, Date %q: replay added a header the recording does not have", b, h.Values("Date"))
		}
		if _, b, h := do(t, c, base, call{"GET", "/dated", "", ""}); string(b) != "b" || strings.Join(h.Values("Date"), "|") != recordedDate {
			t.Errorf("/dated: %q, Date %q, want the recorded %q", b, h.Values("Date"), recordedDate)
		}
	}
	for _, latency := range []bool{false, true} {
		t.Run(fmt.Sprintf("reverse, latency %v", latency), func(t *testing.T) {
			p := startProxy(t, Options{Mode: ModeReplay, Upstream: "http://svc.test", Cassettes: cassette("http://svc.test"), SimulateLatency: latency})
			check(t, http.DefaultClient, p.URL())
		})
	}
	t.Run("forward, plain HTTP", func(t *testing.T) {
		p := startProxy(t, Options{Mode: ModeReplay, CA: testCA(t), Cassettes: cassette("http://svc.test")})
		check(t, forwardClient(t, p, false), "http://svc.test")
	})
	for _, h2 := range []bool{false, true} {
		t.Run(fmt.Sprintf("forward, HTTPS, h2 %v", h2), func(t *testing.T) {
			p := startProxy(t, Options{Mode: ModeReplay, CA: testCA(t), Cassettes: cassette("https://svc.test")})
			check(t, forwardClient(t, p, h2), "https://svc.test")
		})
	}
}
