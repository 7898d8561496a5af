package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/internal/interrupt"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/report"
	"github.com/cassette-dev/cassette/internal/verdict"
)

func newReportCmd(stdio *IO, g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "report",
		Short:   "Work with the report files verify writes",
		Example: "  cassette report merge --out out/all out/1 out/2",
		Args:    cobra.NoArgs,
	}
	var out string
	var mo report.MergeOptions
	merge := &cobra.Command{
		Use:   "merge --out DIR SHARD_DIR...",
		Short: "Combine the reports of 'verify --shard i/n' runs into one set, as one unsharded run writes it",
		Long: `merge reads the run.json of each shard's report directory and writes the
reports one unsharded run would have written. Every shard i/n of the matrix
must be given once: an incomplete set is refused (exit 2, naming the missing
shard) unless --allow-incomplete. The command exits with the merged run's
exit code (0 pass, 1 drift or failure, 2 user error, 3 infrastructure) and
prints its next step.`,
		Example: `  cassette verify --shard 1/2 --report-dir out/1
  cassette verify --shard 2/2 --report-dir out/2
  cassette report merge --out out/all out/1 out/2`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, dirs []string) error {
			if out == "" {
				e := outcome.Errorf(outcome.EUsage, outcome.Command(append([]string{"cassette", "report", "merge", "--out", "merged"}, dirs...)...), "--out is required")
				return errorReport(stdio, g, reportDest{command: "verify"}, e) // no reports without --out, the Seeds line all the same
			}
			return reportMerge(stdio, g, out, dirs, mo)
		},
	}
	merge.Flags().BoolVar(&mo.AllowIncomplete, "allow-incomplete", false, "merge even when some shards of the matrix are missing")
	merge.Flags().StringVar(&out, "out", "", "directory for the merged reports")
	cmd.AddCommand(merge)
	cmd.AddCommand(newReportHTMLCmd(stdio))
	return cmd
}

// reportMerge is `cassette report merge --out OUT DIR...`: it reads each
// shard's run.json, merges them and writes the merged reports, prints where
// they are, the merged run's outcome, its seeds and, when that run did not
// pass, its next step; it exits with the merged run's code. A merge it
// refuses (a shard it cannot read, an incomplete or mixed set) writes the
// reports of that error to OUT, as every failing run does.
func reportMerge(stdio *IO, g *globals, out string, dirs []string, mo report.MergeOptions) error {
	refuse := func(err error) error {
		return errorReport(stdio, g, reportDest{command: "verify", reportDir: out}, outcome.AsError(err))
	}
	var shards []report.Shard
	// Ctrl-C while it reads (a slow disk, a FIFO) ends the run E_INTERRUPTED, its reports written
	err := interrupt.Reading("reading the shards' reports", mo.Command(out, dirs), func() (err error) { shards, err = report.ReadShards(dirs); return err })
	if err != nil {
		return refuse(err)
	}
	m, opts, err := report.Merge(shards, mo)
	if err != nil {
		return refuse(err)
	}
	fmt.Fprintf(stdio.Out, "merged %d shard report(s) into %s: %s\n", len(dirs), outcome.Printable(out), outcome.Printable(m.Message()))
	if m.Shard != "" {
		fmt.Fprintf(stdio.Out, "warning: shards %s: the merged reports cover only these shards\n", m.Shard)
	}
	return finishRun(stdio, false, reportDest{command: "verify", reportDir: out}, (*verdict.Run)(m), report.BundleFiles{Options: opts})
}

func newBundleCmd(stdio *IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "bundle",
		Short:   "Work with forensic bundles (verify --bundle-dir)",
		Example: "  cassette bundle validate .cassette/bundles",
		Args:    cobra.NoArgs,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "validate DIR",
		Short: "Check a bundle against its schema: required files, sizes, hashes, JSON and JSONL",
		Long: `validate checks one bundle (a directory holding bundle.json) or, given the
directory passed to --bundle-dir, every bundle below it (DIR/<suite>/<time>/),
and names each one it checked.`,
		Example: `  cassette verify --bundle-dir .cassette/bundles
  cassette bundle validate .cassette/bundles                       # every bundle below it
  cassette bundle validate .cassette/bundles/myproject/20261122T140000Z`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return bundleValidate(stdio, args[0])
		},
	})
	return cmd
}

// bundleValidate validates the bundle at dir, or every bundle below dir when
// dir is a --bundle-dir root (report.ValidateBundles).
func bundleValidate(stdio *IO, dir string) error {
	c, err := report.ValidateBundles(os.DirFS(dir), dir)
	if err != nil {
		return err
	}
	if c.Root {
		fmt.Fprintf(stdio.Err, "%s is a bundle root: validating the %d bundle(s) below it\n", outcome.Printable(dir), len(c.Bundles))
	}
	for i, b := range c.Bundles {
		if len(c.Problems[i]) == 0 {
			fmt.Fprintf(stdio.Out, "ok: bundle %s is valid\n", outcome.Printable(b))
		}
	}
	return c.Err()
}
