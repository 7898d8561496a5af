//go:build unix

package verify

import "syscall"

// peekOpen peeks at the connection without waiting: open while nothing
// is there to read (no end of file, no unasked bytes).
func peekOpen(rc syscall.RawConn) bool {
	open := false
	var b [1]byte
	if err := rc.Read(func(fd uintptr) bool {
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		open = n < 0 && (err == syscall.EAGAIN || err == syscall.EWOULDBLOCK)
		return true // never wait for the poller
	}); err != nil {
		return false
	}
	return open
}
