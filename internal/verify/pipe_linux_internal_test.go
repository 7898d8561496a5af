//go:build linux

package verify

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// TestOutputPipeEnds: the fake's end of its output pipe is blocking (a
// fake's writes never see EAGAIN) and verify's end is on the poller: a
// read blocked on it ends when verify closes it although a writer (a
// child that left the fake's group) still holds the pipe, as
// fakeOutput.close needs.
func TestOutputPipeEnds(t *testing.T) {
	r, w, err := outputPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	flags := func(f *os.File) int {
		rc, err := f.SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		var fl int
		_ = rc.Control(func(fd uintptr) {
			r1, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
			if errno != 0 {
				t.Fatal(errno)
			}
			fl = int(r1)
		})
		return fl
	}
	if flags(w)&syscall.O_NONBLOCK != 0 {
		t.Error("the fake's end of the pipe is nonblocking")
	}
	if _, err := w.Write([]byte("line\n")); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 16)
	if n, err := r.Read(b); err != nil || string(b[:n]) != "line\n" {
		t.Fatalf("read %q, %v", b[:n], err)
	}
	ended := make(chan error, 1)
	go func() { _, err := r.Read(b); ended <- err }()
	r.Close()
	select {
	case err := <-ended:
		if err == nil {
			t.Error("the read of a closed end returned no error")
		}
	case <-time.After(time.Minute): // a bound on a hang, not a timing
		t.Fatal("closing verify's end did not end a read blocked on it: it is not on the poller")
	}
}
