package procgroup

import (
	"os"
	"syscall"
)

// Attr is the SysProcAttr of a child in a console process group of its
// own.
func Attr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// Signal ends the process pid (Windows has no signals to send); 0 probes
// whether it can still be opened.
func Signal(pid int, sig syscall.Signal) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	defer p.Release()
	if sig == 0 {
		return nil
	}
	return p.Kill()
}

// Kill ends the process pid.
func Kill(pid int) error { return Signal(pid, syscall.SIGKILL) }

// Continue does nothing: Windows does not stop processes on a terminal.
func Continue(int) error { return nil }
