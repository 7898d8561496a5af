package recording

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The supervisor (Linux). The parent-death signal reaches only the
// process record started, never what that process started in turn (a
// shell's children), so record does not start the command itself: it
// starts this binary again as a supervisor, the leader of the command's
// process group. The supervisor runs the command in its group (with the
// parent-death signal, should the supervisor alone be killed), and holds
// one end of a socket pair whose other end only record holds: when record
// is gone, by any means (SIGKILL included), the supervisor reads the end
// of it and kills the whole group, itself included. Otherwise it is not
// seen: the command has its stdin, stdout, stderr, environment and
// arguments as record gave them; the signals record passes on reach the
// command through the group, while the supervisor ignores them; and it
// ends as the command did, with its exit code or by its signal, so that
// record sees the same wait status.
//
// Only a binary that calls Supervise first thing in main (cassette, and
// the test binaries that record) is started again this way; in any other
// program the recorder starts the command as before.

// superviseArg is the hidden first argument of a supervisor.
const superviseArg = "__cassette-supervise"

// superviseFd is the supervisor's end of the socket pair (ExtraFiles[0]).
const superviseFd = 3

// supervised says that this binary runs as a supervisor when asked.
var supervised atomic.Bool

// Supervise is the recorder's part of main. In a process the recorder
// started as a supervisor it runs the recorded command and exits as it
// did; anywhere else it returns at once, and from then on the recorder
// runs each command it records under a supervisor. Call it before
// anything else in main, and in the TestMain of a test binary that runs
// this program (or records CLIs).
func Supervise() {
	if len(os.Args) > 1 && os.Args[1] == superviseArg {
		os.Exit(supervise(os.Args[2:]))
	}
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		supervised.Store(true)
	}
}

// startChild starts cmd in a process group of its own: under a
// supervisor when this binary can be one, else as childAttr says. done,
// called once cmd has ended, lets the supervisor go.
func startChild(cmd *exec.Cmd) (done func(), err error) {
	if !supervised.Load() || cmd.Err != nil {
		cmd.SysProcAttr = childAttr()
		return func() {}, cmd.Start()
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("supervisor of %s: %w", cmd.Path, err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "supervisor"), os.NewFile(uintptr(fds[1]), "supervisor")
	path := cmd.Path
	cmd.Path = "/proc/self/exe" // this binary, even if replaced since
	cmd.Args = append([]string{os.Args[0], superviseArg, path}, cmd.Args...)
	cmd.ExtraFiles = []*os.File{theirs}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	theirs.Close()
	if err != nil {
		ours.Close()
		return nil, err
	}
	// The supervisor's word: 0 once the command runs, else the errno
	// of its exec, which is this start's error as it was without it.
	line, _ := bufio.NewReader(ours).ReadString('\n')
	if n, _ := strconv.Atoi(line[:max(len(line)-1, 0)]); n != 0 {
		ours.Close()
		_ = cmd.Wait()
		return nil, &os.PathError{Op: "fork/exec", Path: path, Err: syscall.Errno(n)}
	}
	return func() { ours.Close() }, nil
}

// supervise runs args (path, argv...) in this process's group and returns
// its exit code, or ends by its signal.
func supervise(args []string) int {
	var st syscall.Stat_t
	if len(args) < 2 || syscall.Fstat(superviseFd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFSOCK || syscall.Getpgrp() != os.Getpid() {
		fmt.Fprintf(os.Stderr, "cassette: %s is how cassette record runs a command, not a command; run: cassette record --help\n", superviseArg)
		return 2
	}
	syscall.CloseOnExec(superviseFd)
	peer := os.NewFile(superviseFd, "recorder")
	ignoreGroupSignals()
	cmd := &exec.Cmd{Path: args[0], Args: args[1:], Env: os.Environ(),
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		SysProcAttr: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}}
	if err := cmd.Start(); err != nil {
		errno := syscall.EINVAL
		errors.As(err, &errno)
		fmt.Fprintf(peer, "%d\n", int(errno))
		return 127
	}
	fmt.Fprintf(peer, "0\n")
	go func() {
		_, _ = io.Copy(io.Discard, peer) // until record is gone
		_ = syscall.Kill(-os.Getpid(), syscall.SIGKILL)
	}()
	_ = cmd.Wait()
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return dieBy(ws.Signal())
	}
	return ws.ExitStatus()
}

// ignoreGroupSignals keeps the supervisor running through the signals
// sent to the group: they are the command's, which gets them itself. Each
// is caught, not ignored, so that the command starts with the dispositions
// it had without a supervisor (an ignored SIGHUP stays ignored); the stop
// signals are left alone.
func ignoreGroupSignals() {
	c := make(chan os.Signal, 1)
	for sig := syscall.Signal(1); sig < 32; sig++ {
		switch sig {
		case syscall.SIGKILL, syscall.SIGSTOP, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU, syscall.SIGCONT:
		default:
			if !signal.Ignored(sig) {
				signal.Notify(c, sig)
			}
		}
	}
}

// dieBy ends this process by sig, its default action restored (no core
// dump): what a shell does when its command died by a signal. The signal
// is sent to this thread, with it unblocked: sent to the process, it may
// wait pending while os.Exit runs. dieBy returns 128+sig should the signal
// not end the process.
func dieBy(sig syscall.Signal) int {
	runtime.LockOSThread()
	_ = unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{})
	var dfl [8]uint64 // a struct sigaction of zeros: SIG_DFL, no flags, an empty mask
	_, _, _ = unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&dfl)), 0, 8, 0, 0)
	var set unix.Sigset_t
	set.Val[0] = 1 << (sig - 1)
	_ = unix.PthreadSigmask(unix.SIG_UNBLOCK, &set, nil)
	_ = unix.Tgkill(unix.Getpid(), unix.Gettid(), sig)
	return 128 + int(sig)
}
