package proxy

import (
	"bytes"
	"context"
	"flag"
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
	"go.yaml.in/yaml/v3"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func ptr[T any](v T) *T { return &v }

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

// TestMissExplanations checks the text of each kind of replay miss against
// golden files (go test ./proxy -run TestMissExplanations -update).
func TestMissExplanations(t *testing.T) {
	tests := []struct {
		name, method, url, body string
		opts                    MatchOptions
		cs                      []*cassettes.Cassette
		before                  int // identical lookups made first
	}{
		{"query differs", "GET", "https://api.github.com/repos/o/r/pulls?page=2&state=open", "", MatchOptions{}, nil, 0},
		{"json body differs", "POST", "https://api.github.com/repos/o/r/issues", `{"labels":["x","z"],"title":"a"}`, MatchOptions{Body: BodyJSON}, nil, 0},
		{"method and path differ", "DELETE", "https://api.github.com/repos/o/r/pull", "", MatchOptions{}, nil, 0},
		{"header differs", "GET", "https://api.github.com/repos/o/r/pulls?state=open&page=1", "", MatchOptions{Headers: []string{"accept"}}, nil, 0},
		{"sequence used up", "GET", "https://api.github.com/repos/o/r/pulls?state=open&page=1", "", MatchOptions{}, nil, 2},
		{"nothing recorded", "GET", "https://api.github.com/", "", MatchOptions{}, []*cassettes.Cassette{}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := tc.cs
			if cs == nil {
				cs = []*cassettes.Cassette{githubCassette()}
			}
			x := newIndex(cs, tc.opts)
			h := http.Header{"Accept": {"text/html"}}
			v := x.opts.view(tc.method, tc.url, h, []byte(tc.body), x.hnames)
			for range tc.before {
				if it, m := x.lookup(v, tc.method+" "+tc.url); it == nil {
					t.Fatalf("setup lookup missed: %s", m.Text())
				}
			}
			got, miss := x.lookup(v, tc.method+" "+tc.url)
			if got != nil {
				t.Fatalf("lookup hit %s", got.Request.URL)
			}
			text := miss.Text() + "\n--- as error ---\n" + miss.Error().Error() + "\nnext: " + miss.Error().NextStep + "\n"
			golden := filepath.Join("testdata", "miss", strings.ReplaceAll(tc.name, " ", "_")+".txt")
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if text != string(want) {
				t.Errorf("miss text differs from %s:\n%s", golden, text)
			}
			if miss.Error().Reason != cassettes.EReplayMiss {
				t.Errorf("reason %s", miss.Error().Reason)
			}
		})
	}
}

func TestSequencesAndReplayable(t *testing.T) {
	url := "https://api.github.com/repos/o/r/pulls?page=1&state=open"
	tests := []struct {
		name  string
		opts  MatchOptions
		flag  *bool // the cassette's replayable:
		wants []string
	}{
		{"served once, in order", MatchOptions{}, nil, []string{"[1]", "[2]", "miss"}},
		{"option repeats the last", MatchOptions{Replayable: true}, nil, []string{"[1]", "[2]", "[2]", "[2]"}},
		{"cassette replayable: true", MatchOptions{}, ptr(true), []string{"[1]", "[2]", "[2]"}},
		{"cassette replayable: false wins over the option", MatchOptions{Replayable: true}, ptr(false), []string{"[1]", "[2]", "miss"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := githubCassette()
			c.Replayable = tc.flag
			x := newIndex([]*cassettes.Cassette{c}, tc.opts)
			for i, want := range tc.wants {
				got, _ := x.lookup(x.opts.view("GET", url, nil, nil, x.hnames), url)
				body := "miss"
				if got != nil {
					body = string(got.Response.Body)
				}
				if body != want {
					t.Errorf("request %d got %s, want %s", i, body, want)
				}
			}
		})
	}
}

func TestMatchOptions(t *testing.T) {
	rec := "https://API.example.com:443/v1/items?b=2&a=1#frag"
	tests := []struct {
		name          string
		opts          MatchOptions
		method, url   string
		body          string
		h             http.Header
		match         bool
		recordedBody  string
		recordedHeads http.Header
	}{
		{"query order, host case, default port", MatchOptions{}, "GET", "https://api.example.com/v1/items?a=1&b=2", "", nil, true, "", nil},
		{"different query", MatchOptions{}, "GET", "https://api.example.com/v1/items?a=1&b=3", "", nil, false, "", nil},
		{"ignore query", MatchOptions{IgnoreQuery: true}, "GET", "https://api.example.com/v1/items", "", nil, true, "", nil},
		{"method differs", MatchOptions{}, "HEAD", "https://api.example.com/v1/items?a=1&b=2", "", nil, false, "", nil},
		{"ignore method", MatchOptions{IgnoreMethod: true}, "HEAD", "https://api.example.com/v1/items?a=1&b=2", "", nil, true, "", nil},
		{"other host", MatchOptions{}, "GET", "http://127.0.0.1:8080/v1/items?a=1&b=2", "", nil, false, "", nil},
		{"ignore host", MatchOptions{IgnoreHost: true}, "GET", "http://127.0.0.1:8080/v1/items?a=1&b=2", "", nil, true, "", nil},
		{"raw body differs in spacing", MatchOptions{}, "GET", rec, `{"a": 1}`, nil, false, `{"a":1}`, nil},
		{"json body equal up to spacing and key order", MatchOptions{Body: BodyJSON}, "GET", rec, `{ "b":[1], "a": 1}`, nil, true, `{"a":1,"b":[1]}`, nil},
		{"json mode, non-JSON bodies compare raw", MatchOptions{Body: BodyJSON}, "GET", rec, `a=1`, nil, true, `a=1`, nil},
		{"ignore body", MatchOptions{Body: BodyIgnore}, "GET", rec, `x`, nil, true, `y`, nil},
		{"chosen header equal", MatchOptions{Headers: []string{"x-api-version"}}, "GET", rec, "", http.Header{"X-Api-Version": {"3"}}, true, "", http.Header{"X-Api-Version": {"3"}}},
		{"chosen header differs", MatchOptions{Headers: []string{"X-Api-Version"}}, "GET", rec, "", http.Header{"X-Api-Version": {"4"}}, false, "", http.Header{"X-Api-Version": {"3"}}},
		{"other headers do not matter", MatchOptions{}, "GET", rec, "", http.Header{"User-Agent": {"x"}}, true, "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &cassettes.Cassette{Interactions: []cassettes.Interaction{{
				Request:  cassettes.Request{Method: "GET", URL: rec, Body: cassettes.Body(tc.recordedBody), Headers: tc.recordedHeads},
				Response: cassettes.Response{Code: 200},
			}}}
			x := newIndex([]*cassettes.Cassette{c}, tc.opts)
			got, _ := x.lookup(x.opts.view(tc.method, tc.url, tc.h, []byte(tc.body), x.hnames), tc.url)
			if (got != nil) != tc.match {
				t.Errorf("matched = %v, want %v", got != nil, tc.match)
			}
		})
	}
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
				SimulateLatency: simulate, Match: MatchOptions{Replayable: true}})
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
	planted := []string{declared, ghToken, "sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "hunter2-cookie"}
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
		Secrets: map[string]string{"SERVICE_TOKEN": declared}}
	p := startProxy(t, opts)
	client := forwardClient(t, p, false)
	send := func(c *http.Client) (int, string) {
		req, _ := http.NewRequest("POST", up.URL+"/v1/things?access_token="+declared+"&page=1",
			strings.NewReader(`{"key":"`+ghToken+`","other":"sk-ant-api03-abcdefghijklmnopqrstuvwxyz"}`))
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
	doc, err := yaml.Marshal(&cassettes.Cassette{Cassette: 1, Version: 2, Kind: cassettes.KindHTTP, Interactions: its})
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
	rep := startProxy(t, Options{Mode: ModeReplay, CA: testCA(t), Secrets: opts.Secrets, Cassettes: []*cassettes.Cassette{{Interactions: its}}})
	if code, body := send(forwardClient(t, rep, false)); code != 200 || strings.Contains(body, ghToken) {
		t.Errorf("replay: %d %q", code, body)
	}
}

// view normalizes one request for matching, as the matcher does with the
// options' compiled rules (tests and benchmarks build views this way).
func (m MatchOptions) view(method, rawURL string, h http.Header, body []byte, hnames []string) view {
	c, _ := m.compile()
	return m.viewWith(c, method, rawURL, h, body, hnames)
}
