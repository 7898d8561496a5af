package recorder

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
)

// interruptRun records sh -c script, sends sigs once the script has
// written to the FIFO $READY (its readiness, not a sleep), and returns the
// error.
func interruptRun(t *testing.T, script string, grace time.Duration, sigs ...os.Signal) error {
	t.Helper()
	ready := filepath.Join(t.TempDir(), "ready")
	if err := syscall.Mkfifo(ready, 0o600); err != nil {
		t.Fatal(err)
	}
	ch := make(chan os.Signal, len(sigs))
	errc := make(chan error, 1)
	go func() {
		_, err := RecordCLI(context.Background(), CLIOptions{Meta: Meta{Adapter: "sh", Scenario: "s", Now: fixedNow},
			Command: "sh", Args: []string{"-c", script}, Environ: append(os.Environ(), "READY="+ready),
			Signals: ch, InterruptGrace: grace})
		errc <- err
	}()
	if _, err := os.ReadFile(ready); err != nil {
		t.Fatal(err)
	}
	for _, s := range sigs {
		ch <- s
	}
	select {
	case err := <-errc:
		return err
	case <-time.After(time.Minute):
		t.Fatal("RecordCLI did not return")
		return nil
	}
}

// TestRecordCLIInterrupted: a signal passed on ends the run as
// E_INTERRUPTED, and no cassette comes back; a command that ignores it is
// killed after the grace, or at a second signal, however long the grace.
func TestRecordCLIInterrupted(t *testing.T) {
	interrupted := func(t *testing.T, err error) {
		t.Helper()
		var ce *cassettes.Error
		if !errors.As(err, &ce) || ce.Reason != cassettes.EInterrupted || ce.NextStep == "" {
			t.Fatalf("got %v, want E_INTERRUPTED with a next step", err)
		}
	}
	t.Run("passed on", func(t *testing.T) {
		interrupted(t, interruptRun(t, `trap 'exit 0' INT; echo > "$READY"; sleep 1000 & wait $!`, 0, syscall.SIGINT))
	})
	t.Run("ignored, killed after the grace", func(t *testing.T) {
		interrupted(t, interruptRun(t, `trap '' INT TERM; echo > "$READY"; exec sleep 1000`, time.Millisecond, syscall.SIGTERM))
	})
	t.Run("ignored, killed at a second signal", func(t *testing.T) {
		interrupted(t, interruptRun(t, `trap '' INT TERM; echo > "$READY"; exec sleep 1000`, time.Hour, syscall.SIGINT, syscall.SIGINT))
	})
	t.Run("a command that ends on its own is recorded", func(t *testing.T) {
		c, err := RecordCLI(context.Background(), CLIOptions{Meta: Meta{Adapter: "sh", Scenario: "s", Now: fixedNow},
			Command: "sh", Args: []string{"-c", "echo done"}, Signals: make(chan os.Signal)})
		if err != nil || !strings.Contains(string(c.Output.Stdout), "done") {
			t.Fatalf("got %v, %v", c, err)
		}
	})
}
