//go:build unix

package recording

import (
	"syscall"
	"testing"
)

// mkfifo puts a named pipe at path.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}
