package procgroup

import (
	"os"
	"os/exec"
	"sync"
)

// Command is a program to start, again and again, each time a child in a
// group of its own (Start): its name is looked up once, as exec.Command
// looks it up (in $PATH when it has no separator; a relative path is
// taken in the child's directory).
type Command struct {
	argv    []string
	path    string
	lookErr error // exec.Command's lookup error, returned by every Start
}

// NewCommand is argv (argv[0] the program), looked up now.
func NewCommand(argv []string) *Command {
	c := exec.Command(argv[0], argv[1:]...)
	return &Command{argv: argv, path: c.Path, lookErr: c.Err}
}

// Child is a process Start started, leading a process group of its own.
type Child struct {
	Pid  int
	done chan struct{}
	err  error // set before done is closed

	mu     sync.Mutex
	reaped bool   // done is closed
	after  func() // AfterExit's, run once reaped
}

// Done is closed once the child has exited and been reaped.
func (c *Child) Done() <-chan struct{} { return c.done }

// AfterExit has f run once the child has exited and been reaped: on the
// goroutine that reaped it (no goroutine is woken to run it), or on the
// caller's at once when it already was. f may wait: nothing but that
// goroutine, which has nothing left to do, waits with it. One f a child:
// a second call replaces the first if that has not run.
func (c *Child) AfterExit(f func()) {
	c.mu.Lock()
	if !c.reaped {
		c.after = f
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	f()
}

// exited closes done, err set, and runs AfterExit's f.
func (c *Child) exited() {
	c.mu.Lock()
	close(c.done)
	c.reaped = true
	f := c.after
	c.after = nil
	c.mu.Unlock()
	if f != nil {
		f()
	}
}

// Err is the child's exit, once Done is closed: nil for a zero exit
// status, else worded as exec.ExitError is ("exit status 1", "signal:
// killed").
func (c *Child) Err() error { return c.err }

// Start starts the command in dir with env (each name once: the caller
// has removed duplicates), its standard input /dev/null and its output
// and error out. The child leads a process group of its own (Attr), so
// Signal and Kill of its Pid reach what it starts. It is reaped without
// holding a thread where the platform allows (start_linux.go).
func (c *Command) Start(dir string, env []string, out *os.File) (*Child, error) {
	if c.lookErr != nil {
		return nil, c.lookErr
	}
	return start(c, dir, env, out)
}
