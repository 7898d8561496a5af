package main

import (
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/coverage"
	"github.com/cassette-dev/cassette/internal/interrupt"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/report"
	"github.com/cassette-dev/cassette/internal/verify"
)

type coverageOptions struct {
	min       float64
	observed  string
	reportDir string
	verifyDir string
	verbose   bool
	golden    bool
}

func newCoverageCmd(stdio *IO, g *globals) *cobra.Command {
	o := &coverageOptions{}
	cmd := &cobra.Command{
		Use:   "coverage [--min PERCENT]",
		Short: "Check that every call shape the tests sent to a fake is backed by a cassette",
		Long: `coverage holds the calls 'cassette observe' saw the tests make (the latest
run of .cassette/observed: observe's, or a pytest or node:test session's,
with the runs written to during it, named on stderr) against the
cassettes, per adapter: a call shape is
covered when a cassette of the adapter has it, uncovered when none does;
a cassette no test exercised is stale (shown, never failing).

It fails (exit 1, E_UNCOVERED_CALL) when an adapter covers less than its
coverage.min in cassette.yaml (default 100%, --min for all), and when an
adapter's fake answered calls but it has no cassette at all (the seed
ADR's rule: record a baseline cassette). For each uncovered shape it
prints the command that records the observed call from the real side.

The run has its own reports in --report-dir (default
.cassette/reports/coverage, beside verify's): coverage.json, junit.xml (a
test case per call shape), sarif.json (rule cassette/uncovered-call-shape
at the adapter in cassette.yaml, the record command as the fix),
summary.json, report.jsonl, log.jsonl, run.json and report.html; on GitHub
Actions a section of the job summary.

Where the project compares fakes in modelled mode, it also shows what each
fake models, from the latest verify run's summary.json (--verify-reports,
default .cassette/reports), with that run's id and age, and fails (exit 1)
when an adapter is below its coverage.min_modelled.`,
		Example: `  cassette observe -- go test ./...
  cassette coverage
  cassette coverage --min 80 -v`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var min *float64
			if cmd.Flags().Changed("min") {
				min = &o.min
			}
			err := coverageRun(stdio, g, o, min)
			if _, ok := err.(exitError); ok || err == nil {
				return err
			}
			// A run that stopped before its analysis writes its reports
			// too: CI never reads the previous run's coverage verdict.
			return errorReport(stdio, g, o.dest(), outcome.AsError(err))
		},
	}
	f := cmd.Flags()
	f.Float64Var(&o.min, "min", coverage.DefaultMin, "percent of each adapter's observed call shapes that must be covered (replaces coverage.min)")
	f.StringVar(&o.observed, "observed", "", "directory of observation files (default .cassette/observed of the project)")
	f.StringVar(&o.reportDir, "report-dir", filepath.Join(".cassette", "reports", "coverage"), "where coverage.json and the run's reports (junit.xml, sarif.json, report.html, …) are written")
	f.StringVar(&o.verifyDir, "verify-reports", "", "report directory of the verify run whose modelled figures are shown (default .cassette/reports, verify's)")
	f.BoolVar(&o.golden, "golden", false, "golden mode: byte-stable reports (volatile fields omitted)")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "list the covered shapes and their cassettes too")
	cmd.GroupID = "main"
	return cmd
}

// dest is where coverage's reports go.
func (o *coverageOptions) dest() reportDest {
	return reportDest{command: "coverage", reportDir: o.reportDir, golden: o.golden, replay: "cassette coverage", jsonFile: report.FileCoverage}
}

func coverageRun(stdio *IO, g *globals, o *coverageOptions, min *float64) error {
	if min != nil && (*min < 0 || *min > 100) {
		return outcome.Errorf(outcome.EUsage, "cassette coverage --min 90", "--min %g is not a percentage (0 to 100)", *min)
	}
	started := time.Now()
	p, err := loadProject(g)
	if err != nil {
		return err
	}
	dir := o.observed
	if dir == "" {
		dir = filepath.Join(p.cfg.Dir, filepath.FromSlash(coverage.ObservedDir))
	}
	config := g.config
	var rep *coverage.Report
	// Ctrl-C while it reads ends the run E_INTERRUPTED, its reports written
	err = interrupt.Reading("reading the observations and cassettes", p.command("cassette", "coverage"), func() (err error) {
		rep, err = coverage.AnalyzeProject(p.Project, dir, coverage.Options{Min: min, ObserveStep: p.observeStep(), Log: stdio.Err, VerifyReports: o.verifyDir,
			Record: func(name string, a *cfgschema.Adapter, c coverage.Call, scenario string) string {
				return coverage.RecordCommand(name, a, c, scenario, config)
			}})
		return err
	})
	if err != nil {
		return err
	}
	return coverageOutcome(stdio, g, o, p, rep, started)
}

// coverageOutcome prints the table, publishes the run's reports
// (coverage.json among them, and the job summary) and picks the exit code.
func coverageOutcome(stdio *IO, g *globals, o *coverageOptions, p *project, rep *coverage.Report, started time.Time) error {
	base := verify.RepoRoot(p.cfg.Dir)
	prefix := verify.RelPath(base, p.cfg.Dir)
	if prefix == "." {
		prefix = ""
	}
	suite := "cassette"
	if abs, err := filepath.Abs(p.cfg.Dir); err == nil {
		suite = filepath.Base(abs)
	}
	m := coverage.RunMeta{Tool: reportTool(), Suite: suite, ConfigPath: verify.RelPath(base, p.cfg.Path), Prefix: prefix, Started: started, Finished: time.Now()}
	if data, err := os.ReadFile(p.cfg.Path); err == nil {
		m.ConfigBytes = data
	}
	run := rep.Run(m)
	// the console's, summary.json's and the job summary's one outcome and next step
	run.FailMessage, run.NextStep = rep.Failure()
	dest := o.dest()
	rep.WriteConsole(dest.human(stdio, g.json), stdio.Color && !g.json, o.verbose)
	return finishRun(stdio, g.json, dest, run, report.BundleFiles{Options: report.Options{Golden: o.golden, Declared: p.credentials()}})
}
