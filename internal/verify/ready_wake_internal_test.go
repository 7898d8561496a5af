//go:build unix

package verify

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/internal/procgroup"
)

// TestReadyWaitEndsWhenTheFakeExits: the wait for a fake's line, a read on
// the waiting goroutine, ends when the fake exits even though its output
// has not ended (a child it left holds the pipe), and when the wait's
// context ends; the polls are an hour apart, so only the exit or the
// context can end either.
func TestReadyWaitEndsWhenTheFakeExits(t *testing.T) {
	hour := readyPace{first: time.Hour, start: time.Hour, max: time.Hour}
	start := func(script string) *Process {
		r, w, err := outputPipe()
		if err != nil {
			t.Fatal(err)
		}
		c, err := procgroup.NewCommand([]string{"sh", "-c", script}).Start("", []string{"PATH=" + os.Getenv("PATH")}, w)
		w.Close()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = procgroup.Kill(c.Pid) })
		return &Process{BaseURL: "http://127.0.0.1:1", child: c, exited: c.Done(), out: newFakeOutput(r, nil),
			tr: newFakeTransport(), pace: hour, hint: &readyHint{}}
	}
	p := start("sleep 300 & exit 3") // the sleep holds the output open
	err := p.waitReady(context.Background(), "/healthz", time.Hour)
	if err == nil || !strings.Contains(err.Error(), "the fake exited") || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("a fake that exited: %v", err)
	}
	p.Stop()

	p = start("exec sleep 300")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.waitReady(ctx, "/healthz", time.Hour) }()
	cancel()
	if err := <-done; err == nil || !strings.Contains(err.Error(), "not ready after waiting") {
		t.Errorf("a wait whose context ended: %v", err)
	}
	p.Stop()
}
