//go:build unix

package cassettes

import (
	"syscall"
	"testing"
)

// mkfifo puts a named pipe at path, or skips the test where the file
// system cannot hold one.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
}
