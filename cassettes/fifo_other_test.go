//go:build !unix

package cassettes

import "testing"

// mkfifo skips the test: named pipes in the file system are unix only.
func mkfifo(t *testing.T, _ string) {
	t.Helper()
	t.Skip("named pipes (mkfifo) are unix only")
}
