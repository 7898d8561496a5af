package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verify"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// diffProject is the project the normalize and diff commands resolve
// normalizer names with; nil without a cassette.yaml (each cassette's own
// normalizers apply).
func diffProject(g *globals) (*workspace.Project, error) {
	p, err := optionalProject(g)
	if p == nil {
		return nil, err
	}
	return p.Project, nil
}

func newNormalizeCmd(stdio *IO, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "normalize FILE",
		Short: "Print a cassette's normalized form: what verify compares",
		Long: `normalize applies the cassette's normalizers (and its adapter's, when a
cassette.yaml is found) and prints the result: volatile values replaced by
placeholders, the same value by the same placeholder within the cassette.`,
		Example: `  cassette normalize cassettes/github/list-pulls.yaml`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := diffProject(g)
			if err != nil {
				return err
			}
			return verify.WriteNormalized(stdio.Out, args[0], p)
		},
	}
}

func newDiffCmd(stdio *IO, g *globals) *cobra.Command {
	var compare string
	cmd := &cobra.Command{
		Use:   "diff A B",
		Short: "Compare two cassettes (or two directories of cassettes) after normalization",
		Long: `diff normalizes both sides with A's normalizers and shows what differs: a
structural diff for JSON (fields added, removed, retyped or changed, with
their JSONPath), a unified diff for text, and the drift class of each
difference. Exit 0 when they are the same, 1 on drift.

With --compare modelled, B is held to A as verify holds a fake in modelled
mode: what B leaves out of A is listed (with the share of A's response
fields B models), not a drift; what B gives must be what A holds.`,
		Example: `  cassette diff cassettes/github/list-pulls.yaml /tmp/new/list-pulls.yaml
  cassette diff cassettes/ /tmp/rerecorded/cassettes/ --json
  cassette diff --compare modelled cassettes/gh/repo.yaml /tmp/fake-gh-repo.yaml`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := diffProject(g)
			if err != nil {
				return err
			}
			d, err := verify.DiffPaths(args[0], args[1], p, compare)
			if err != nil {
				return err
			}
			render := func() error { return d.Render(stdio.Out, stdio.Color) }
			if g.json {
				render = func() error { return d.WriteJSON(stdio.Out) }
			}
			if err := render(); err != nil {
				return err
			}
			if exit := d.Exit(); exit != outcome.ExitPass {
				// Like every failing command: the reason and one next step on
				// stderr (stdout holds the diff, or its JSON).
				errIO := &IO{Color: stdio.ErrColor}
				fmt.Fprintf(stdio.Err, "%s %s and %s differ after normalization\n", paint(errIO, "31;1", "error["+string(outcome.EContractDrift)+"]:"), args[0], args[1])
				fmt.Fprintf(stdio.Err, "%s %s\n", paint(errIO, "1", "next:"), d.NextStep)
				return exitError(exit)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&compare, "compare", cfgschema.CompareExact, "exact (byte for byte after normalization) or modelled (what B leaves out of A is listed, not a drift)")
	return cmd
}
