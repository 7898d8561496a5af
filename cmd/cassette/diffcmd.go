package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/diff"
	"github.com/cassette-dev/cassette/normalize"
	"github.com/cassette-dev/cassette/outcome"
	"github.com/cassette-dev/cassette/redact"
	"github.com/cassette-dev/cassette/verify"
)

// diffProject is the config (when there is one) and the registry that the
// normalize and diff commands resolve normalizer names with. Without a
// cassette.yaml, each cassette's own normalizers apply.
func diffProject(g *globals) (*cassettes.Config, *normalize.Registry, error) {
	p, err := loadProject(g)
	var ce *outcome.Error
	if errors.As(err, &ce) && ce.Reason == outcome.EMissingConfig {
		return nil, normalize.Builtins(), nil
	}
	if err != nil {
		return nil, nil, err
	}
	return p.cfg, p.Normalizers, nil
}

func diffOptions(cfg *cassettes.Config, reg *normalize.Registry) diff.Options {
	o := diff.Options{Registry: reg, Headers: []string{}}
	if cfg == nil {
		return o
	}
	o.Normalize = normalize.Options{Credentials: redact.FromEnv(cfg.CredentialNames(), os.LookupEnv), Rules: cfg.Redaction(), WorkDir: cfg.Dir}
	o.Normalizers = func(c *cassettes.Cassette) []string { return verify.NormalizerNames(c, cfg.Adapters[c.Adapter]) }
	return o
}

func loadOptionsFor(cfg *cassettes.Config, reg *normalize.Registry) cassettes.LoadOptions {
	if cfg == nil {
		return cassettes.LoadOptions{Normalizers: reg}
	}
	return cassettes.LoadOptions{Config: cfg, Normalizers: reg}
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
			cfg, reg, err := diffProject(g)
			if err != nil {
				return err
			}
			c, err := cassettes.Load(args[0], loadOptionsFor(cfg, reg))
			if err != nil {
				return err
			}
			o := diffOptions(cfg, reg)
			if o.Normalizers != nil {
				c.Normalizers = o.Normalizers(c)
			}
			p, err := diff.Pipeline(c, o)
			if err != nil {
				return err
			}
			return diff.WriteNormalized(stdio.Out, c, p)
		},
	}
}

func newDiffCmd(stdio *IO, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "diff A B",
		Short: "Compare two cassettes (or two directories of cassettes) after normalization",
		Long: `diff normalizes both sides with A's normalizers and shows what differs: a
structural diff for JSON (fields added, removed, retyped or changed, with
their JSONPath), a unified diff for text, and the drift class of each
difference. Exit 0 when they are the same, 1 on drift.`,
		Example: `  cassette diff cassettes/github/list-pulls.yaml /tmp/new/list-pulls.yaml
  cassette diff cassettes/ /tmp/rerecorded/cassettes/ --json`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, reg, err := diffProject(g)
			if err != nil {
				return err
			}
			lo := loadOptionsFor(cfg, reg)
			a, err := cassettes.LoadTree(args[:1], lo)
			if err != nil {
				return err
			}
			b, err := cassettes.LoadTree(args[1:], lo)
			if err != nil {
				return err
			}
			o := diffOptions(cfg, reg)
			var (
				exit   outcome.Exit
				render func() error
			)
			if isFile(args[0]) && isFile(args[1]) && len(a) == 1 && len(b) == 1 {
				r, err := diff.Compare(a[0], b[0], o)
				if err != nil {
					return err
				}
				exit, render = r.Exit(), func() error { return diff.Render(stdio.Out, r, stdio.Color) }
				if g.json {
					render = func() error { return diff.WriteJSON(stdio.Out, r) }
				}
			} else {
				s, err := diff.CompareSets(a, b, o)
				if err != nil {
					return err
				}
				exit, render = s.Exit(), func() error { return diff.RenderSet(stdio.Out, s, stdio.Color) }
				if g.json {
					render = func() error { return diff.WriteJSON(stdio.Out, s) }
				}
			}
			if err := render(); err != nil {
				return err
			}
			if exit != outcome.ExitPass {
				// Like every failing command: the reason and one next step on
				// stderr (stdout holds the diff, or its JSON).
				errIO := &IO{Color: stdio.ErrColor}
				fmt.Fprintf(stdio.Err, "%s %s and %s differ after normalization\n", paint(errIO, "31;1", "error["+string(outcome.EContractDrift)+"]:"), args[0], args[1])
				fmt.Fprintf(stdio.Err, "%s %s\n", paint(errIO, "1", "next:"), diffNextStep(cfg, a, args))
				return exitError(exit)
			}
			return nil
		},
	}
}

// diffNextStep is what to run after a drift between A and B: in a project,
// verify of A's case (does the fake match the cassette?), or of every case
// for two directories; outside one, A's normalized form, what was compared.
func diffNextStep(cfg *cassettes.Config, a []*cassettes.Cassette, args []string) string {
	switch {
	case cfg == nil:
		return outcome.Command("cassette", "normalize", args[0])
	case len(a) == 1 && isFile(args[0]) && cfg.Adapters[a[0].Adapter] != nil:
		return commandWithConfig(cfg.Path, "cassette", "verify", "--case", a[0].ID())
	}
	return commandWithConfig(cfg.Path, "cassette", "verify")
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
