//go:build unix

package procgroup

import "syscall"

// Attr is the SysProcAttr of a child that leads a process group of its own.
func Attr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// Signal sends sig to every process of the group that pid leads (0
// probes: nil while the group has a process).
func Signal(pid int, sig syscall.Signal) error { return syscall.Kill(-pid, sig) }

// Kill kills every process of the group that pid leads.
func Kill(pid int) error { return syscall.Kill(-pid, syscall.SIGKILL) }

// Continue resumes the group's stopped processes (a command stopped on the
// terminal), so that a signal sent to it is heard.
func Continue(pid int) error { return syscall.Kill(-pid, syscall.SIGCONT) }
