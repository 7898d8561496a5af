package main

import (
	"context"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/recording"
	"github.com/cassette-dev/cassette/internal/refresh"
	"github.com/cassette-dev/cassette/internal/report"
	"github.com/cassette-dev/cassette/internal/verify"
)

type refreshOptions struct {
	upstreamCA string
	allowRepo  bool // --allow-project-repo, as record has it
	timeout    time.Duration
	once       bool
	schedule   string
	dryRun     bool
	unsafe     bool // --rerecord-unsafe
	adapters   []string
	reportDir  string
	bundleDir  string
	golden     bool
	remote     string
	base       string
}

func newRefreshCmd(stdio *IO, g *globals) *cobra.Command {
	o := &refreshOptions{}
	cmd := &cobra.Command{
		Use:   "refresh (--once | --schedule SPEC) [--dry-run]",
		Short: "Re-record every cassette against the real services; open a refresh PR on drift",
		Long: `refresh re-records each cassette from its own input against the real side
(adapters whose credential variables are not set are skipped), compares it,
normalized, with the committed cassette, and on drift pushes the new cassettes
to a branch cassette-refresh/<adapter>/<date> and opens (or updates) the
refresh PR "contract-refresh: <date> (<adapter>)". It then replays the new
cassettes against the fake; when the fake fails, it files (or updates) a
fake-drift issue. An adapter that drifts for refresh.escalate_after cycles in
a row (default 3) is escalated: labelled, and its owners mentioned. The count
is kept on the remote branch cassette-refresh/state.

With refresh.forge.kind: git, the PR and issue texts are written to
<report-dir>/refresh/. Every cycle writes the reports like verify.

What a cycle changes (marked *), and what --dry-run does instead:
  * the real services: every cassette is recorded again from its input (a
    CLI command is run, an HTTP request sent), except scenarios marked
    mutating: true unless the adapter sets allow_mutating. A dry run sends
    only GET, HEAD and OPTIONS requests; it lists the other cassettes as
    not re-recorded, unless --rerecord-unsafe.
  * the remote: the refresh branch and cassette-refresh/state are pushed.
    A dry run reads the remote and pushes nothing.
  * the forge: the refresh PR and the fake-drift issue are opened or
    updated. A dry run only writes their texts to the reports.
Locally, the new cassettes are written in a git work tree under .git (a
temporary directory in a dry run) and the reports under --report-dir; the
checked-out files are left as they are.

Exit 0: no drift; 1: drift (E_REAL_DRIFT: a refresh PR awaits review;
E_FAKE_DRIFT: the fake must change; E_ESCALATED); 3: the real service, the
remote or the forge failed.`,
		Example: `  cassette refresh --once
  cassette refresh --once --dry-run --adapter github
  cassette refresh --once --dry-run --rerecord-unsafe --adapter gh   # also runs the gh commands
  cassette refresh --schedule "@weekly"      # runs until SIGINT/SIGTERM`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return refreshRun(cmd.Context(), stdio, g, o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.once, "once", false, "run one cycle and exit (the default without --schedule)")
	f.StringVar(&o.schedule, "schedule", "", `run cycles on this cron schedule, e.g. "@weekly" or "0 6 * * 1" (refresh.timezone, default UTC)`)
	f.BoolVar(&o.dryRun, "dry-run", false, "push and open nothing, save no state, and send the real services only GET, HEAD and OPTIONS requests; say what a cycle would do")
	f.BoolVar(&o.unsafe, "rerecord-unsafe", false, "with --dry-run: also re-run CLI commands and requests other than GET, HEAD and OPTIONS (they may change the real services)")
	f.StringSliceVar(&o.adapters, "adapter", nil, "only these adapters (repeatable)")
	f.StringVar(&o.reportDir, "report-dir", filepath.Join(".cassette", "reports"), "where the report files are written")
	f.StringVar(&o.bundleDir, "bundle-dir", "", "also write a forensic bundle under this directory")
	f.BoolVar(&o.golden, "golden", false, "golden mode: byte-stable reports")
	f.StringVar(&o.remote, "remote", "", "git remote to push to (default: refresh.forge.remote, then origin)")
	f.DurationVar(&o.timeout, "timeout", 0, "bound each live HTTP request and each CLI run (default 30s and 10m)")
	f.StringVar(&o.upstreamCA, "upstream-ca", "", "PEM file of the CA that signed the real services' certificates (replaces real.ca_file)")
	f.BoolVar(&o.allowRepo, "allow-project-repo", false, "re-record git or gh in a real.dir inside this project's own repository (refused by default: it would record the project's history)")
	f.StringVar(&o.base, "base", "", "base branch of refresh PRs (default: refresh.base, then the current branch)")
	return cmd
}

func refreshRun(ctx context.Context, stdio *IO, g *globals, o *refreshOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	// A refresh that fails before a cycle writes its reports like one that
	// ran: CI never reads the previous run's verdict.
	dest := reportDest{command: "refresh", reportDir: o.reportDir, bundleDir: o.bundleDir, golden: o.golden,
		replay: "cassette refresh --once --dry-run", jsonFile: report.FileSummary}
	fail := func(err error) error {
		return errorReport(stdio, g, dest, outcome.AsError(err))
	}
	if o.once && o.schedule != "" {
		return fail(outcome.Errorf(outcome.EUsage, commandWithConfig(g.config, "cassette", "refresh", "--once"), "--once and --schedule exclude each other"))
	}
	if o.unsafe && !o.dryRun {
		return fail(outcome.Errorf(outcome.EUsage, commandWithConfig(g.config, "cassette", "refresh", "--once", "--dry-run", "--rerecord-unsafe"),
			"--rerecord-unsafe widens a --dry-run; a refresh without --dry-run re-records every cassette already"))
	}
	p, err := loadProject(g)
	if err != nil {
		return fail(err)
	}
	ver, sha := buildInfo()
	job := &refresh.Job{Project: p.Project, Adapters: o.adapters, DryRun: o.dryRun, DryRunUnsafe: o.unsafe, Remote: o.remote, Base: o.base,
		UpstreamCA: o.upstreamCA, Timeout: o.timeout, AllowProjectRepo: o.allowRepo, Recorder: cassettes.Recorder{Version: ver, SHA: sha}, Log: stdio.Err, Warn: stdio.Err}
	loc, err := job.Location()
	if err != nil {
		return fail(err)
	}
	cycle := func(ctx context.Context, now time.Time) error {
		proposals := filepath.Join(o.reportDir, "refresh")
		run, err := job.Run(ctx, now, dest.human(stdio, g.json), proposals, reportTool())
		if err != nil {
			return fail(err)
		}
		bundle := report.BundleFiles{Env: os.Environ(), Git: verify.GitInfo(p.cfg.Dir), Options: report.Options{Golden: o.golden, Declared: p.secretForms()}}
		return finishRun(stdio, g.json, dest, run, bundle)
	}
	if o.schedule == "" {
		// Ctrl-C stops the cycle at its next step: it publishes nothing
		// more and ends as every run does, E_INTERRUPTED (exit 3) in its
		// reports.
		ctx, _, stop := recording.CatchContext(ctx)
		defer stop()
		return cycle(ctx, time.Now().In(loc))
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts, err := job.Options()
	if err != nil {
		return fail(err)
	}
	d := &refresh.Daemon{Schedule: o.schedule, Location: loc, Log: stdio.Out, LastRun: opts.LastRun,
		Job: func(ctx context.Context, now time.Time) {
			if err := cycle(ctx, now); err != nil {
				if _, ok := err.(exitError); !ok {
					printError(stdio, g, outcome.AsError(err))
				}
			}
		}}
	return d.Serve(ctx)
}
