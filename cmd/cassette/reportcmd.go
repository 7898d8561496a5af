package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/report"
)

func newReportCmd(stdio *IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Work with the report files verify writes",
		Args:  cobra.NoArgs,
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
				return cassettes.Errorf(cassettes.EUsage, "cassette report merge --out DIR "+strings.Join(dirs, " "), "--out is required")
			}
			code, err := report.CmdMerge(stdio.Out, out, dirs, mo)
			if err != nil {
				return err
			}
			if code != cassettes.ExitPass {
				return exitError(code)
			}
			return nil
		},
	}
	merge.Flags().BoolVar(&mo.AllowIncomplete, "allow-incomplete", false, "merge even when some shards of the matrix are missing")
	merge.Flags().StringVar(&out, "out", "", "directory for the merged reports")
	cmd.AddCommand(merge)
	cmd.AddCommand(newReportHTMLCmd(stdio))
	return cmd
}

func newBundleCmd(stdio *IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bundle",
		Short: "Work with forensic bundles (verify --bundle-dir)",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "validate DIR",
		Short: "Check a bundle against its schema: required files, sizes, hashes, JSON and JSONL",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			probs := report.ValidateBundle(args[0])
			if len(probs) > 0 {
				return &cassettes.Error{Reason: cassettes.EBundleInvalid, Message: fmt.Sprintf("bundle %s has %d problem(s)", args[0], len(probs)),
					Problems: probs, NextStep: "re-create the bundle: cassette verify --bundle-dir DIR"}
			}
			fmt.Fprintf(stdio.Out, "ok: bundle %s is valid\n", args[0])
			return nil
		},
	})
	return cmd
}
