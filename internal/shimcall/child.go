package shimcall

import (
	"io"
	"os"
	"sync"
)

// Child is how the fake runs as a child of the shim's process (RunChild):
// with standard input given, whose first bytes the call keeps, or for a
// caller that is not a shim (`cassette observe --shim`).
type Child struct {
	// Stdin, when not nil, reaches the fake through a pipe of its own fed
	// from a Tee (the fake may read it line by line as it answers); nil
	// is no input (/dev/null).
	Stdin *os.File
	// Stdout and Stderr take the fake's output: a file as it is, another
	// writer through a pipe; nil is /dev/null.
	Stdout, Stderr io.Writer
	// Stop, once closed, kills the fake (nil: never).
	Stop <-chan struct{}
}

// RunChild runs the fake with args in env as a child and returns its exit
// code (128+9 when a signal ended it) and the Tee of its standard input
// (nil when none was given); err says why it did not start.
func (s *Spec) RunChild(args, env []string, c Child) (code int, in *Tee, err error) {
	var files [3]*os.File
	var theirs []*os.File // the child's ends, closed here once it runs
	var outputs []func()  // copy a pipe of the child's output to its writer
	var feed *os.File     // our end of the child's standard input
	closeAll := func(fs []*os.File) {
		for _, f := range fs {
			f.Close()
		}
	}
	if c.Stdin != nil {
		pr, pw, err := os.Pipe()
		if err != nil {
			return 127, nil, err
		}
		in, files[0], feed, theirs = &Tee{Src: c.Stdin}, pr, pw, append(theirs, pr)
	} else {
		null, err := os.Open(os.DevNull)
		if err != nil {
			return 127, nil, err
		}
		files[0], theirs = null, append(theirs, null)
	}
	var ours []*os.File // the read ends of the output pipes
	for i, w := range []io.Writer{c.Stdout, c.Stderr} {
		if f, ok := w.(*os.File); ok && f != nil {
			files[i+1] = f
			continue
		}
		pr, pw, err := os.Pipe()
		if err != nil {
			closeAll(append(append(theirs, ours...), feed))
			return 127, nil, err
		}
		if w == nil {
			w = io.Discard
		}
		files[i+1], theirs, ours = pw, append(theirs, pw), append(ours, pr)
		outputs = append(outputs, func() { _, _ = io.Copy(w, pr); pr.Close() })
	}
	p, err := os.StartProcess(s.Fake[0], append(append([]string(nil), s.Fake...), args...), &os.ProcAttr{
		Dir: s.Dir, Env: s.FakeEnv(env), Files: files[:]})
	closeAll(theirs) // the child holds them now
	if err != nil {
		closeAll(append(ours, feed))
		return 127, nil, err
	}
	if feed != nil {
		// The fake reads a pipe of its own, fed from ours: when it exits,
		// nothing waits for the caller to close its end.
		go func() {
			_, _ = io.Copy(feed, in)
			feed.Close()
		}()
	}
	var copies sync.WaitGroup
	for _, copyOut := range outputs {
		copies.Add(1)
		go func() {
			defer copies.Done()
			copyOut()
		}()
	}
	defer killOn(c.Stop, p)()
	st, werr := p.Wait()
	copies.Wait() // the output ends when the fake (and what it left running) closes it
	switch {
	case werr != nil:
		return 127, in, nil
	case st.ExitCode() >= 0:
		return st.ExitCode(), in, nil
	}
	return 128 + 9, in, nil
}

// killOn kills p once stop is closed, until the returned func is called
// (nil stop: never).
func killOn(stop <-chan struct{}, p *os.Process) (cancel func()) {
	if stop == nil {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-stop:
			_ = p.Kill()
		case <-done:
		}
	}()
	return func() { close(done) }
}
