package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/coverage"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/proxy"
	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/internal/verify"
)

type observeOptions struct {
	adapters []string
	append   bool
	shim     string // hidden: run as the shim written with this spec
}

func newObserveCmd(stdio *IO, g *globals) *cobra.Command {
	o := &observeOptions{}
	cmd := &cobra.Command{
		Use:   "observe [--adapter NAME]... -- COMMAND [ARGS...]",
		Short: "Run the project's tests with every call to a fake observed, for cassette coverage",
		Long: `observe runs COMMAND (your test suite: go test ./..., pytest, npm test) with
each adapter's fake in reach and every call to it written to
.cassette/observed/*.jsonl, which 'cassette coverage' holds against the
cassettes.

An http adapter's fake is started (fake.build, then fake.command with
$PORT, as verify starts it; or the fake.base_url already running) behind an
observing reverse proxy, whose address the command gets as
CASSETTE_<ADAPTER>_URL (CASSETTE_GITHUB_URL for adapter github): point the
code under test at it. A cli adapter's fake is built (fake.build) and put on
PATH under the real command's name (git, gh, docker) as a shim that records
each call and runs the fake in the caller's directory.

A call names its test with the CASSETTE_TEST variable (CLI) or the
Cassette-Test header (HTTP), set by the test; otherwise a shim names the
process that called it. In-process fakes observe themselves (Go:
cassettetest.Observe; the format is in docs/concepts/coverage.md) into
$CASSETTE_OBSERVE_DIR.

Each observe run writes a run of its own, .cassette/observed/<time>-<pid>/,
which every process under COMMAND shares; once COMMAND has run, the
earlier runs are removed (--append adds to the latest run instead, to
observe several test commands). coverage reads the latest run. A fake
gets no live credential (every adapter's real.credentials and the
forge's token are left out of its environment, as verify leaves them
out). The exit code is COMMAND's.`,
		Example: `  cassette observe -- go test ./...
  cassette observe --append -- pytest -q
  cassette observe --adapter github -- npm test
  cassette coverage`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.shim != "" {
				return shimRun(cmd.Context(), stdio, o.shim, args)
			}
			return observeRun(cmd.Context(), stdio, g, o, args)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.adapters, "adapter", nil, "observe only these adapters (repeatable; default: all)")
	f.BoolVar(&o.append, "append", false, "keep the observations of earlier runs")
	f.StringVar(&o.shim, "shim", "", "run as a shim (written by observe)")
	_ = f.MarkHidden("shim")
	cmd.GroupID = "main"
	return cmd
}

func observeRun(ctx context.Context, stdio *IO, g *globals, o *observeOptions, command []string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	p, err := loadProject(g)
	if err != nil {
		return err
	}
	if len(command) == 0 {
		return outcome.Errorf(outcome.EUsage, p.observeStep(), "give the test command after --")
	}
	for _, a := range o.adapters {
		if _, ok := p.cfg.Adapters[a]; !ok {
			return &outcome.Error{Reason: outcome.EUsage, Message: fmt.Sprintf("--adapter %s: no such adapter in %s", a, p.cfg.Path),
				Problems: []outcome.Problem{{File: p.cfg.Path, Line: p.cfg.Line("adapters"), Field: "adapters", Message: "declared: " + strings.Join(p.cfg.Order, ", "), Suggestion: outcome.Suggest(a, p.cfg.Order)}},
				NextStep: p.command(append([]string{"cassette", "observe", "--adapter", cmp.Or(outcome.Closest(a, p.cfg.Order), firstOr(p.cfg.Order, "")), "--"}, command...)...)}
		}
	}
	root, err := filepath.Abs(p.cfg.Dir) // shims run in other directories
	if err != nil {
		return err
	}
	all := filepath.Join(root, filepath.FromSlash(coverage.ObservedDir))
	observed, err := coverage.StartRun(all, o.append, time.Now(), os.Getpid())
	if err != nil {
		return err
	}
	work := filepath.Join(root, ".cassette", "observe")
	logDir := filepath.Join(work, "fakes")
	s := &coverage.Session{Config: p.cfg, Observed: observed, Work: work, Self: selfPath(), ShimBin: shimBin(), Adapters: o.adapters, Command: command,
		StartHTTP: func(ctx context.Context, name string, a *cfgschema.Adapter) (string, func(), error) {
			if _, err := verify.BuildFake(ctx, name, a, p.cfg, logDir); err != nil {
				return "", nil, err
			}
			proc, err := verify.StartFake(ctx, name, a, p.cfg, logDir)
			if err != nil {
				return "", nil, err
			}
			return proc.BaseURL, proc.Stop, nil
		},
		Build: func(ctx context.Context, name string, a *cfgschema.Adapter) error {
			_, err := verify.BuildFake(ctx, name, a, p.cfg, logDir)
			return err
		},
	}
	st, err := s.Start(ctx)
	if err != nil {
		_ = os.Remove(observed) // empty: the earlier runs stay
		return err
	}
	defer st.Close()
	for _, name := range p.cfg.Order {
		if u, ok := st.URLs[name]; ok {
			fmt.Fprintf(stdio.Err, "observe: %s → %s (%s)\n", name, u, coverage.URLVar(name))
		}
	}
	for cmdName, name := range st.Shims {
		fmt.Fprintf(stdio.Err, "observe: %s → the fake of %s (a shim on PATH)\n", cmdName, name)
	}
	for _, name := range st.InProcess {
		fmt.Fprintf(stdio.Err, "observe: %s → in process (its binding observes its calls into %s)\n", name, coverage.EnvDir)
	}
	code, err := runObserved(ctx, stdio, command, append(os.Environ(), st.Env...))
	if err != nil {
		_ = os.Remove(observed) // the new run, when nothing was written to it; the earlier ones stay
		if ce, ok := err.(*outcome.Error); ok {
			ce.NextStep = p.observeStep()
		}
		return err
	}
	st.Close()
	if err := coverage.PruneRuns(all, observed); err != nil { // the new run exists: the earlier ones go
		fmt.Fprintf(stdio.Err, "observe: the earlier runs in %s were not removed: %v\n", relOrSelf(root, all), err)
	}
	fmt.Fprintf(stdio.Err, "observe: %s exited %d; %s in %s\nnext: %s\n", command[0], code, callCounts(observed, p.cfg.Order), relOrSelf(root, observed), p.command("cassette", "coverage"))
	if code != 0 {
		return exitError(code)
	}
	return nil
}

// runObserved runs the test command with env (its whole environment) and
// returns its exit code. Ctrl-C reaches it (same process group); observe
// waits for it to stop.
func runObserved(ctx context.Context, stdio *IO, command, env []string) (int, error) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	cmd := exec.CommandContext(ctx, command[0], command[1:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdio.In, stdio.Out, stdio.Err
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

// callCounts says how many calls each adapter's fake answered, from the
// observation files ("12 calls: git 12, github 0").
func callCounts(dir string, order []string) string {
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

// shimRun is a shim's process: the fake runs the call, which is observed.
func shimRun(ctx context.Context, stdio *IO, spec string, args []string) error {
	s, err := coverage.LoadShim(spec)
	if err != nil {
		fmt.Fprintf(stdio.Err, "cassette observe: %v\n", err)
		return exitError(127)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	in, _ := stdio.In.(*os.File)
	code := s.Run(ctx, coverage.ShimIO{Args: args, Stdin: in, Stdout: stdio.Out, Stderr: stdio.Err, Env: os.Environ(),
		Caller: coverage.CallerName(os.Getppid(), s.Project)})
	if code != 0 {
		return exitError(code)
	}
	return nil
}

// selfPath is the cassette binary as it was run: a shim runs it again.
func selfPath() string {
	self := os.Args[0]
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

// shimBin is cmd/cassette-shim when it is installed next to this binary
// ("": the shims run this binary).
func shimBin() string {
	p := filepath.Join(filepath.Dir(selfPath()), "cassette-shim")
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

// observeProxyRun is `cassette proxy --mode observe`: an observing reverse
// proxy in front of a fake the tests start themselves (upstream), each call
// written as a call to adapter, until Ctrl-C.
func observeProxyRun(ctx context.Context, stdio *IO, g *globals, listen, upstream, adapter string, allowRemote bool) error {
	target, err := url.Parse(upstream)
	if upstream == "" || err != nil || (target.Scheme != "http" && target.Scheme != "https") || target.Host == "" {
		next := outcome.Command("cassette", "proxy", "--mode", "observe", "--upstream", "http://127.0.0.1:8080", "--adapter", cmp.Or(adapter, "NAME"))
		return outcome.Errorf(outcome.EUsage, next, "--mode observe needs --upstream, the fake's base URL (http:// or https://), got %q", upstream)
	}
	if err := proxy.CheckListen(listen, allowRemote); err != nil {
		return err
	}
	p, err := loadProject(g)
	if err != nil {
		return err
	}
	a, ok := p.cfg.Adapters[adapter]
	if !ok || a.Kind != cfgschema.KindHTTP {
		return &outcome.Error{Reason: outcome.EUsage, Message: fmt.Sprintf("--adapter %q: --mode observe needs an http adapter declared in %s", adapter, p.cfg.Path),
			Problems: []outcome.Problem{{File: p.cfg.Path, Line: p.cfg.Line("adapters"), Field: "adapters", Message: "declared: " + strings.Join(p.cfg.Order, ", "),
				Suggestion: outcome.Suggest(adapter, p.cfg.Order)}},
			NextStep: observeProxyStep(p, upstream, cmp.Or(outcome.Closest(adapter, p.cfg.AdaptersOf(cfgschema.KindHTTP)), firstOr(p.cfg.AdaptersOf(cfgschema.KindHTTP), "")))}
	}
	dir := os.Getenv(coverage.EnvDir)
	if dir == "" {
		root, err := filepath.Abs(p.cfg.Dir)
		if err != nil {
			return err
		}
		dir = coverage.OwnRun(filepath.Join(root, filepath.FromSlash(coverage.ObservedDir)), time.Now(), os.Getpid())
	}
	w, err := coverage.OpenWriter(dir, "proxy-"+adapter, "proxy")
	if err != nil {
		return &outcome.Error{Reason: outcome.EIO, Message: "cannot open the observation file", Err: err, NextStep: outcome.Command("ls", "-ld", dir)}
	}
	defer w.Close()
	rules, _ := coverage.NewRules(a)
	obs := &coverage.Observer{Adapter: adapter, Kind: cfgschema.KindHTTP, Rules: rules, Writer: w, Redactor: redact.New(p.Redact, p.credentials())}
	px, err := proxy.New(proxy.Options{Mode: proxy.ModeObserve, Listen: listen, AllowNonLoopback: allowRemote, Upstream: upstream, Observe: obs.Proxy(target)})
	if err != nil {
		return err
	}
	if err := px.Start(); err != nil {
		if ce, ok := err.(*outcome.Error); ok && ce.Err != nil {
			err = ce.Err // the listener's own error, under this command's next step
		}
		return &outcome.Error{Reason: outcome.EUsage, Message: "cannot listen on " + listen, Err: err, NextStep: p.command("cassette", "proxy", "--mode", "observe", "--upstream", upstream, "--adapter", adapter, "--listen", "127.0.0.1:0")}
	}
	fmt.Fprintf(stdio.Out, "cassette proxy: observe mode, listening on http://%s\n  calls to adapter %s's fake at %s are written to %s\n  press Ctrl-C to stop\n",
		px.Addr(), adapter, upstream, dir)
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = px.Shutdown(sctx)
	fmt.Fprintf(stdio.Out, "cassette proxy: stopped\nnext: cassette coverage\n")
	return err
}

// observeProxyStep is the command that starts the observing proxy for an
// http adapter of the project, or, when it has none, the check of its
// config.
func observeProxyStep(p *project, upstream, adapter string) string {
	if adapter == "" {
		return p.command("cassette", "validate")
	}
	return p.command("cassette", "proxy", "--mode", "observe", "--upstream", upstream, "--adapter", adapter)
}
