//go:build unix

package procgroup

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// run starts script under sh with env, returns its output once the
// output pipe closes, and the child.
func run(t *testing.T, script string, env ...string) (string, *Child) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c, err := NewCommand([]string{"sh", "-c", script}).Start(t.TempDir(), env, w)
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(out), c
}

// TestStartRunsAndReaps: the child gets dir, env and /dev/null as its
// input; Done closes once it exited, and Err words its status as
// exec.ExitError does.
func TestStartRunsAndReaps(t *testing.T) {
	out, c := run(t, `pwd; echo "$GREETING"; cat; exit 3`, "GREETING=hello", "PATH="+os.Getenv("PATH"))
	<-c.Done()
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 2 || lines[1] != "hello" {
		t.Errorf("output %q: want the directory and hello, nothing read from stdin", out)
	}
	if err := c.Err(); err == nil || err.Error() != "exit status 3" {
		t.Errorf("Err = %v, want exit status 3", err)
	}
	_, ok := run(t, "exit 0", "PATH="+os.Getenv("PATH"))
	if <-ok.Done(); ok.Err() != nil {
		t.Errorf("Err of exit 0 = %v, want nil", ok.Err())
	}
}

// TestStartedChildLeadsItsGroup: Kill of a started child's Pid ends what
// it started too (the pipe closes only once the background sleep is
// gone), and Err says it was killed.
func TestStartedChildLeadsItsGroup(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c, err := NewCommand([]string{"sh", "-c", "sleep 1000 & echo up; wait"}).Start("", []string{"PATH=" + os.Getenv("PATH")}, w)
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 3)
	if _, err := io.ReadFull(r, b); err != nil || string(b) != "up\n" {
		t.Fatalf("read %q, %v", b, err)
	}
	if err := Kill(c.Pid); err != nil {
		t.Fatal(err)
	}
	<-c.Done()
	if _, err := io.ReadAll(r); err != nil { // EOF: no process of the group holds the pipe
		t.Fatal(err)
	}
	if err := c.Err(); err == nil || err.Error() != "signal: killed" {
		t.Errorf("Err = %v, want signal: killed", err)
	}
}

// TestStartOfAMissingProgram fails as exec.Cmd's Start does: a name not
// in PATH is exec.ErrNotFound, a path that is not there fs.ErrNotExist.
func TestStartOfAMissingProgram(t *testing.T) {
	_, err := NewCommand([]string{"cassette-no-such-program"}).Start("", nil, os.Stderr)
	if !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("Start of a name not in PATH: %v, want exec.ErrNotFound", err)
	}
	_, err = NewCommand([]string{"./no/such/program"}).Start(t.TempDir(), nil, os.Stderr)
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Start of a missing path: %v, want not exist", err)
	}
}

// TestAfterExitRunsOnceReaped: AfterExit's function runs once the child
// was reaped (Done closed, Err set), not before, and runs at once, on the
// caller's goroutine, for a child already reaped.
func TestAfterExitRunsOnceReaped(t *testing.T) {
	c, err := NewCommand([]string{"sleep", "1000"}).Start("", []string{"PATH=" + os.Getenv("PATH")}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan string, 1)
	c.AfterExit(func() {
		select {
		case <-c.Done():
			ran <- fmt.Sprint(c.Err())
		default:
			ran <- "ran before Done was closed"
		}
	})
	select {
	case got := <-ran:
		t.Fatalf("AfterExit's function ran while the child runs: %s", got)
	default:
	}
	if err := Kill(c.Pid); err != nil {
		t.Fatal(err)
	}
	if got := <-ran; got != "signal: killed" {
		t.Errorf("AfterExit's function saw %q, want Done closed and Err signal: killed", got)
	}
	now := false
	c.AfterExit(func() { now = true })
	if !now {
		t.Error("AfterExit of a reaped child did not run its function at once")
	}
}
