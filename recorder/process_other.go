//go:build !linux

package recorder

import "syscall"

// childAttr puts the recorded command in a process group of its own (no
// parent-death signal outside Linux).
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
