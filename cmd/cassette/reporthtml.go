package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/report"
)

// newReportHTMLCmd is `cassette report html DIR`: rebuild report.html from
// the run.json of a report directory (a CI artifact, merged shards).
func newReportHTMLCmd(stdio *IO) *cobra.Command {
	return &cobra.Command{
		Use:   "html DIR",
		Short: "Rebuild report.html from the run.json of a report directory",
		Long: `Rebuild report.html from the run.json that verify or refresh wrote into DIR.

run.json holds both sides of each case that failed, as the run compared
them: the page is rebuilt from it alone, from any directory.`,
		Example: `  cassette report html .cassette/reports
  cassette report merge --out out/all out/1 out/2 && cassette report html out/all`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			run, opts, err := report.ReadRun(os.DirFS(args[0]), args[0])
			if err != nil {
				ce := outcome.AsError(err)
				ce.NextStep = outcome.Command("cassette", "verify", "--report-dir", args[0])
				return ce
			}
			if err := report.WriteHTML(args[0], run, opts); err != nil {
				return err
			}
			fmt.Fprintf(stdio.Out, "wrote %s\n", filepath.Join(args[0], report.FileHTML))
			return nil
		},
	}
}
