package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/outcome"
	"github.com/cassette-dev/cassette/report"
	"github.com/cassette-dev/cassette/verify"
)

// reportDest is where a command that writes reports (verify, refresh,
// report merge) puts them.
type reportDest struct {
	command   string // the run's command: "verify" or "refresh"
	reportDir string // --report-dir, or merge's --out
	bundleDir string // --bundle-dir; "" for none
	golden    bool
	replay    string // the suite's replay command; "" is "cassette verify"
}

// errorReport publishes the reports of a run that failed before any case
// ran — a bad flag, a config error, a refused merge — as every run's are:
// every report file with the error as the run's one failed test, the job
// summary (GITHUB_STEP_SUMMARY) and, with --bundle-dir, a bundle; CI never
// reads the previous run's verdict. It prints the Seeds line (specs/002
// §3.3.1) and, with --json, summary.json on stdout, and returns the error
// for Main to print and exit with.
func errorReport(stdio *IO, g *globals, d reportDest, e *outcome.Error) error {
	run := verify.ErrorReport(g.config, reportTool(), e, time.Now())
	run.Command, run.ReplayCommand = d.command, d.replay
	human := stdio.Out
	if g.json {
		human = stdio.Err // stdout carries summary.json
	}
	_ = report.WriteSeeds(human, run)
	bundle := report.BundleFiles{Options: report.Options{Golden: d.golden}}
	if d.bundleDir != "" {
		bundle.Env, bundle.Git = os.Environ(), verify.GitInfo(filepath.Dir(g.config))
	}
	pub, err := report.Publish(run, bundle.Options, report.Destination{Dir: d.reportDir, BundleRoot: d.bundleDir, Bundle: bundle,
		StepSummary: os.Getenv("GITHUB_STEP_SUMMARY"), Links: githubLinks()})
	if err != nil {
		fmt.Fprintf(stdio.Err, "warning: could not write the reports of this error: %s\n", outcome.Printable(err.Error()))
	}
	if pub == nil {
		return e
	}
	printWritten(human, d.reportDir, pub)
	if g.json { // stdout carries summary.json, as for a run that ran
		stdio.Out.Write(pub.Files[report.FileSummary])
		printError(stdio, &globals{}, e)
		return exitError(e.Exit())
	}
	return e
}

// githubLinks are the forge links of the job summary, from the variables
// GitHub Actions sets.
func githubLinks() report.Links {
	return report.Links{ServerURL: os.Getenv("GITHUB_SERVER_URL"), Repository: os.Getenv("GITHUB_REPOSITORY"), SHA: os.Getenv("GITHUB_SHA")}
}

// usageReport writes the error report of a command line cobra refused (an
// unknown flag, a bad flag value, a wrong argument count) when the command
// is one that writes reports: its report flags are read from args as far
// as they can be, ignoring the rest. It returns nil when it wrote nothing,
// else what errorReport returns (an exitError once the error is printed).
func usageReport(stdio *IO, root *cobra.Command, args []string, e *outcome.Error) error {
	c, rest, err := root.Find(args)
	if err != nil || c == nil {
		return nil
	}
	var d reportDest
	fs := pflag.NewFlagSet(c.Name(), pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.ParseErrorsAllowlist.UnknownFlags = true
	g := &globals{}
	fs.StringVar(&g.config, "config", cassettes.ConfigFile, "")
	fs.BoolVar(&g.json, "json", false, "")
	switch c.CommandPath() {
	case root.Name() + " verify", root.Name() + " refresh":
		d.command = c.Name()
		fs.StringVar(&d.reportDir, "report-dir", filepath.Join(".cassette", "reports"), "")
		fs.StringVar(&d.bundleDir, "bundle-dir", "", "")
		fs.BoolVar(&d.golden, "golden", false, "")
	case root.Name() + " report merge":
		d.command = "verify" // the merged reports stand for a verify run
		fs.StringVar(&d.reportDir, "out", "", "")
	default:
		return nil
	}
	if d.command == "refresh" {
		d.replay = "cassette refresh --once --dry-run"
	}
	_ = fs.Parse(rest) // what could be read; a bad value leaves its default
	if d.reportDir == "" {
		printErrorSeeds(stdio, g, e) // merge without --out: nowhere to write, the Seeds line all the same
		return nil
	}
	return errorReport(stdio, g, d, e)
}

// printErrorSeeds prints the Seeds line (specs/002 §3.3.1: on every run)
// of a run that failed with e and has no directory to write its reports
// to: `report merge` without --out.
func printErrorSeeds(stdio *IO, g *globals, e *outcome.Error) {
	human := stdio.Out
	if g.json {
		human = stdio.Err
	}
	_ = report.WriteSeeds(human, verify.ErrorReport(g.config, reportTool(), e, time.Now()))
}
