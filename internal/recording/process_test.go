package recording

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// interruptRun records sh -c script, sends sigs once the script has
// written to the FIFO $READY (its readiness, not a sleep), and returns the
// error.
func interruptRun(t *testing.T, script string, grace time.Duration, sigs ...os.Signal) error {
	t.Helper()
	ready := filepath.Join(t.TempDir(), "ready")
	mkfifo(t, ready)
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
		var ce *outcome.Error
		if !errors.As(err, &ce) || ce.Reason != outcome.EInterrupted || ce.NextStep == "" {
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

// TestRecordCLIStopsWhatItLeft: a process the command leaves running in
// its group when it exits (a shell's `sleep &`, which holds no output
// open) is stopped and named on Log, and the recording is what the
// command did; a command that leaves nothing behind gets no note.
func TestRecordCLIStopsWhatItLeft(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "pid")
	record := func(script string) (*cassettes.Cassette, string) {
		t.Helper()
		var log strings.Builder
		c, err := RecordCLI(context.Background(), CLIOptions{Meta: Meta{Adapter: "sh", Scenario: "s", Now: fixedNow},
			Command: "sh", Args: []string{"-c", script}, Environ: append(os.Environ(), "PIDFILE="+marker), Log: &log})
		if err != nil {
			t.Fatal(err)
		}
		return c, log.String()
	}
	c, log := record(`sleep 300 >/dev/null 2>&1 & echo $! > "$PIDFILE"; echo hi`)
	if string(c.Output.Stdout) != "hi\n" || c.Output.ExitCode != 0 {
		t.Errorf("output %q, exit %d; want hi and 0", c.Output.Stdout, c.Output.ExitCode)
	}
	data, err := os.ReadFile(marker)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if want := fmt.Sprintf("note: sh left sleep (pid %d) running in its process group when it exited; record stopped it", pid); runtime.GOOS == "linux" && !strings.Contains(log, want) { // named from /proc
		t.Errorf("log = %q, want it to hold %q", log, want)
	}
	// SIGKILL is delivered asynchronously, and the killed process is a
	// zombie until init reaps it: wait, bounded, for it to be either.
	deadline := time.Now().Add(10 * time.Second)
	for {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			break
		}
		if f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:])); len(f) > 0 && (f[0] == "Z" || f[0] == "X") {
			break
		}
		if time.Now().After(deadline) {
			if p, err := os.FindProcess(pid); err == nil {
				p.Kill()
			}
			t.Fatalf("sleep (pid %d), left by the recorded command, still runs after record returned", pid)
		}
		runtime.Gosched()
	}
	if _, log := record(`echo hi`); log != "" {
		t.Errorf("a command that left nothing: log = %q, want nothing", log)
	}
}
