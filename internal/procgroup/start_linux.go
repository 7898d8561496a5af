//go:build linux

package procgroup

import (
	"errors"
	"os"
	"strconv"
	"sync"
	"syscall"
)

// On Linux the child is started with syscall.StartProcess (no exec.Cmd:
// no /dev/null opened per child, no environment copied and deduplicated
// again, no dup of the pidfd os.Process keeps for itself) and reaped by a
// goroutine parked on the runtime's poller until its pidfd is readable
// (the child exited), then wait4(WNOHANG). A cmd.Wait per child held an
// OS thread in a blocking waitid for the child's whole life, and the
// runtime's monitor took each of those Ps back, waking every 20 µs: a
// tenth of verify's own CPU when it starts a fake per case. A kernel
// without pidfds (before 5.3) gets the blocking wait4.

// devNull is the children's standard input, opened once (close-on-exec:
// only the children's fd 0 is it).
var devNull = sync.OnceValues(func() (*os.File, error) { return os.Open(os.DevNull) })

func start(c *Command, dir string, env []string, out *os.File) (*Child, error) {
	in, err := devNull()
	if err != nil {
		return nil, err
	}
	pidfd := -1
	sys := Attr()
	sys.PidFD = &pidfd
	fd := out.Fd()
	pid, _, err := syscall.StartProcess(c.path, c.argv, &syscall.ProcAttr{Dir: dir, Env: env,
		Files: []uintptr{in.Fd(), fd, fd}, Sys: sys})
	if err != nil {
		return nil, &os.PathError{Op: "fork/exec", Path: c.path, Err: err}
	}
	ch := &Child{Pid: pid, done: make(chan struct{})}
	if pidfd >= 0 && syscall.SetNonblock(pidfd, true) == nil {
		f := os.NewFile(uintptr(pidfd), "pidfd")
		if rc, err := f.SyscallConn(); err == nil {
			go ch.reapPolled(f, rc)
			return ch, nil
		}
		f.Close()
	} else if pidfd >= 0 {
		syscall.Close(pidfd)
	}
	go ch.reap()
	return ch, nil
}

// reapPolled waits on the poller until the pidfd is readable, then reaps
// the child; a pidfd the poller does not take falls back to a blocking
// wait.
func (c *Child) reapPolled(f *os.File, rc syscall.RawConn) {
	var reaped bool
	// wait4 first, then the poller: Read forgets a readiness the poller
	// saw before it began (a child that exited at once), so the first
	// call must look for itself.
	err := rc.Read(func(uintptr) bool {
		reaped = c.wait(syscall.WNOHANG)
		return reaped
	})
	f.Close()
	if err != nil || !reaped {
		c.reap()
		return
	}
	c.exited()
}

// reap waits for the child, blocking.
func (c *Child) reap() {
	c.wait(0)
	c.exited()
}

// wait calls wait4 once; it reports whether the child was reaped (or
// cannot be waited for), setting err.
func (c *Child) wait(opts int) bool {
	var ws syscall.WaitStatus
	pid, err := syscall.Wait4(c.Pid, &ws, opts, nil)
	for errors.Is(err, syscall.EINTR) {
		pid, err = syscall.Wait4(c.Pid, &ws, opts, nil)
	}
	switch {
	case err != nil:
		c.err = os.NewSyscallError("wait4", err)
		return true
	case pid == 0: // WNOHANG: still running
		return false
	}
	c.err = exitError(ws)
	return true
}

// exitError words a wait status as os.ProcessState does; nil for exit 0.
func exitError(ws syscall.WaitStatus) error {
	res := ""
	switch {
	case ws.Exited():
		if ws.ExitStatus() == 0 {
			return nil
		}
		res = "exit status " + strconv.Itoa(ws.ExitStatus())
	case ws.Signaled():
		res = "signal: " + ws.Signal().String()
	case ws.Stopped():
		res = "stop signal: " + ws.StopSignal().String()
	case ws.Continued():
		res = "continued"
	}
	if ws.CoreDump() {
		res += " (core dumped)"
	}
	return errors.New(res)
}
