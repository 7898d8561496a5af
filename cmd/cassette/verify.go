package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/coverage"
	"github.com/cassette-dev/cassette/internal/nextstep"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/report"
	"github.com/cassette-dev/cassette/internal/verify"
)

type verifyOptions struct {
	selectFlags
	jobs         int
	timeout      time.Duration
	readyTimeout time.Duration // --timeout when given: it bounds a fake's start too
	shard        string
	reportDir    string
	bundleDir    string
	golden       bool
	logDir       string
	inProcess    bool
}

func newVerifyCmd(stdio *IO, g *globals) *cobra.Command {
	o := &verifyOptions{}
	cmd := &cobra.Command{
		Use:   "verify [paths...]",
		Short: "Replay every cassette against its adapter's fake and fail on drift",
		Long: `verify feeds each cassette's input to the adapter's fake — the recorded
requests, in order, to an HTTP fake (started with $PORT if fake.command is
set); the recorded arguments, stdin and environment names to a CLI fake — and
compares the fake's output with the cassette's, normalized, byte for byte.

Every run writes summary.json, junit.xml, sarif.json, report.jsonl,
log.jsonl, run.json and report.html to --report-dir (--bundle-dir adds a
forensic bundle). Exit 0: all passed; 1: a fake drifted or failed; 2: a
config or cassette error; 3: a fake did not start.`,
		Example: `  cassette verify
  cassette verify --adapter github -j 8
  cassette verify --case github/list-pulls
  cassette verify --shard 2/4 --report-dir out/shard-2`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("timeout") {
				o.readyTimeout = o.timeout // bounds a fake's start too
			}
			return verifyRun(cmd.Context(), stdio, g, o, args)
		},
	}
	o.selectFlags.bind(cmd)
	f := cmd.Flags()
	f.IntVarP(&o.jobs, "jobs", "j", 0, "cases run in parallel (default: the number of CPUs)")
	f.DurationVar(&o.timeout, "timeout", verify.DefaultCaseTimeout, "time limit of one case, and (when given) of a fake's start")
	f.StringVar(&o.shard, "shard", "", "run shard i of n (i/n), for CI matrices; merge with 'cassette report merge'")
	f.StringVar(&o.reportDir, "report-dir", filepath.Join(".cassette", "reports"), "where the report files are written")
	f.StringVar(&o.bundleDir, "bundle-dir", "", "also write a forensic bundle under this directory")
	f.BoolVar(&o.golden, "golden", false, "golden mode: byte-stable reports (sorted keys, volatile fields omitted)")
	f.StringVar(&o.logDir, "log-dir", "", "where the fakes' logs go (default: <report-dir>/fakes)")
	f.BoolVar(&o.inProcess, "in-process", false, "also run the fake.test of each selected in-process adapter (its contract tests through a binding) and judge its cases by their results")
	return cmd
}

func verifyRun(ctx context.Context, stdio *IO, g *globals, o *verifyOptions, paths []string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	// Ctrl-C cancels the run: the fakes verify started (in process groups of
	// their own, out of the terminal's reach) are stopped before it exits.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	tool := reportTool()
	p, cases, err := o.load(g, paths, stdio.Err)
	if err != nil {
		// Every failure, even before a case runs, rewrites summary.json: CI
		// must never read the previous run's verdict.
		return errorReport(stdio, g, o.dest(), outcome.AsError(err))
	}
	logDir := o.logDir
	if logDir == "" {
		logDir = filepath.Join(o.reportDir, "fakes")
	}
	opts := verify.ProjectOptions(p.Project, os.LookupEnv)
	opts.Jobs, opts.CaseTimeout, opts.ReadyTimeout, opts.LogDir = o.jobs, o.timeout, o.readyTimeout, logDir
	ran := verify.Run(ctx, cases, opts)
	run := ran.Report(p.cfg, verify.Meta{Tool: tool, Shard: o.shard})
	var gates []string
	if o.inProcess {
		gates = verify.InProcessGates(ctx, p.cfg, cases, run)
	}
	if run.ReplayCommand == "" && p.cfg.Path != cfgschema.ConfigFile {
		run.ReplayCommand = p.command("cassette", "verify") // the replay commands name the config this run used
	}
	console := stdio.Out
	if g.json {
		console = stdio.Err // stdout carries summary.json
	}
	verify.Console{W: console, Color: stdio.Color && !g.json}.Write(ran, run)
	for _, line := range gates { // after verify's own lines, which count the in-process cases as skipped
		fmt.Fprintln(console, line)
	}
	return finishRun(stdio, g.json, o.dest(), run, verifyBundle(p, o, cases, ran))
}

// dest is where verify's reports go.
func (o *verifyOptions) dest() reportDest {
	return reportDest{command: "verify", reportDir: o.reportDir, bundleDir: o.bundleDir, golden: o.golden, jsonFile: report.FileSummary}
}

// selection is the cases the flags select, with the shard.
func (o *verifyOptions) selection(g *globals) (verify.Selection, error) {
	sel, err := o.selectFlags.selection(g, "verify")
	if err == nil && o.shard != "" {
		sel.Shard, sel.Shards, err = verify.ParseShard(o.shard)
	}
	return sel, err
}

// load loads the project and the cassettes of paths (the project's
// cassettes by default; a shard's own only) and plans the selected cases.
// A run over the whole corpus warns on warn about adapters without a
// cassette.
func (o *verifyOptions) load(g *globals, paths []string, warn io.Writer) (*project, []verify.Case, error) {
	sel, err := o.selection(g)
	if err != nil {
		return nil, nil, err
	}
	p, err := loadProject(g)
	if err != nil {
		return nil, nil, err
	}
	lo := p.loadOptions()
	lo.KeepBytes = o.bundleDir != "" // the bundle copies the cassettes as they were read
	cases, err := verify.PlanPaths(p.cfg, verify.PlanRun{Paths: paths, Sel: sel, Load: lo,
		Named:      nextstep.Selection{Cases: o.cases, Adapters: o.adapters},
		Unrecorded: func(list []*cassettes.Cassette) { coverage.WarnUnrecorded(warn, p.cfg, list, sel.Adapters) }})
	if err != nil {
		return nil, nil, err
	}
	return p, cases, nil
}

// verifyBundle is the report options and, with --bundle-dir, what the
// bundle holds besides the reports (verify.Outcome.Bundle). Without a
// bundle nothing is read and git is not asked.
func verifyBundle(p *project, o *verifyOptions, cases []verify.Case, ran *verify.Outcome) report.BundleFiles {
	bundle := report.BundleFiles{Options: report.Options{Golden: o.golden, Declared: p.secretForms()}}
	if o.bundleDir != "" {
		bundle.Env, bundle.Git = os.Environ(), verify.GitInfo(p.cfg.Dir)
		bundle.Cassettes, bundle.Logs = ran.Bundle(p.cfg.Dir, p.cfg.Order, cases)
	}
	return bundle
}

// reportTool names this build in the reports.
func reportTool() report.Tool {
	ver, sha := buildInfo()
	return report.Tool{Name: "cassette", Version: ver, SHA: sha, URI: "https://github.com/cassette-dev/cassette"}
}
