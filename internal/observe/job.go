package observe

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/coverage"
	"github.com/cassette-dev/cassette/internal/nextstep"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verify"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// Job is one `cassette observe` run: Command (the project's test suite)
// with every fake of Adapters (nil: all) in reach and observed.
type Job struct {
	Project  *workspace.Project
	Adapters []string
	// Append adds to the latest run instead of starting one.
	Append  bool
	Command []string
	// Self is the cassette binary (an absolute path): the shims run it,
	// or ShimBin, cmd/cassette-shim, when it is installed ("": none).
	Self, ShimBin string
	// Stdin, Stdout and Stderr are the test command's; observe's own lines
	// go to Stderr.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Environ is the test command's environment before observe adds to it.
	Environ []string
	// Now and Pid name the new run (time.Now and os.Getpid when zero).
	Now func() time.Time
	Pid int
}

// Run observes one run of the test command and returns its exit code.
// Ctrl-C reaches the command (same process group); Run waits for it.
func (j *Job) Run(ctx context.Context) (int, error) {
	p := j.Project
	cfg := p.Config
	if len(j.Command) == 0 {
		return 0, outcome.Errorf(outcome.EUsage, nextstep.Observe(cfg), "give the test command after --")
	}
	if err := j.checkAdapters(); err != nil {
		return 0, err
	}
	root, err := filepath.Abs(cfg.Dir) // shims run in other directories
	if err != nil {
		return 0, err
	}
	all := filepath.Join(root, filepath.FromSlash(coverage.ObservedDir))
	observed, err := j.runDir(all)
	if err != nil {
		return 0, err
	}
	st, err := j.session(root, observed).Start(ctx)
	if err != nil {
		_ = os.Remove(observed) // empty: the earlier runs stay
		return 0, err
	}
	defer st.Close()
	j.printStarted(st)
	code, err := runCommand(ctx, j.Command, append(append([]string(nil), j.Environ...), st.Env...), j.Stdin, j.Stdout, j.Stderr)
	if err != nil {
		_ = os.Remove(observed) // the new run, when nothing was written to it; the earlier ones stay
		if ce, ok := err.(*outcome.Error); ok {
			ce.NextStep = nextstep.Observe(cfg)
		}
		return 0, err
	}
	st.Close()
	if err := coverage.PruneRuns(all, observed); err != nil { // the new run exists: the earlier ones go
		fmt.Fprintf(j.Stderr, "observe: the earlier runs in %s were not removed: %v\n", relOrSelf(root, all), err)
	}
	fmt.Fprintf(j.Stderr, "observe: %s exited %d; %s in %s\nnext: %s\n", j.Command[0], code, CallCounts(observed, cfg.Order), relOrSelf(root, observed), nextstep.Command(cfg.Path, "cassette", "coverage"))
	return code, nil
}

// checkAdapters refuses an --adapter the project does not declare.
func (j *Job) checkAdapters() error {
	cfg := j.Project.Config
	for _, a := range j.Adapters {
		if _, ok := cfg.Adapters[a]; !ok {
			return &outcome.Error{Reason: outcome.EUsage, Message: fmt.Sprintf("--adapter %s: no such adapter in %s", a, cfg.Path),
				Problems: []outcome.Problem{{File: cfg.Path, Line: cfg.Line("adapters"), Field: "adapters", Message: "declared: " + strings.Join(cfg.Order, ", "), Suggestion: outcome.Suggest(a, cfg.Order)}},
				NextStep: nextstep.Command(cfg.Path, append([]string{"cassette", "observe", "--adapter", cmp.Or(outcome.Closest(a, cfg.Order), firstOr(cfg.Order, "")), "--"}, j.Command...)...)}
		}
	}
	return nil
}

// session is the coverage session of the run: the fakes started and built
// as verify starts and builds them, their logs under root's .cassette.
func (j *Job) session(root, observed string) *coverage.Session {
	cfg := j.Project.Config
	work := filepath.Join(root, ".cassette", "observe")
	logDir := filepath.Join(work, "fakes")
	return &coverage.Session{Config: cfg, Observed: observed, Work: work, Self: j.Self, ShimBin: j.ShimBin, Adapters: j.Adapters, Command: j.Command,
		StartHTTP: func(ctx context.Context, name string, a *cfgschema.Adapter) (string, func(), error) {
			if _, err := verify.BuildFake(ctx, name, a, cfg, logDir); err != nil {
				return "", nil, err
			}
			proc, err := verify.StartFake(ctx, name, a, cfg, logDir)
			if err != nil {
				return "", nil, err
			}
			return proc.BaseURL, proc.Stop, nil
		},
		Build: func(ctx context.Context, name string, a *cfgschema.Adapter) error {
			_, err := verify.BuildFake(ctx, name, a, cfg, logDir)
			return err
		},
	}
}

// printStarted says where each adapter's calls go.
func (j *Job) printStarted(st *coverage.Started) {
	for _, name := range j.Project.Config.Order {
		if u, ok := st.URLs[name]; ok {
			fmt.Fprintf(j.Stderr, "observe: %s → %s (%s)\n", name, u, coverage.URLVar(name))
		}
	}
	for cmdName, name := range st.Shims {
		fmt.Fprintf(j.Stderr, "observe: %s → the fake of %s (a shim on PATH)\n", cmdName, name)
	}
	for _, name := range st.InProcess {
		fmt.Fprintf(j.Stderr, "observe: %s → in process (its binding observes its calls into %s)\n", name, coverage.EnvDir)
	}
}

// runDir is the run this observe writes (coverage.StartRun): a new one
// in dir, or with Append the latest one. Nothing is removed here: the
// earlier runs go once the test command has run.
func (j *Job) runDir(dir string) (string, error) {
	now := time.Now
	if j.Now != nil {
		now = j.Now
	}
	return coverage.StartRun(dir, j.Append, now(), cmp.Or(j.Pid, os.Getpid()))
}

// runCommand runs the test command with env (its whole environment) and
// returns its exit code. Ctrl-C reaches the command (same process group)
// and leaves observe waiting for it to stop.
func runCommand(ctx context.Context, command, env []string, in io.Reader, out, errw io.Writer) (int, error) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	cmd := exec.CommandContext(ctx, command[0], command[1:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, out, errw
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &ee):
		if ee.ExitCode() < 0 {
			return 128 + int(syscall.SIGTERM), nil
		}
		return ee.ExitCode(), nil
	}
	return 0, &outcome.Error{Reason: outcome.EUsage, Message: "cannot run " + command[0], Err: err}
}

// CallCounts says how many calls each adapter's fake answered, from the
// observation files of dir ("12 calls (git 12, github 0)").
func CallCounts(dir string, order []string) string {
	obs, _, _ := coverage.ReadDir(dir)
	n := map[string]int{}
	for _, o := range obs {
		n[o.Adapter]++
	}
	parts := make([]string, 0, len(order))
	for _, a := range order {
		parts = append(parts, fmt.Sprintf("%s %d", a, n[a]))
	}
	unit := "calls"
	if len(obs) == 1 {
		unit = "call"
	}
	return fmt.Sprintf("%d %s (%s)", len(obs), unit, strings.Join(parts, ", "))
}

// SelfPath is the cassette binary as arg0 ran it, made absolute (a shim
// runs it again from another directory).
func SelfPath(arg0 string) string {
	self := arg0
	if !strings.ContainsRune(self, filepath.Separator) {
		if p, err := exec.LookPath(self); err == nil {
			self = p
		}
	}
	if abs, err := filepath.Abs(self); err == nil {
		return abs
	}
	return self
}

// ShimBin is cmd/cassette-shim when it is installed next to the cassette
// binary self ("": the shims run self).
func ShimBin(self string) string {
	p := filepath.Join(filepath.Dir(self), "cassette-shim")
	if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
		return p
	}
	return ""
}

func relOrSelf(dir, path string) string {
	if r, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}

func firstOr(xs []string, or string) string {
	if len(xs) == 0 {
		return or
	}
	return xs[0]
}
