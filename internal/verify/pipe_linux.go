//go:build linux

package verify

import (
	"os"
	"syscall"
)

// outputPipe is the pipe of a fake's output: the read end on the
// runtime's poller, the write end (the fake's stdout and stderr) a
// blocking descriptor that is never polled. os.Pipe made both ends
// nonblocking and registered both with the poller; the write end was then
// set blocking again by Fd and taken out of the poller by its Close: five
// system calls a fresh fake spent for nothing.
func outputPipe() (r, w *os.File, err error) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	if err := syscall.SetNonblock(p[0], true); err != nil {
		syscall.Close(p[0])
		syscall.Close(p[1])
		return nil, nil, os.NewSyscallError("fcntl", err)
	}
	return os.NewFile(uintptr(p[0]), "|0"), os.NewFile(uintptr(p[1]), "|1"), nil
}
