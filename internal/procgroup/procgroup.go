// Package procgroup runs a child process in a process group of its own
// and signals the group as one, so that what the child started (a shell's
// children, `go run`'s program) is stopped with it: the one place that
// knows how a platform does that, for verify's fakes and the recorder's
// commands.
//
// Decisions:
//
//   - Command starts one program again and again (verify's fresh fake of
//     each case): on Linux with syscall.StartProcess, reaped through the
//     child's pidfd on the runtime's poller (start_linux.go), elsewhere as
//     an exec.Cmd; the recorder's commands, which need exec.Cmd's pipes
//     and context, use Attr with exec.Cmd.
//   - On Unix the group is the child's own (Setpgid); a signal goes to
//     -pid, so that it reaches every process of the group.
//   - Windows has neither process groups of that kind nor signals: the
//     child gets a console process group of its own
//     (CREATE_NEW_PROCESS_GROUP, so that a Ctrl-C in cassette's console
//     is not also its own), and every signal but 0 ends the child itself
//     (TerminateProcess). What it started may outlive it: a gap, said in
//     docs/reference/deviations.md. Continue does nothing.
package procgroup

import "os/exec"

// KillFunc is a Cmd.Cancel that kills cmd's group.
func KillFunc(cmd *exec.Cmd) func() error {
	return func() error { return Kill(cmd.Process.Pid) }
}
