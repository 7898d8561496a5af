package shimcall

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// Main is cmd/cassette-shim: `cassette-shim SPEC -- ARGS...` (run by a
// shell script) or `cassette-shim SPEC SCRIPT ARGS...` (the kernel running
// a shim whose first line is `#!cassette-shim SPEC`), the call of the
// shim's command with ARGS. It returns the fake's exit code (127 when the
// fake cannot start or the call is refused) unless it becomes the fake or
// the cassette binary (exec), which then exits for it.
func Main(args []string, stdin *os.File, stderr io.Writer) int {
	if len(args) < 2 {
		say(stderr, "cassette-shim: usage: cassette-shim SPEC -- ARGS... (cassette observe writes the shims that run it)")
		return 127
	}
	specPath, args := args[0], args[2:]
	s, err := Load(specPath)
	if err != nil {
		say(stderr, "cassette observe: "+err.Error())
		return 127
	}
	env := os.Environ()
	if msg := s.Loop(env); msg != "" {
		_, _ = io.WriteString(stderr, msg)
		return 127
	}
	conn := -1
	if s.Socket != "" && filepath.IsAbs(s.Fake[0]) {
		conn, err = dial(s.Socket)
	}
	if conn < 0 { // no observe to answer: the cassette binary observes the call itself
		if s.Self == "" {
			say(stderr, "cassette observe: the call was not observed: "+errText(err)+" (the shim names no cassette binary)")
			return 127
		}
		err := syscall.Exec(s.Self, append([]string{s.Self, "observe", "--shim", specPath, "--"}, args...), env)
		say(stderr, "cassette observe: cannot run "+s.Self+": "+err.Error())
		return 127
	}
	req := s.Request(args, env, func() string { return CallerName(os.Getppid(), s.Project) })
	if !IsPipeOrFile(stdin) {
		// Nothing to keep of standard input: the call is handed to
		// observe, and the fake takes this process's place without
		// waiting for the line to be written (observe writes the calls in
		// the order they reach it, and every call sent before it ends:
		// ShimServer).
		if err := send(conn, req, false); err != nil {
			say(stderr, "cassette observe: the call was not observed: "+err.Error())
		}
		return s.exec(args, env, stderr)
	}
	// The connection was observe's answer that it runs; the call goes on
	// a connection of its own once the fake has exited, so that observe,
	// which reads the calls one after the other, never waits for a fake.
	hangUp(conn)
	code, tee, err := s.RunChild(args, env, Child{Stdin: stdin, Stdout: os.Stdout, Stderr: os.Stderr})
	if err != nil {
		say(stderr, "cassette observe: the fake of adapter "+s.Adapter+" did not start: "+err.Error())
	}
	req.Stdin, req.Input = tee.Given()
	if conn, err = dial(s.Socket); err == nil {
		err = send(conn, req, true)
	}
	if err != nil {
		say(stderr, "cassette observe: the call was not observed: "+err.Error())
	}
	return code
}

// exec runs the fake in this process's place; it returns only when the
// fake cannot start.
func (s *Spec) exec(args, env []string, stderr io.Writer) int {
	err := error(nil)
	if s.Dir != "" {
		err = os.Chdir(s.Dir)
	}
	if err == nil {
		err = syscall.Exec(s.Fake[0], append(append([]string(nil), s.Fake...), args...), s.FakeEnv(env))
	}
	say(stderr, "cassette observe: the fake of adapter "+s.Adapter+" did not start: "+err.Error())
	return 127
}

// say writes one line of the shim's to stderr (no fmt: see the package
// doc).
func say(stderr io.Writer, line string) { _, _ = io.WriteString(stderr, line+"\n") }

// errText is why the call could not be sent to observe (err nil: the spec
// names no socket, or a fake that is not an absolute path).
func errText(err error) string {
	if err == nil {
		return "the spec names no observe socket for it"
	}
	return err.Error()
}
