package proxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/match"
)

// discard is a ResponseWriter that keeps nothing (so that what a request
// allocates is the proxy's, not a recorder's buffer).
type discard struct{ h http.Header }

func (d *discard) Header() http.Header                 { return d.h }
func (d *discard) WriteHeader(int)                     {}
func (d *discard) Write(b []byte) (int, error)         { return len(b), nil }
func (d *discard) WriteString(s string) (int, error)   { return len(s), nil }
func (d *discard) Flush()                              {}
func (d *discard) ReadFrom(r io.Reader) (int64, error) { return io.Copy(io.Discard, r) }

// TestReplayDoesNotCopyTheBody: serving a 1 MiB recorded body allocates far
// less than the body per request (it was copied twice: into the response,
// then by the flushing writer, which had no WriteString).
func TestReplayDoesNotCopyTheBody(t *testing.T) {
	const size = 1 << 20
	c := &cassettes.Cassette{Interactions: []cassettes.Interaction{{
		Request: cassettes.Request{Method: "GET", URL: "http://svc.test/big"},
		Response: cassettes.Response{Code: 200, Status: "200 OK", Body: cassettes.Body(strings.Repeat("x", size)),
			Headers: http.Header{"Content-Type": {"text/plain"}, "Content-Length": {"1048576"}}},
	}}}
	p, err := New(Options{Mode: ModeReplay, Upstream: "http://svc.test", Cassettes: []*cassettes.Cassette{c}, Match: match.Rules{Replayable: true}})
	if err != nil {
		t.Fatal(err)
	}
	serve := func() {
		w := &discard{h: http.Header{}}
		p.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/big", nil))
		if w.h.Get(MissHeader) != "" {
			t.Fatalf("miss: %v", w.h)
		}
	}
	serve()
	const n = 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range n {
		serve()
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > size/8 {
		t.Errorf("a replay of a %d-byte body allocates %d bytes", size, per)
	}
}

// TestReplayRedactsOnlyWhatDoesNotMatchAsItCame: a request equal to a
// recorded one is served without running the redaction; one carrying a
// live token where the cassette says [REDACTED] is redacted, then served.
// What the session's Redactor learned shows whether the redaction ran: it
// learns the value of a credential-named field of the body, which the
// lookup as it came (bodies ignored) never reads.
func TestReplayRedactsOnlyWhatDoesNotMatchAsItCame(t *testing.T) {
	c := &cassettes.Cassette{Interactions: []cassettes.Interaction{
		it("GET", "http://svc.test/v1/plain?page=1", "", "plain"),
		it("GET", "http://svc.test/v1/token?access_token=[REDACTED]", "", "token"),
	}}
	red := redact.New(nil, map[string]string{"TOKEN": "live-value-123"})
	p := startProxy(t, Options{Mode: ModeReplay, Upstream: "http://svc.test", Cassettes: []*cassettes.Cassette{c},
		Match: match.Rules{Replayable: true, Body: match.BodyIgnore}, Redact: red})
	const field = "body-field-secret"
	redacted := func() bool { return len(red.NamesIn(field)) > 0 }
	get := func(path string) string {
		req, err := http.NewRequest("GET", p.URL()+path, strings.NewReader(`{"password":"`+field+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	for range 3 {
		if got := get("/v1/plain?page=1"); got != "plain" {
			t.Fatalf("got %q", got)
		}
	}
	if redacted() {
		t.Error("requests equal to a recorded one were redacted")
	}
	if got := get("/v1/token?access_token=live-value-123"); got != "token" {
		t.Fatalf("a live token against a [REDACTED] one: got %q", got)
	}
	if !redacted() {
		t.Error("the request with a live token was not redacted")
	}
	if got := get("/v1/nothing?access_token=live-value-123"); !strings.Contains(got, "replay miss") || strings.Contains(got, "live-value-123") {
		t.Errorf("a miss is explained from the redacted request: %q", got)
	}
}

// TestReplayLogIsSampledCountIsExact: 100 replays log the first ten and the
// 16th, 32nd and 64th; the count is exact.
func TestReplayLogIsSampledCountIsExact(t *testing.T) {
	var log syncBuffer
	c := &cassettes.Cassette{Interactions: []cassettes.Interaction{it("GET", "http://svc.test/v1/x", "", "x")}}
	p := startProxy(t, Options{Mode: ModeReplay, Upstream: "http://svc.test", Cassettes: []*cassettes.Cassette{c},
		Match: match.Rules{Replayable: true}, Log: &log})
	for range 100 {
		resp, err := http.Get(p.URL() + "/v1/x")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if got := p.Replayed(); got != 100 {
		t.Errorf("Replayed() = %d, want 100", got)
	}
	lines := strings.Count(log.String(), "cassette proxy: replay GET http://svc.test/v1/x → 200")
	if lines != 13 || !strings.Contains(log.String(), "(64 replayed)") {
		t.Errorf("%d replay lines, want 13 (1–10, 16, 32, 64):\n%s", lines, log.String())
	}
}

// TestReverseReplayWithoutGoproxy: the reverse door answers replay itself;
// status, headers, body, HEAD and announced trailers are what goproxy gave.
func TestReverseReplayWithoutGoproxy(t *testing.T) {
	rec := it("GET", "http://svc.test/v1/x", "", "hello")
	rec.Response.Code, rec.Response.Status = 201, "201 Created"
	rec.Response.Headers = http.Header{"Content-Type": {"text/plain"}, "Content-Length": {"5"}, "X-Id": {"7"}}
	withTrailer := it("GET", "http://svc.test/v1/t", "", "body")
	withTrailer.Response.Trailer = http.Header{"X-Checksum": {"abc"}}
	head := it("HEAD", "http://svc.test/v1/x", "", "")
	head.Response.Code, head.Response.Status, head.Response.ContentLength = 201, "201 Created", 5
	head.Response.Headers = rec.Response.Headers
	c := &cassettes.Cassette{Interactions: []cassettes.Interaction{rec, withTrailer, head}}
	p := startProxy(t, Options{Mode: ModeReplay, Upstream: "http://svc.test", Cassettes: []*cassettes.Cassette{c}, Match: match.Rules{Replayable: true}})
	resp, err := http.Get(p.URL() + "/v1/x")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 201 || string(b) != "hello" || resp.Header.Get("X-Id") != "7" || resp.ContentLength != 5 {
		t.Errorf("GET: %d %q %v", resp.StatusCode, b, resp.Header)
	}
	if resp, err = http.Head(p.URL() + "/v1/x"); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 201 || resp.ContentLength != 5 {
		t.Errorf("HEAD: %d, length %d", resp.StatusCode, resp.ContentLength)
	}
	if resp, err = http.Get(p.URL() + "/v1/t"); err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "body" || resp.Trailer.Get("X-Checksum") != "abc" {
		t.Errorf("trailers: %q %v", b, resp.Trailer)
	}
}

// TestRecordedRequestsRedactedLikeIncoming: a plain go-vcr cassette keeps a
// test secret in its form body (auth0's go-auth0 recordings do); the proxy
// redacts every incoming request before matching, so it must redact the
// recorded side the same way, or such a cassette never replays.
func TestRecordedRequestsRedactedLikeIncoming(t *testing.T) {
	up := newUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { t.Error("replay reached the network") }), false)
	form := "client_id=test-client_id&client_secret=test-client_secret&grant_type=client_credentials"
	c := &cassettes.Cassette{Path: "cassettes/auth0/TestLogin.yaml", Adapter: "auth0", Scenario: "TestLogin", Interactions: []cassettes.Interaction{{
		Request:  cassettes.Request{Method: "POST", URL: up.URL + "/oauth/token", Body: cassettes.Body(form), Headers: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}},
		Response: cassettes.Response{Code: 200, Status: "200 OK", Body: `{"access_token":"[REDACTED]"}`, Headers: http.Header{}},
	}}}
	p := startProxy(t, Options{Mode: ModeReplay, CA: testCA(t), Transport: trusting(up), Cassettes: []*cassettes.Cassette{c}})
	code, body, _ := do(t, forwardClient(t, p, false), up.URL, call{"POST", "/oauth/token", "application/x-www-form-urlencoded", form})
	if code != 200 {
		t.Fatalf("status %d:\n%s", code, body)
	}
}
