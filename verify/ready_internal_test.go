package verify

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"
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
	p := &Process{BaseURL: srv.URL, cmd: &exec.Cmd{}, exited: make(chan struct{}),
		out: &fakeOutput{lines: make(chan struct{}, 1)}, tr: &http.Transport{},
		pace: readyPace{first: time.Hour, start: time.Hour, max: time.Hour}}
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

// TestLogTailRedactsKnownKeys: the fake's last lines, quoted in a
// run-level error, hold no key of a known format (the reports would then
// refuse to be written, and the run end with two exit codes).
func TestLogTailRedactsKnownKeys(t *testing.T) {
	got := lastLines("starting\ntoken ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4c\n", 15)
	if strings.Contains(got, "ghp_") || !strings.Contains(got, "token [REDACTED]") {
		t.Errorf("lastLines = %q", got)
	}
}
