package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verify"
)

func newValidateCmd(stdio *IO, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "validate [paths...]",
		Short: "Check cassette.yaml and cassettes: schema, adapters, normalizers, secrets",
		Long: `validate loads cassette.yaml and every cassette under cassettes/ (or the
files and directories given) strictly, and prints every problem it finds with
its file, line and field, what was expected and a suggestion. A cassette that
contains a credential (a known key format, or the value of a variable named in
an adapter's real.credentials) fails with E_SECRET_LEAK. A CLI cassette whose
input.command is not its adapter's real.command, which refresh and record
refuse to run again, fails with E_CASSETTE_INVALID.`,
		Example: `  cassette validate
  cassette validate cassettes/github/list-pulls.yaml
  cassette validate --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := loadProject(g)
			if err != nil {
				return err
			}
			list, ce, err := verify.Validate(p.Project, args, p.loadOptions())
			if err != nil {
				return err
			}
			if g.json {
				out := map[string]any{"cassettes": len(list), "problems": []outcome.Problem{}, "warnings": []outcome.Problem{}}
				if ce != nil {
					out["problems"] = outcome.ProblemList(ce.Problems)
					out["reason_code"] = ce.Reason
					out["next_step"] = ce.NextStep
				}
				var warns []outcome.Problem
				for _, c := range list {
					warns = append(warns, c.Warnings...)
				}
				out["warnings"] = outcome.ProblemList(warns)
				if err := json.NewEncoder(stdio.Out).Encode(out); err != nil {
					return err
				}
				if ce != nil {
					printError(stdio, &globals{}, ce)
					return exitError(ce.Exit())
				}
				return nil
			}
			for _, c := range list {
				for _, w := range c.Warnings {
					fmt.Fprintf(stdio.Err, "%s %s\n", paint(&IO{Color: stdio.ErrColor}, "33", "warning:"), w.String())
				}
			}
			if ce != nil {
				return ce
			}
			fmt.Fprintf(stdio.Out, "%s %s and %d cassettes are valid\n", paint(stdio, "32", "ok:"), p.cfg.Path, len(list))
			return nil
		},
	}
}
