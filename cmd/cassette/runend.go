package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/report"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// reportDest is where a command that writes reports (verify, refresh,
// coverage, check, report merge) puts them, and how its run ends.
type reportDest struct {
	command   string // the run's command: "verify", "refresh", "coverage" or "check"
	reportDir string // --report-dir, or merge's --out; "" for none (check without it)
	bundleDir string // --bundle-dir; "" for none
	golden    bool
	replay    string // the suite's replay command; "" is "cassette verify"
	// jsonFile is the report file --json puts on stdout: summary.json,
	// coverage.json for coverage; "" when stdout is not the reports' (check's
	// answer stream).
	jsonFile string
	// errOut puts every human line on stderr: stdout is a protocol (check).
	errOut bool
}

// human is where the run's human lines go: stderr when stdout carries JSON.
func (d reportDest) human(stdio *IO, asJSON bool) io.Writer {
	if d.errOut || (asJSON && d.jsonFile != "") {
		return stdio.Err
	}
	return stdio.Out
}

// finishRun is how every run that writes reports ends, whatever stopped
// it: it prints the Seeds line (specs/002 §3.3.1), publishes the report
// files (and the bundle, and the job summary) with the run's one exit code,
// says where they went and, when the run did not pass, prints one
// error[REASON] line, the run's problems and one next step on stderr. It
// returns the run's exit. A bundle or job summary that could not be
// written is a warning: the reports stand, and with them the exit code.
// Only reports that could not be written at all end the run otherwise
// (their error, exit 3 or 2).
func finishRun(stdio *IO, asJSON bool, d reportDest, run *verdict.Run, bundle report.BundleFiles) error {
	if _, err := publishRun(stdio, asJSON, d, run, bundle); err != nil {
		return err
	}
	return runExit(stdio, run)
}

// publishRun is finishRun up to the run's exit: the Seeds line, the
// reports and where they went. The error is that of reports that could not
// be written at all; nil Published with a nil error is a run without a
// report directory.
func publishRun(stdio *IO, asJSON bool, d reportDest, run *verdict.Run, bundle report.BundleFiles) (*report.Published, error) {
	human := d.human(stdio, asJSON)
	_ = report.WriteSeeds(human, (*report.Run)(run))
	if d.reportDir == "" {
		return nil, nil
	}
	pub, err := report.Publish((*report.Run)(run), bundle.Options, report.Destination{Dir: d.reportDir, BundleRoot: d.bundleDir, Bundle: bundle,
		StepSummary: os.Getenv("GITHUB_STEP_SUMMARY"), Links: report.GitHubLinks(os.Getenv)})
	if pub == nil {
		return nil, err
	}
	if asJSON && d.jsonFile != "" {
		_, _ = stdio.Out.Write(pub.Files[d.jsonFile])
	}
	pub.WriteWhere(human, d.reportDir)
	if err != nil {
		e := outcome.AsError(err)
		fmt.Fprintf(stdio.Err, "warning: %s (%s); the reports were written\n", outcome.Printable(e.Headline()), e.Reason)
		for _, p := range e.Problems {
			fmt.Fprintf(stdio.Err, "  %s\n", outcome.PrintableBlock(p.String(), "    "))
		}
	}
	return pub, nil
}

// runExit ends a run: a failing one prints `error[REASON]: outcome`, the
// problems of a run-level error and its next step on stderr, like every
// other failing command, and exits with the run's class.
func runExit(stdio *IO, run *verdict.Run) error {
	code := run.Exit()
	if code == outcome.ExitPass {
		return nil
	}
	e := &outcome.Error{Reason: run.Reason(), Message: run.Message(), NextStep: strings.TrimPrefix(run.NextStepCommand(), "Run: ")}
	if run.Err != nil {
		e.Problems = run.Err.Problems
	}
	printError(stdio, &globals{}, e)
	return exitError(code)
}
