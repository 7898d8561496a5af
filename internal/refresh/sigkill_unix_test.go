//go:build unix

package refresh

import (
	"os"
	"syscall"
	"testing"
)

// needSIGKILL lets a test whose child dies by SIGKILL (a crash) run.
func needSIGKILL(*testing.T) {}

// killSelf ends this process by SIGKILL, as a crash would: nothing of it
// runs after the signal.
func killSelf() { syscall.Kill(os.Getpid(), syscall.SIGKILL) }
