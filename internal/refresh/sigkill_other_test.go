//go:build !unix

package refresh

import (
	"os"
	"testing"
)

// needSIGKILL skips the test: a child killed by SIGKILL (a crash), told
// apart from one that failed by its wait status, is unix only.
func needSIGKILL(t *testing.T) {
	t.Helper()
	t.Skip("a child killed by SIGKILL is unix only")
}

// killSelf is never reached (needSIGKILL skipped the test that starts the
// child): it ends the process all the same.
func killSelf() { os.Exit(2) }
