//go:build unix

package shimcall

import (
	"errors"
	"strings"
	"syscall"
	"unsafe"
)

// rawRead is read(2) without the scheduler's handing this thread's work
// to another while it blocks: the shim has nothing else to do while
// observe writes the call, and a handoff starts threads (4 more clones,
// 40 context switches a call, measured with perf stat).
func rawRead(fd int, p []byte) (int, error) {
	n, _, errno := syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if errno != 0 {
		return int(n), errno
	}
	return int(n), nil
}

// dial connects to the Unix socket at path (close-on-exec: the fake never
// holds it).
func dial(path string) (int, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0) // SOCK_CLOEXEC is Linux's alone
	if err != nil {
		return -1, err
	}
	syscall.CloseOnExec(fd) // no other goroutine forks here
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		syscall.Close(fd)
		return -1, err
	}
	return fd, nil
}

// hangUp closes a connection that sent nothing.
func hangUp(fd int) { syscall.Close(fd) }

// send writes req on fd, one line, then closes fd. With wait it first
// waits for observe's answer: "ok", or what stopped the call from being
// written; without, the call is observe's once the line is sent (the
// kernel holds it until observe reads it).
func send(fd int, req Request, wait bool) error {
	defer syscall.Close(fd)
	for line := append(req.AppendJSON(make([]byte, 0, 512)), '\n'); len(line) > 0; {
		n, err := syscall.Write(fd, line)
		if err != nil && err != syscall.EINTR {
			return err
		}
		line = line[max(n, 0):]
	}
	if !wait {
		return nil
	}
	var answer []byte
	var buf [256]byte
	for len(answer) < 4096 {
		n, err := rawRead(fd, buf[:])
		if err == syscall.EINTR {
			continue
		}
		if n <= 0 {
			break
		}
		answer = append(answer, buf[:n]...)
	}
	switch a := strings.TrimSpace(string(answer)); a {
	case "ok":
		return nil
	case "":
		return errors.New("observe did not answer")
	default:
		return errors.New(a)
	}
}
