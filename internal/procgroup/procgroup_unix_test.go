//go:build linux

package procgroup

import (
	"bufio"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKillEndsTheGroup: Kill of a child that leads its own group ends
// what it started too (a shell's background sleep); Signal 0 probes a
// running group.
func TestKillEndsTheGroup(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 1000 & echo $!; wait")
	cmd.SysProcAttr = Attr()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(out)
	line, err := r.ReadString('\n')
	sleeper, _ := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || sleeper == 0 {
		t.Fatalf("no pid from the shell: %q %v", line, err)
	}
	if err := Signal(cmd.Process.Pid, 0); err != nil {
		t.Fatalf("Signal 0 of a running group: %v", err)
	}
	if err := Kill(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	// the sleep holds the shell's stdout: the pipe ends once it has ended too
	ended := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, r); ended <- err }()
	select {
	case err := <-ended:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute): // a bound on a hang, not a timing
		_ = syscall.Kill(sleeper, syscall.SIGKILL)
		t.Fatalf("the group's background sleep (pid %d) outlived Kill", sleeper)
	}
	_ = cmd.Wait()
}
