package main

import (
	"encoding/json"
	"time"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/harness"
	"github.com/cassette-dev/cassette/outcome"
	"github.com/cassette-dev/cassette/report"
)

type checkOptions struct {
	selectFlags
	reportDir string
	golden    bool
}

func newCheckCmd(stdio *IO, g *globals) *cobra.Command {
	o := &checkOptions{}
	cmd := &cobra.Command{
		Use:   "check [paths...]",
		Short: "Judge what in-process fakes produced (JSON lines on stdin) as verify would: the harness protocol",
		Long: `check is the other half of 'cassette cases --json': a test runner drives its
in-process fakes with the listed cases and writes, one JSON line per case,
what each fake produced (a CLI's stdout, stderr and exit code; an HTTP
fake's responses). check normalizes both sides with the project's rules
and answers each line with a JSON line: pass or drift, with verify's drift
text, classes and file:line. One process serves a whole batch; answers are
flushed as soon as stdin has nothing more buffered, so a runner can also
wait for each answer. The last line is a summary. See
docs/reference/harness-protocol.md for the fields.

With --report-dir, the checked cases are written as verify writes them
(junit.xml, sarif.json, summary.json, report.jsonl, log.jsonl, ...).

Exit 0: every checked case passed (or is quarantined); 1: a fake drifted or
failed; 2: a config error or a line that could not be taken (answered
with type "error"); 3: the reports could not be written.`,
		Example: `  cassette cases --json --adapter git > cases.json
  my-runner cases.json | cassette check --report-dir .cassette/reports`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return checkRun(stdio, g, o, args)
		},
	}
	o.selectFlags.bind(cmd)
	f := cmd.Flags()
	f.StringVar(&o.reportDir, "report-dir", "", "also write the report files of the checked cases here")
	f.BoolVar(&o.golden, "golden", false, "golden mode: byte-stable reports (sorted keys, volatile fields omitted)")
	return cmd
}

func checkRun(stdio *IO, g *globals, o *checkOptions, paths []string) error {
	cases, opts, err := plannedCases(g, &o.selectFlags, "check", paths)
	if err != nil {
		return err
	}
	k := &harness.Checker{Cases: cases, Options: opts, Now: time.Now}
	done, err := k.Check(stdio.In, stdio.Out)
	if err != nil {
		return &outcome.Error{Reason: outcome.EIO, Message: "cassette check: " + err.Error() + " (check the harness's pipes)", Err: err,
			NextStep: outcome.Command("cassette", "check", "--help")}
	}
	run := done.Run(opts.Config, reportTool())
	sum := harness.Summarize(done, run)
	var werr *outcome.Error
	if o.reportDir != "" {
		if werr = outcome.AsError(report.Write(o.reportDir, run, report.Options{Golden: o.golden, Declared: opts.Credentials})); werr != nil {
			// The harness still gets its summary, with the failure's class.
			sum.ExitCode, sum.Reason = int(werr.Exit()), string(werr.Reason)
		} else {
			sum.Reports = o.reportDir
		}
	}
	enc := json.NewEncoder(stdio.Out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(sum); err != nil {
		return err
	}
	switch {
	case werr != nil:
		return werr
	case sum.ExitCode != 0:
		return exitError(sum.ExitCode)
	}
	return nil
}
