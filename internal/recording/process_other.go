//go:build !linux

package recording

import (
	"syscall"

	"github.com/cassette-dev/cassette/internal/procgroup"
)

// childAttr puts the recorded command in a process group of its own (no
// parent-death signal outside Linux).
func childAttr() *syscall.SysProcAttr { return procgroup.Attr() }

// groupMembers names the processes of a group that still run: only on
// Linux (from /proc); elsewhere none are named, and they are stopped all
// the same.
func groupMembers(int) []string { return nil }

// groupAlive cannot tell without /proc: a group sent SIGTERM may still
// have a process.
func groupAlive(int) bool { return true }
