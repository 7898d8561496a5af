package recording

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/cassette-dev/cassette/internal/procgroup"
)

// How a recorded command runs, and how it stops:
//
//   - in a process group of its own, so that record can signal it and
//     whatever it started (a shell's children) as one;
//   - under a supervisor (Linux, see supervise_linux.go) that kills the
//     whole group when record dies, even by SIGKILL: neither the command
//     nor anything it started keeps running with live credentials and
//     nobody to record it (in a program that does not call Supervise,
//     the command has the parent-death signal, which reaches it alone);
//   - a SIGINT or SIGTERM that record receives (CLIOptions.Signals; the
//     terminal's Ctrl-C reaches record, whose group the command has left)
//     is sent on to the command's group, with SIGCONT so that a command
//     stopped on the terminal hears it; a command that does not end within
//     InterruptGrace of it, or a second signal, ends by SIGKILL. An
//     interrupted run is no recording: RecordCLI returns E_INTERRUPTED and
//     the caller saves nothing;
//   - what the command leaves running in its group when it exits (a
//     shell's `server &`) is stopped then: SIGTERM, and SIGKILL once the
//     output is read (what it prints as it ends is still read, as before:
//     the output is read until it closes, pipeDelay at most). A process
//     left behind would go on with live credentials, talking to a proxy
//     that is gone. RecordCLI names on CLIOptions.Log what ran in the
//     group at the exit (Linux; elsewhere it stops it unnamed). What
//     leaves the group on purpose (setsid: git's detached maintenance, a
//     daemon) is not the recorder's to stop, and is not stopped.

// DefaultInterruptGrace is how long a recorded command may take to end
// after the signal record passed on to it.
const DefaultInterruptGrace = 5 * time.Second

// ran is one run of the child.
type ran struct {
	stdout, stderr []byte
	err            error     // from exec: an exit status, or why it did not start
	timedOut       bool      // killed at opts.Timeout
	interrupted    os.Signal // the signal passed on to it, nil when none came
	left           []string  // what it left running in its group when it exited, stopped since: "sleep (pid 8058)"
	termed         bool      // its group still had a process at its exit, and was sent SIGTERM
}

// run runs the command once, fed opts.Stdin, with env, in a process group
// of its own (see above). It returns when the command has ended and its
// output is read: what it left running may hold the output open for
// pipeDelay more (the group of an interrupted command is killed).
func (opts CLIOptions) run(ctx context.Context, env []string) ran {
	runCtx := ctx
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	cmd := exec.Command(opts.Command, opts.Args...)
	cmd.Dir = opts.Dir
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(opts.Stdin)
	cmd.WaitDelay = pipeDelay // stdin: a grandchild holding it open cannot hang us
	// The output pipes are ours, so that Wait returns when the command
	// ends, not when the last process holding them does.
	var stdout, stderr bytes.Buffer
	copied, err := outputTo(cmd, &stdout, &stderr)
	if err != nil {
		return ran{err: err}
	}
	done, err := startChild(cmd)
	if err != nil {
		copied(true)
		return ran{err: err}
	}
	r := opts.wait(runCtx, cmd)
	done()
	copied(false)
	if r.termed && groupAlive(cmd.Process.Pid) { // what the SIGTERM at its exit did not end
		_ = procgroup.Kill(cmd.Process.Pid)
	}
	r.stdout, r.stderr = stdout.Bytes(), stderr.Bytes()
	r.timedOut = runCtx.Err() != nil && ctx.Err() == nil
	return r
}

// pipeDelay is how long the output of an ended command may stay open.
const pipeDelay = 5 * time.Second

// outputTo gives cmd pipes for its stdout and stderr, read into the
// buffers; copied, called once the command has ended (or did not start:
// now), waits for the reading to end, pipeDelay at most.
func outputTo(cmd *exec.Cmd, stdout, stderr *bytes.Buffer) (copied func(now bool), err error) {
	var readers, writers []*os.File
	for range 2 {
		r, w, err := os.Pipe()
		if err != nil {
			for _, f := range append(readers, writers...) {
				f.Close()
			}
			return nil, err
		}
		readers, writers = append(readers, r), append(writers, w)
	}
	cmd.Stdout, cmd.Stderr = writers[0], writers[1]
	done := make(chan struct{}, 2)
	for i, buf := range []*bytes.Buffer{stdout, stderr} {
		go func() {
			_, _ = io.Copy(buf, readers[i])
			done <- struct{}{}
		}()
	}
	return func(now bool) {
		for _, w := range writers {
			w.Close() // the child has its own copies
		}
		timer := time.NewTimer(pipeDelay)
		defer timer.Stop()
		if now {
			timer.Reset(0)
		}
		for n := 0; n < 2; {
			select {
			case <-done:
				n++
			case <-timer.C:
				for _, r := range readers {
					r.Close()
				}
			}
		}
		for _, r := range readers {
			r.Close()
		}
	}, nil
}

// wait waits for the started command, passing on the signals record
// receives and killing the group when ctx ends.
func (opts CLIOptions) wait(ctx context.Context, cmd *exec.Cmd) ran {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	group := cmd.Process.Pid
	grace := opts.InterruptGrace
	if grace <= 0 {
		grace = DefaultInterruptGrace
	}
	var (
		r        ran
		deadline <-chan time.Time
		ctxDone  = ctx.Done()
	)
	for {
		select {
		case err := <-done:
			r.err = err
			if r.interrupted != nil {
				_ = procgroup.Kill(group) // what it left behind
				return r
			}
			if procgroup.Signal(group, 0) != nil {
				return r // nothing left behind (the common case: /proc is not read)
			}
			r.left = groupMembers(cmd.Process.Pid)
			if r.termed = procgroup.Signal(group, syscall.SIGTERM) == nil; r.termed {
				_ = procgroup.Continue(group)
			}
			return r
		case sig := <-opts.Signals:
			if r.interrupted != nil { // a second one: no more waiting
				_ = procgroup.Kill(group)
				continue
			}
			r.interrupted = sig
			if s, ok := sig.(syscall.Signal); ok {
				_ = procgroup.Signal(group, s)
			} else {
				_ = procgroup.Signal(group, syscall.SIGTERM)
			}
			_ = procgroup.Continue(group)
			t := time.NewTimer(grace)
			defer t.Stop()
			deadline = t.C
		case <-deadline:
			_ = procgroup.Kill(group)
			deadline = nil
		case <-ctxDone:
			_ = procgroup.Kill(group)
			ctxDone = nil
		}
	}
}
