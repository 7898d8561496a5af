package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/harness"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/report"
	"github.com/cassette-dev/cassette/internal/verify"
)

// errorReport ends a run that failed before any case ran — a bad flag, a
// config error, a refused merge, an invalid observation, an interrupt — as
// every run ends (finishRun): the Seeds line, every report file with the
// error as the run's one failed test, the job summary and, with
// --bundle-dir, a bundle; CI never reads the previous run's verdict (for
// coverage, coverage.json too). With --json, stdout carries summary.json
// (coverage.json). It prints the error and returns the exit.
func errorReport(stdio *IO, g *globals, d reportDest, e *outcome.Error) error {
	run := verify.ErrorReport(g.config, reportTool(), e, time.Now())
	run.Command, run.ReplayCommand = d.command, d.replay
	if d.command == "coverage" {
		run.Coverage = &report.Coverage{Adapters: []report.CoverageAdapter{}}
	}
	bundle := report.BundleFiles{Options: report.Options{Golden: d.golden}}
	if d.bundleDir != "" {
		bundle.Env, bundle.Git = os.Environ(), verify.GitInfo(filepath.Dir(g.config))
	}
	if d.jsonFile == "" && !d.errOut {
		d.jsonFile = report.FileSummary
	}
	if d.command == "check" { // the harness reads its answer stream to the end: the summary line says why it ended
		enc := json.NewEncoder(stdio.Out)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(harness.Summarize(&harness.Checked{}, run))
	}
	err := finishRun(stdio, g.json, d, run, bundle)
	if _, ok := err.(exitError); !ok && err != nil {
		// the reports could not be written: the run's error stands, and the
		// one that kept its reports from disk is a warning
		fmt.Fprintf(stdio.Err, "warning: could not write the reports of this error: %s\n", outcome.Printable(err.Error()))
		printError(stdio, g, e)
		return exitError(e.Exit())
	}
	return err
}

// usageReport writes the error report of a command line cobra refused (an
// unknown flag, a bad flag value, a wrong argument count) when the command
// is one that writes reports: its report flags are read from args as far
// as they can be, ignoring the rest (merge without --out writes none, and
// prints its Seeds line all the same). It returns nil for a command that
// writes no reports, else what errorReport returns (an exitError once the
// error is printed).
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
	fs.StringVar(&g.config, "config", cfgschema.ConfigFile, "")
	fs.BoolVar(&g.json, "json", false, "")
	switch c.CommandPath() {
	case root.Name() + " verify", root.Name() + " refresh":
		d.command = c.Name()
		fs.StringVar(&d.reportDir, "report-dir", filepath.Join(".cassette", "reports"), "")
		fs.StringVar(&d.bundleDir, "bundle-dir", "", "")
		fs.BoolVar(&d.golden, "golden", false, "")
	case root.Name() + " coverage":
		d.command, d.jsonFile = c.Name(), report.FileCoverage
		fs.StringVar(&d.reportDir, "report-dir", filepath.Join(".cassette", "reports", "coverage"), "")
		fs.BoolVar(&d.golden, "golden", false, "")
	case root.Name() + " check":
		d.command, d.errOut = c.Name(), true
		fs.StringVar(&d.reportDir, "report-dir", "", "")
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
	return errorReport(stdio, g, d, e)
}
