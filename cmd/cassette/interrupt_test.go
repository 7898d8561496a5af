package main

import (
	"bytes"
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

	"github.com/cassette-dev/cassette/internal/procgroup"
)

// A project with one cli adapter whose real command is sh, for recording
// shell scripts that say when they are ready through a FIFO.
const shProject = `version: 1
adapters:
  sh:
    kind: cli
    real: {command: [sh]}
    fake: {command: [sh]}
`

// shProjectDir writes the project and a FIFO named ready in a new
// directory, and returns both.
func shProjectDir(t *testing.T) (dir, ready string) {
	t.Helper()
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cassette.yaml"), []byte(shProject), 0o644); err != nil {
		t.Fatal(err)
	}
	ready = filepath.Join(dir, "ready.fifo")
	mkfifo(t, ready)
	return dir, ready
}

// started is a cassette process started in a process group of its own (as
// a shell starts a foreground job), with what it prints.
type started struct {
	cmd      *exec.Cmd
	out, err bytes.Buffer
	done     chan struct{}
}

func startRecord(t *testing.T, dir string, args ...string) *started {
	t.Helper()
	s := &started{cmd: exec.Command("cassette", args...), done: make(chan struct{})}
	s.cmd.Dir = dir
	s.cmd.Env = append(os.Environ(), "NO_COLOR=1", "CASSETTE_CA_DIR="+filepath.Join(t.TempDir(), "ca"))
	s.cmd.Stdout, s.cmd.Stderr = &s.out, &s.err
	s.cmd.SysProcAttr = procgroup.Attr()
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.cmd.Wait(); close(s.done) }()
	t.Cleanup(func() {
		_ = procgroup.Kill(s.cmd.Process.Pid)
		<-s.done
	})
	return s
}

// wait waits for the process to end and returns its exit code.
func (s *started) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-s.done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("cassette %s did not end; it printed:\n%s%s", strings.Join(s.cmd.Args[1:], " "), s.out.String(), s.err.String())
	}
	return s.cmd.ProcessState.ExitCode()
}

// readLine reads what the recorded command writes to the FIFO once it is
// ready (blocking until it opens it: readiness, not a sleep).
func readLine(t *testing.T, fifo string) string {
	t.Helper()
	data, err := os.ReadFile(fifo)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}

// gone waits until process pid has ended (it is no more, or a zombie that
// nobody has reaped yet).
func gone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if errors.Is(err, os.ErrNotExist) {
			return
		}
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && len(stat) > i+2 && stat[i+2] == 'Z' {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d is still running: %s", pid, stat)
		}
		runtimeGosched()
	}
}

// noCassette checks that nothing was written under cassettes/ (no
// cassette, no temp file).
func noCassette(t *testing.T, dir string) {
	t.Helper()
	_ = filepath.WalkDir(filepath.Join(dir, "cassettes"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("written although interrupted: %s", p)
		}
		return nil
	})
}

// TestRecordCtrlC: Ctrl-C (SIGINT to record's process group, as a
// terminal sends it) during `record -- CMD` reaches the command once,
// through record; record waits for it to end, saves nothing, and exits 3
// with E_INTERRUPTED and the command that records it again. SIGTERM to
// record alone is passed on the same way.
func TestRecordCtrlC(t *testing.T) {
	for _, c := range []struct {
		name  string
		sig   syscall.Signal
		group bool
	}{{"SIGINT to the group", syscall.SIGINT, true}, {"SIGTERM to record", syscall.SIGTERM, false}} {
		t.Run(c.name, func(t *testing.T) {
			dir, ready := shProjectDir(t)
			script := `trap 'echo "child got $1" >&2; exit 130' INT TERM; sleep 1000 & echo "$!" > ` + ready + `; wait $!`
			script = strings.Replace(script, "$1", map[syscall.Signal]string{syscall.SIGINT: "INT", syscall.SIGTERM: "TERM"}[c.sig], 1)
			s := startRecord(t, dir, "record", "--adapter", "sh", "--scenario", "ctrl-c", "--", "sh", "-c", script)
			grandchild, _ := strconv.Atoi(readLine(t, ready))
			var err error
			if c.group {
				err = procgroup.Signal(s.cmd.Process.Pid, c.sig)
			} else {
				err = s.cmd.Process.Signal(c.sig)
			}
			if err != nil {
				t.Fatal(err)
			}
			code := s.wait(t)
			stderr := s.err.String()
			if code != 3 || !strings.Contains(stderr, "error[E_INTERRUPTED]") {
				t.Fatalf("exit %d, want 3 with E_INTERRUPTED:\n%s", code, stderr)
			}
			want := "child got " + map[syscall.Signal]string{syscall.SIGINT: "INT", syscall.SIGTERM: "TERM"}[c.sig]
			// Once, as a line of its own (sh may also say "Terminated" of
			// the sleep the signal reached through the group, before or
			// after its trap ran).
			lines := 0
			for _, l := range strings.Split(stderr, "\n") {
				if l == want {
					lines++
				}
			}
			if lines != 1 {
				t.Errorf("the command did not get the signal once (%s):\n%s", want, stderr)
			}
			if !strings.Contains(stderr, "\nnext: cassette record --adapter sh --scenario ctrl-c -- sh -c ") {
				t.Errorf("no next step that records it again:\n%s", stderr)
			}
			noCassette(t, dir)
			gone(t, grandchild) // what the command started ends with it
		})
	}
}

// TestRecordSIGKILL: a record that dies (SIGKILL, or SIGHUP, which it
// does not catch) takes its command with it, and everything the command
// started: nothing keeps running with credentials, nothing is saved.
func TestRecordSIGKILL(t *testing.T) {
	for _, c := range []struct {
		name, script string
		sig          syscall.Signal
	}{
		{"SIGKILL, the command itself", `echo "$$" > "$1"; exec sleep 1000`, syscall.SIGKILL},
		{"SIGKILL, what the command started", `sleep 1000 & echo "$$ $!" > "$1"; wait $!`, syscall.SIGKILL},
		{"SIGHUP, what the command started", `sleep 1000 & echo "$$ $!" > "$1"; wait $!`, syscall.SIGHUP},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, ready := shProjectDir(t)
			s := startRecord(t, dir, "record", "--adapter", "sh", "--scenario", "killed", "--", "sh", "-c", c.script, "sh", ready)
			var pids []int
			for _, f := range strings.Fields(readLine(t, ready)) {
				pid, err := strconv.Atoi(f)
				if err != nil {
					t.Fatal(err)
				}
				pids = append(pids, pid)
			}
			t.Cleanup(func() { // what a failing run left behind
				for _, pid := range pids {
					if t.Failed() {
						if p, err := os.FindProcess(pid); err == nil {
							_ = p.Kill()
						}
					}
				}
			})
			if err := s.cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			s.wait(t)
			for _, pid := range pids {
				gone(t, pid)
			}
			noCassette(t, dir)
		})
	}
}

// TestRecordOneWriter: while one record writes a cassette, a second one
// into the same cassette, and an import into its adapter, stop at once
// with E_LOCKED (exit 2) naming the first; a record of another cassette
// of the adapter runs beside it; the first then saves what it recorded.
func TestRecordOneWriter(t *testing.T) {
	dir, ready := shProjectDir(t)
	release := filepath.Join(dir, "go.fifo")
	mkfifo(t, release)
	first := startRecord(t, dir, "record", "--adapter", "sh", "--scenario", "shared", "--", "sh", "-c", `echo ready > `+ready+`; read x < `+release+`; echo first`)
	readLine(t, ready)
	pid := strconv.Itoa(first.cmd.Process.Pid)

	second := startRecord(t, dir, "record", "--adapter", "sh", "--scenario", "shared", "--", "sh", "-c", "echo second")
	if code := second.wait(t); code != 2 || !strings.Contains(second.err.String(), "error[E_LOCKED]") || !strings.Contains(second.err.String(), "process "+pid+" (") {
		t.Errorf("a second writer of the cassette: exit %d, want 2, E_LOCKED naming process %s:\n%s", code, pid, second.err.String())
	}
	govcr := filepath.Join(t.TempDir(), "src")
	os.MkdirAll(govcr, 0o755)
	os.WriteFile(filepath.Join(govcr, "x.yaml"), []byte("version: 2\ninteractions: []\n"), 0o644)
	imp := startRecord(t, dir, "import", "govcr", govcr, "--adapter", "sh")
	if code := imp.wait(t); code != 2 || !strings.Contains(imp.err.String(), "error[E_LOCKED]") {
		t.Errorf("an import into the adapter: exit %d, want 2, E_LOCKED:\n%s", code, imp.err.String())
	}
	other := startRecord(t, dir, "record", "--adapter", "sh", "--scenario", "other", "--", "sh", "-c", "echo other")
	if code := other.wait(t); code != 0 {
		t.Errorf("a record of another cassette of the adapter: exit %d:\n%s", code, other.err.String())
	}
	if err := os.WriteFile(release, []byte("go\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code := first.wait(t); code != 0 {
		t.Fatalf("the first writer: exit %d:\n%s", code, first.err.String())
	}
	data, err := os.ReadFile(filepath.Join(dir, "cassettes", "sh", "shared.yaml"))
	if err != nil || !bytes.Contains(data, []byte("first")) || bytes.Contains(data, []byte("second")) {
		t.Errorf("the cassette holds what the second writer said, or nothing (%v):\n%s", err, data)
	}
}

// runtimeGosched yields while polling /proc for a process that is ending.
func runtimeGosched() { runtime.Gosched() }
