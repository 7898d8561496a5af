package verify

import (
	"context"
	"github.com/cassette-dev/cassette/internal/procgroup"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
)

// TestReadyWhenTheFakeSpeaks: a fake verify started is checked for
// readiness when it writes a line, not only when a poll comes round. The
// polls are an hour apart here: the wait ends because of the lines.
func TestReadyWhenTheFakeSpeaks(t *testing.T) {
	var up atomic.Bool
	asked := make(chan struct{}, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		asked <- struct{}{}
	}))
	defer srv.Close()
	p := &Process{BaseURL: srv.URL, child: &procgroup.Child{}, exited: make(chan struct{}),
		out: &fakeOutput{lines: make(chan struct{}, 1)}, tr: newFakeTransport(),
		pace: readyPace{first: time.Hour, start: time.Hour, max: time.Hour}, hint: &readyHint{}}
	defer p.tr.CloseIdleConnections()
	done := make(chan error, 1)
	go func() { done <- p.waitReady(context.Background(), "/healthz", time.Minute) }()

	p.out.lines <- struct{}{} // "starting…": asked, not ready yet
	<-asked
	up.Store(true)
	p.out.lines <- struct{}{} // "listening on …": asked again, ready
	<-asked
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !p.hint.spoke || p.hint.took <= 0 {
		t.Errorf("the run did not learn that the fake was ready when it spoke: %+v", p.hint)
	}
}

// TestReadyHintHoldsBackTheBlindCheck: once an adapter's fake was ready
// when it first spoke, the next one's first blind check waits ten times
// as long as that took (at least the pace's first, at most maxSpeakWait);
// once one was not, the pace's first again. No hint: the pace's.
func TestReadyHintHoldsBackTheBlindCheck(t *testing.T) {
	first := 5 * time.Millisecond
	var h readyHint
	if got := h.firstWait(first); got != first {
		t.Errorf("nothing learned: %s, want %s", got, first)
	}
	h.learn(true, 20*time.Millisecond)
	if got := h.firstWait(first); got != 200*time.Millisecond {
		t.Errorf("ready when it spoke after 20ms: %s, want 200ms", got)
	}
	h.learn(true, 100*time.Microsecond)
	if got := h.firstWait(first); got != first {
		t.Errorf("ready when it spoke after 100µs: %s, want the pace's %s", got, first)
	}
	h.learn(true, time.Minute)
	if got := h.firstWait(first); got != maxSpeakWait {
		t.Errorf("ready when it spoke after a minute: %s, want at most %s", got, maxSpeakWait)
	}
	h.learn(false, 20*time.Millisecond)
	if got := h.firstWait(first); got != first {
		t.Errorf("ready at a blind check: %s, want %s", got, first)
	}
	var none *readyHint
	none.learn(true, time.Second)
	if got := none.firstWait(first); got != first {
		t.Errorf("no hint: %s, want %s", got, first)
	}
}

// TestFakeOutputKeepsTheEnd: a fresh fake's output held in memory is
// bounded; past the bound the oldest half goes, and the log says so.
func TestFakeOutputKeepsTheEnd(t *testing.T) {
	o := &fakeOutput{}
	line := []byte("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n") // 64 bytes
	for i := 0; i < 2*maxFakeLog/len(line); i++ {
		o.keep(line)
	}
	o.keep([]byte("the last words\n"))
	b := o.bytes()
	if len(b) > maxFakeLog+100 {
		t.Errorf("%d bytes held, bound %d", len(b), maxFakeLog)
	}
	if got := o.tail(1); got != "the last words" {
		t.Errorf("tail %q", got)
	}
	if want := "[cassette: the fake's earlier output was dropped]\n"; string(b[:len(want)]) != want {
		t.Errorf("the log does not say output was dropped: %q", b[:80])
	}
}

// TestReadyMeans2xxOr3xx: a ready path that answers 404 is no ready fake
// (it used to count: any status under 500), a redirect is, and so is a
// status the adapter declares; the error says how long it waited and
// what answered, or that nothing listened on the port.
func TestReadyMeans2xxOr3xx(t *testing.T) {
	status := func(code int) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if code == http.StatusFound {
				http.Redirect(w, r, "/elsewhere-that-is-missing", code)
				return
			}
			w.WriteHeader(code)
		}))
	}
	pace := readyPace{first: time.Millisecond, start: time.Millisecond, max: time.Millisecond}
	wait := func(base string, declared []int) error {
		p := &Process{BaseURL: base, tr: newFakeTransport(), pace: pace, readyStatus: declared, port: "4711"}
		defer p.tr.CloseIdleConnections()
		return p.waitReady(context.Background(), "/healthz", 50*time.Millisecond)
	}
	notFound := status(http.StatusNotFound)
	defer notFound.Close()
	err := wait(notFound.URL, nil)
	if err == nil || !strings.Contains(err.Error(), "not ready after waiting") || !strings.Contains(err.Error(), "GET /healthz answered 404 Not Found, want 2xx or 3xx") {
		t.Errorf("404: err = %v", err)
	}
	if err := wait(notFound.URL, []int{404}); err != nil {
		t.Errorf("404 declared in fake.ready_status: %v", err)
	}
	found := status(http.StatusFound)
	defer found.Close()
	if err := wait(found.URL, nil); err != nil {
		t.Errorf("302: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	if err := wait("http://"+addr, nil); err == nil || !strings.Contains(err.Error(), "nothing listened on $PORT 4711") {
		t.Errorf("closed port: err = %v", err)
	}
}

// TestReadyBound: verify --timeout bounds a fake's start below its
// fake.timeout, never above it, and leaves the adapter as it was.
func TestReadyBound(t *testing.T) {
	a := &cfgschema.Adapter{Fake: cfgschema.Fake{Timeout: cassettes.Duration(90 * time.Second)}}
	if b := readyBound(a, 5*time.Second); time.Duration(b.Fake.Timeout) != 5*time.Second || time.Duration(a.Fake.Timeout) != 90*time.Second {
		t.Errorf("bound to 5s: %v (adapter now %v)", b.Fake.Timeout, a.Fake.Timeout)
	}
	if b := readyBound(a, 5*time.Minute); time.Duration(b.Fake.Timeout) != 90*time.Second {
		t.Errorf("bound above fake.timeout: %v", b.Fake.Timeout)
	}
	if b := readyBound(&cfgschema.Adapter{}, 5*time.Second); time.Duration(b.Fake.Timeout) != 5*time.Second {
		t.Errorf("no fake.timeout: %v", b.Fake.Timeout)
	}
}

// TestLogTailRedactsKnownKeys: the fake's last lines, quoted in a
// run-level error, hold no key of a known format (the reports would then
// refuse to be written, and the run end with two exit codes).
func TestLogTailRedactsKnownKeys(t *testing.T) {
	got := lastLines("starting\ntoken ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4c\n", 15)
	if strings.Contains(got, "ghp_") || !strings.Contains(got, "token [REDACTED]") {
		t.Errorf("lastLines = %q", got)
	}
}
