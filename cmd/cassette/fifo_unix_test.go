//go:build unix

package main

import (
	"io/fs"
	"syscall"
	"testing"

	"github.com/cassette-dev/cassette/internal/procgroup"
)

// mkfifo puts a named pipe at path.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}

// copyFIFO makes a named pipe at to with perm, as copyTree copies one.
func copyFIFO(to string, perm fs.FileMode) error { return syscall.Mkfifo(to, uint32(perm)) }

// interruptGroup sends SIGINT to the process group pid leads, as a
// terminal's Ctrl-C does.
func interruptGroup(t *testing.T, pid int) {
	t.Helper()
	if err := procgroup.Signal(pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
}
