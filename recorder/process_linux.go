package recorder

import "syscall"

// childAttr puts the recorded command in a process group of its own and
// has the kernel kill it when record dies (the parent-death signal).
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
