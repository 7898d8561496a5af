package recorder

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/matching"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/proxy"
	"github.com/cassette-dev/cassette/match"
)

// recordItems records two requests through a Transport against a real
// server, then closes the server: what follows can use no network.
func recordItems(t *testing.T, path string) (base string) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"got":"`+r.Method+" "+r.URL.Path+`","bytes":`+strconv.Itoa(len(b))+`}`)
	}))
	rec, err := New(path, withClock(fixedNow), WithMode(ModeRecordOnly), WithRealTransport(srv.Client().Transport))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct{ method, path, body string }{
		{"GET", "/v1/items?page=1", ""},
		{"POST", "/v1/items", `{"name":"a","tags":["x","y"]}`},
	} {
		req, _ := http.NewRequest(r.method, srv.URL+r.path, strings.NewReader(r.body))
		resp, err := rec.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if err := rec.Stop(); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	return srv.URL
}

// TestTransportMissExplainedLikeTheProxy: a request the cassette does not
// hold fails, through the go-vcr Transport, with the proxy's explanation
// of the same miss (closest interaction by file:line, the fields that
// differ, the diff), its typed error, and go-vcr's sentinel for code that
// checks it. It said only "requested interaction not found".
func TestRecorderMissExplainedLikeTheProxy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cassettes", "api", "items.yaml")
	base := recordItems(t, path)
	rep, err := New(path, WithMode(ModeReplayOnly))
	if err != nil {
		t.Fatal(err)
	}
	const body = `{"name":"a","tags":["x","z"]}`
	req, _ := http.NewRequest("POST", base+"/v1/items", strings.NewReader(body))
	_, err = rep.Client().Do(req)
	if err == nil {
		t.Fatal("an unrecorded request was answered")
	}
	if !errors.Is(err, cassette.ErrInteractionNotFound) {
		t.Errorf("not go-vcr's ErrInteractionNotFound: %v", err)
	}
	var miss *matching.Miss
	if !errors.As(err, &miss) {
		t.Fatalf("the error does not explain the miss: %v", err)
	}
	var ce *outcome.Error
	if !errors.As(err, &ce) || ce.Reason != outcome.EReplayMiss || len(ce.Problems) == 0 ||
		ce.Problems[0].File != path || ce.Problems[0].Line == 0 || ce.Problems[0].Field != "interactions[1].request.body" {
		t.Errorf("typed error: %+v", ce)
	}
	for _, want := range []string{"closest recorded request: " + path + ":", "(interactions[1])", "did not match on: [body]",
		`-{"name":"a","tags":["x","y"]}`, `+{"name":"a","tags":["x","z"]}`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q:\n%v", want, err)
		}
	}

	// The proxy, replaying the same file, explains the same request alike;
	// only the next step differs (each door says how its cassettes are
	// recorded).
	loaded, err := cassettes.Load(path, cassettes.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := proxy.New(proxy.Options{Mode: proxy.ModeReplay, Upstream: base, Cassettes: []*cassettes.Cassette{loaded}})
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	p.Handler().ServeHTTP(w, httptest.NewRequest("POST", "/v1/items", strings.NewReader(body)))
	if w.Code != proxy.MissStatus {
		t.Fatalf("proxy: %d %s", w.Code, w.Body)
	}
	withoutStep := func(s string) string { return s[:strings.Index(s, "next step: ")] }
	if got, want := withoutStep(miss.Text()), withoutStep(w.Body.String()); got != want {
		t.Errorf("the Transport's miss:\n%s\nthe proxy's:\n%s", got, want)
	}
	if !strings.Contains(miss.NextStep, "rm ") || !strings.Contains(miss.NextStep, "items.yaml") {
		t.Errorf("next step %q does not re-record the cassette", miss.NextStep)
	}
	if strings.Contains(miss.NextStep, "#") || !strings.Contains(missError{miss}.Error(), "\nthen run the test again with recorder.ModeRecordOnce") {
		t.Errorf("the next step %q is not a bare command, or the error does not say what to do after it:\n%v", miss.NextStep, missError{miss})
	}
}

// counter is a real server that answers each request with how many it has
// seen, and counts them.
func counter(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, strconv.FormatInt(n.Add(1), 10))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// send makes one request through tr and returns the body, or "miss: " and
// the error.
func send(t *testing.T, tr *Recorder, method, url, body string) string {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	resp, err := tr.Client().Do(req)
	if err != nil {
		return "miss: " + err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// open makes a Transport in mode, failing the test if it cannot.
func open(t *testing.T, path string, opts []Option, mode Mode) *Recorder {
	t.Helper()
	tr, err := New(path, append(opts, WithMode(mode))...)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// stop stops tr (saving what it recorded), failing the test if it cannot.
func stop(t *testing.T, tr *Recorder) {
	t.Helper()
	if err := tr.Stop(); err != nil {
		t.Fatal(err)
	}
}

// TestTransportReplaysLikeTheProxy: replay through the Transport follows
// the proxy's rules: a query in another order matches, the n-th identical
// request gets the n-th response and a used-up sequence is a miss that
// says so, and the proxy's matching rules apply (an ignored JSON path).
func TestRecorderReplaysLikeTheProxy(t *testing.T) {
	srv, _ := counter(t)
	path := filepath.Join(t.TempDir(), "cassettes", "api", "seq.yaml")
	opts := []Option{withClock(fixedNow), WithRealTransport(srv.Client().Transport), WithMatch(match.Rules{IgnoreJSON: []string{"$.nonce"}})}
	rec := open(t, path, opts, ModeRecordOnly)
	send(t, rec, "GET", srv.URL+"/v1/items?a=1&b=2", "")                 // 1
	send(t, rec, "GET", srv.URL+"/v1/poll", "")                          // 2
	send(t, rec, "GET", srv.URL+"/v1/poll", "")                          // 3
	send(t, rec, "POST", srv.URL+"/v1/chat", `{"q":"hi","nonce":"n-1"}`) // 4
	stop(t, rec)
	srv.Close()

	rep := open(t, path, opts, ModeReplayOnly)
	for _, c := range []struct{ name, method, url, body, want string }{
		{"query in another order", "GET", srv.URL + "/v1/items?b=2&a=1", "", "1"},
		{"first of a sequence", "GET", srv.URL + "/v1/poll", "", "2"},
		{"second of a sequence", "GET", srv.URL + "/v1/poll", "", "3"},
		{"ignored JSON path", "POST", srv.URL + "/v1/chat", `{"nonce":"n-2","q":"hi"}`, "4"},
	} {
		if got := send(t, rep, c.method, c.url, c.body); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
	req, _ := http.NewRequest("GET", srv.URL+"/v1/poll", nil)
	_, err := rep.Client().Do(req)
	var miss *matching.Miss
	if !errors.As(err, &miss) || miss.Used != 2 || !strings.Contains(err.Error(), "already served") {
		t.Errorf("a used-up sequence: %v", err)
	}
}

// TestTransportNewEpisodes: with a loaded cassette, what it holds is
// replayed (the real service is not called) and what it does not is
// recorded and saved beside it; the saved file then replays both offline.
func TestRecorderNewEpisodes(t *testing.T) {
	srv, calls := counter(t)
	path := filepath.Join(t.TempDir(), "cassettes", "api", "episodes.yaml")
	opts := []Option{withClock(fixedNow), WithRealTransport(srv.Client().Transport)}
	rec := open(t, path, opts, ModeRecordOnly)
	send(t, rec, "GET", srv.URL+"/old", "")
	stop(t, rec)
	ep := open(t, path, opts, ModeReplayWithNewEpisodes)
	if got := send(t, ep, "GET", srv.URL+"/old", ""); got != "1" || calls.Load() != 1 {
		t.Errorf("the recorded request: %q, %d calls", got, calls.Load())
	}
	if got := send(t, ep, "POST", srv.URL+"/new", "body"); got != "2" || calls.Load() != 2 {
		t.Errorf("a new episode: %q, %d calls", got, calls.Load())
	}
	stop(t, ep)
	srv.Close()
	rep := open(t, path, opts, ModeReplayOnly)
	if a, b := send(t, rep, "GET", srv.URL+"/old", ""), send(t, rep, "POST", srv.URL+"/new", "body"); a != "1" || b != "2" {
		t.Errorf("replayed %q %q", a, b)
	}
}

// TestTransportRecordReplayable: while recording with Replayable, go-vcr
// answers a repeated request from what it recorded, matched by the
// Transport's rules (here a query in another order, with a live token
// where the recording says [REDACTED]).
func TestRecorderRecordReplayable(t *testing.T) {
	srv, calls := counter(t)
	path := filepath.Join(t.TempDir(), "cassettes", "api", "again.yaml")
	rec := open(t, path, []Option{withClock(fixedNow), WithRealTransport(srv.Client().Transport), WithMatch(match.Rules{Replayable: true})}, ModeRecordOnly)
	first := send(t, rec, "GET", srv.URL+"/v1/x?a=1&access_token=live-token-123", "")
	again := send(t, rec, "GET", srv.URL+"/v1/x?access_token=live-token-123&a=1", "")
	other := send(t, rec, "GET", srv.URL+"/v1/y", "")
	if first != "1" || again != "1" || other != "2" || calls.Load() != 2 {
		t.Errorf("got %q %q %q after %d calls", first, again, other, calls.Load())
	}
	stop(t, rec)
}

// TestTransportSimulatedLatency: a recorded duration is waited for only
// with WithLatency, and the wait ends with the request's context (an
// hour-long recording is not waited for here: the context is cancelled).
func TestRecorderSimulatedLatency(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cassettes", "api", "slow.yaml")
	c := &cassettes.Cassette{Cassette: cassettes.SchemaVersion, Version: 2, Adapter: "api", Scenario: "slow", Kind: cfgschema.KindHTTP, Path: path,
		Interactions: []cassettes.Interaction{{
			Request:  cassettes.Request{Method: "GET", URL: "http://svc.test/slow"},
			Response: cassettes.Response{Code: 200, Status: "200 OK", Body: "done", Duration: cassettes.Duration(time.Hour)},
		}}}
	if err := cassettes.Save(c, cassettes.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := send(t, open(t, path, nil, ModeReplayOnly), "GET", "http://svc.test/slow", ""); got != "done" {
		t.Errorf("without WithLatency: %q", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://svc.test/slow", nil)
	_, err := open(t, path, []Option{WithLatency()}, ModeReplayOnly).RoundTrip(req)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("with WithLatency, a cancelled request: %v", err)
	}
}
