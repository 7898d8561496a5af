//go:build !linux

package recording

import "os/exec"

// Supervise is the recorder's part of main; outside Linux there is no
// supervisor (see supervise_linux.go) and it does nothing.
func Supervise() {}

// startChild starts cmd in a process group of its own.
func startChild(cmd *exec.Cmd) (done func(), err error) {
	cmd.SysProcAttr = childAttr()
	return func() {}, cmd.Start()
}
