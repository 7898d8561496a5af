//go:build unix

package interrupt

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// TestReadingEndsAtTheSignal: a SIGINT while the phase is held ends it
// with E_INTERRUPTED (exit 3) and the next step given; the read never runs.
func TestReadingEndsAtTheSignal(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "hold.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvTestHold, fifo)
	ran := false
	got := make(chan error, 1)
	go func() { got <- Reading("reading", "cassette coverage", func() error { ran = true; return nil }) }()
	if _, err := os.ReadFile(fifo); err != nil { // returns once the phase said it is ready
		t.Fatal(err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := <-got
	var e *outcome.Error
	if !errors.As(err, &e) || e.Reason != outcome.EInterrupted || e.Exit() != outcome.ExitInfra || e.NextStep != "cassette coverage" || ran {
		t.Fatalf("Reading: %v (ran %v), want E_INTERRUPTED with its next step, read never run", err, ran)
	}
}

// TestReadingReturnsTheRead: without a signal, Reading is the read.
func TestReadingReturnsTheRead(t *testing.T) {
	want := errors.New("no run.json")
	if err := Reading("reading", "again", func() error { return want }); err != want {
		t.Fatalf("Reading: %v, want the read's own error", err)
	}
}
