package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/internal/coverage"
	"github.com/cassette-dev/cassette/internal/observe"
	"github.com/cassette-dev/cassette/internal/recording"
	"github.com/cassette-dev/cassette/internal/shimcall"
	"github.com/cassette-dev/cassette/internal/workspace"
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
	self := observe.SelfPath(os.Args[0])
	job := &observe.Job{Project: p.Project, Adapters: o.adapters, Append: o.append, Command: command, Self: self, ShimBin: observe.ShimBin(self),
		Stdin: stdio.In, Stdout: stdio.Out, Stderr: stdio.Err, Environ: os.Environ()}
	code, err := job.Run(ctx)
	if err == nil && code != 0 {
		return exitError(code)
	}
	return err
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
		Caller: shimcall.CallerName(os.Getppid(), s.Project)})
	if code != 0 {
		return exitError(code)
	}
	return nil
}

// observeProxyRun is `cassette proxy --mode observe` (observe.ProxyJob).
func observeProxyRun(ctx context.Context, stdio *IO, g *globals, o *recording.ProxyJob) error {
	if ctx == nil {
		ctx = context.Background()
	}
	job := &observe.ProxyJob{Listen: o.Listen, Upstream: o.Upstream, Adapter: o.Adapter, AllowRemote: o.AllowRemote, Dir: os.Getenv(coverage.EnvDir),
		LookupEnv: os.LookupEnv, Out: stdio.Out,
		Load: func() (*workspace.Project, error) {
			p, err := loadProject(g)
			if err != nil {
				return nil, err
			}
			return p.Project, nil
		},
		Notify: func(ctx context.Context) (context.Context, context.CancelFunc) {
			return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		}}
	return job.Run(ctx)
}
