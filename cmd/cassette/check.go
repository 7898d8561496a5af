package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/internal/harness"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/recording"
	"github.com/cassette-dev/cassette/internal/report"
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
			return checkRun(cmd.Context(), stdio, g, o, args)
		},
	}
	o.selectFlags.bind(cmd)
	f := cmd.Flags()
	f.StringVar(&o.reportDir, "report-dir", "", "also write the report files of the checked cases here")
	f.BoolVar(&o.golden, "golden", false, "golden mode: byte-stable reports (sorted keys, volatile fields omitted)")
	return cmd
}

func checkRun(ctx context.Context, stdio *IO, g *globals, o *checkOptions, paths []string) error {
	// stdout is the harness's answer stream: every human line goes to stderr
	dest := reportDest{command: "check", reportDir: o.reportDir, golden: o.golden, errOut: true}
	cases, opts, err := plannedCases(g, &o.selectFlags, "check", paths)
	if err != nil {
		return errorReport(stdio, g, dest, outcome.AsError(err))
	}
	// Ctrl-C ends the input: the lines checked so far are judged and
	// written, and the run ends E_INTERRUPTED (exit 3).
	ctx, ints, stop := recording.CatchContext(ctx)
	defer stop()
	k := &harness.Checker{Cases: cases, Options: opts, Now: time.Now}
	done, err := k.Check(harness.Interruptible(ctx, stdio.In), stdio.Out)
	if err != nil {
		return errorReport(stdio, g, dest, &outcome.Error{Reason: outcome.EIO, Message: "cassette check: " + err.Error() + " (check the harness's pipes)", Err: err,
			NextStep: outcome.Command("cassette", "check", "--help")})
	}
	run := done.Run(opts.Config, reportTool())
	if sig := ints.Signal(); sig != nil {
		run.Err = &outcome.Error{Reason: outcome.EInterrupted, NextStep: checkAgain(g, o, paths),
			Message: fmt.Sprintf("interrupted (%s): the input ended at the signal; the %d lines checked before it are in the reports; run the harness again", sig, len(run.Cases))}
	}
	pub, werr := publishRun(stdio, false, dest, run, report.BundleFiles{Options: report.Options{Golden: o.golden, Declared: opts.Credentials}})
	sum := harness.Summarize(done, run)
	if werr != nil { // the harness still gets its summary, with the failure's class
		e := outcome.AsError(werr)
		sum.ExitCode, sum.Reason = int(e.Exit()), string(e.Reason)
	} else if pub != nil {
		sum.Reports = o.reportDir
	}
	if err := k.Write(stdio.Out, sum); err != nil { // through the redaction, as every answer
		return err
	}
	if werr != nil {
		return werr
	}
	return runExit(stdio, run)
}

// checkAgain is the command that checks the same cases again (the
// harness feeds it).
func checkAgain(g *globals, o *checkOptions, paths []string) string {
	args := []string{"cassette", "check"}
	if o.reportDir != "" {
		args = append(args, "--report-dir", o.reportDir)
	}
	return commandWithConfig(g.config, append(args, paths...)...)
}
