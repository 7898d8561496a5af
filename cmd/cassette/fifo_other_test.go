//go:build !unix

package main

import (
	"errors"
	"io/fs"
	"testing"
)

// mkfifo skips the test: named pipes in the file system are unix only.
func mkfifo(t *testing.T, _ string) {
	t.Helper()
	t.Skip("named pipes (mkfifo) are unix only")
}

// copyFIFO fails: no named pipe is made outside unix, so none is found to
// copy.
func copyFIFO(string, fs.FileMode) error { return errors.ErrUnsupported }

// interruptGroup skips the test: a Ctrl-C sent to a process group
// (SIGINT) is unix only.
func interruptGroup(t *testing.T, _ int) {
	t.Helper()
	t.Skip("a SIGINT to a process group is unix only")
}
