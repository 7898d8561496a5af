package recording

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSupervisedRecording: under its supervisor a recorded command gets
// its arguments, stdin and environment as record gives them, and what it
// printed and its exit code are recorded as they were.
func TestSupervisedRecording(t *testing.T) {
	if !supervised.Load() {
		t.Fatal("this test binary does not run as a supervisor (TestMain calls Supervise)")
	}
	c, err := RecordCLI(context.Background(), CLIOptions{Meta: Meta{Adapter: "sh", Scenario: "s", Now: fixedNow},
		Command: "sh", Args: []string{"-c", `read x; echo "out $x $1 $V"; echo err >&2; tr '\0' ' ' < /proc/$PPID/cmdline >&2; exit 7`, "sh", "two words"},
		Stdin: []byte("in\n"), Env: map[string]string{"V": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(c.Output.Stdout); got != "out in two words v\n" {
		t.Errorf("stdout %q", got)
	}
	if got := string(c.Output.Stderr); !strings.HasPrefix(got, "err\n") || !strings.Contains(got, " "+superviseArg+" ") {
		t.Errorf("stderr %q: not err, then the supervisor's command line", got)
	}
	if c.Output.ExitCode != 7 {
		t.Errorf("exit code %d, want 7", c.Output.ExitCode)
	}
}

// TestSupervisedSignal: a command that dies by a signal is seen dying by
// it, as without a supervisor (the supervisor dies by the same signal).
func TestSupervisedSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT,
		syscall.SIGPIPE, syscall.SIGUSR1, syscall.SIGABRT, syscall.SIGSEGV, syscall.SIGKILL} {
		opts := CLIOptions{Command: "sh", Args: []string{"-c", "kill -" + strconv.Itoa(int(sig)) + " $$"}}
		r := opts.run(context.Background(), os.Environ())
		var exitErr *exec.ExitError
		if !errors.As(r.err, &exitErr) {
			t.Errorf("%s: got %v, want an exit status", sig, r.err)
			continue
		}
		if ws := exitErr.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != sig {
			t.Errorf("%s: got %v", sig, exitErr)
		}
	}
}

// TestSupervisorKillsTheGroup: once record's end of the socket pair is
// closed (as the kernel closes it when record dies, SIGKILL included) the
// supervisor kills the whole group: the command and what it started.
func TestSupervisorKillsTheGroup(t *testing.T) {
	ready := filepath.Join(t.TempDir(), "ready")
	if err := syscall.Mkfifo(ready, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", `sleep 1000 & echo "$$ $!" > "$1"; wait $!`, "sh", ready)
	done, err := startChild(cmd)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(ready) // blocks until the command is running
	if err != nil {
		t.Fatal(err)
	}
	pids := strings.Fields(string(data))
	if len(pids) != 2 {
		t.Fatalf("the command wrote %q", data)
	}
	done()
	err = cmd.Wait()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the supervisor ended with %v, want killed", err)
	}
	for _, p := range pids {
		pid, _ := strconv.Atoi(p)
		deadline := time.Now().Add(time.Minute)
		for !ended(pid) { // polled: the kernel says nothing when it is gone
			if time.Now().After(deadline) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("process %d outlived the supervisor", pid)
			}
			runtime.Gosched()
		}
	}
}

// ended says whether process pid has ended: it is no more, or a zombie
// nobody has reaped yet.
func ended(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if errors.Is(err, os.ErrNotExist) {
		return true
	}
	i := bytes.LastIndexByte(stat, ')')
	return i > 0 && len(stat) > i+2 && stat[i+2] == 'Z'
}
