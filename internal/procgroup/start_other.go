//go:build !linux

package procgroup

import (
	"os"
	"os/exec"
)

// Elsewhere the child is an exec.Cmd, waited for by a goroutine.
func start(c *Command, dir string, env []string, out *os.File) (*Child, error) {
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, out, out
	cmd.SysProcAttr = Attr()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	ch := &Child{Pid: cmd.Process.Pid, done: make(chan struct{})}
	go func() {
		ch.err = cmd.Wait()
		ch.exited()
	}()
	return ch, nil
}
