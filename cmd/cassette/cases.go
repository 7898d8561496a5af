package main

import (
	"encoding/json"
	"os"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/internal/harness"
	"github.com/cassette-dev/cassette/internal/nextstep"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verify"
)

// selectFlags are the case selection flags verify, cases and check share.
type selectFlags struct {
	adapters []string
	run      string
	cases    []string
}

func (s *selectFlags) bind(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringSliceVar(&s.adapters, "adapter", nil, "only these adapters (repeatable)")
	f.StringVar(&s.run, "run", "", "only cases whose adapter/scenario matches this regular expression")
	f.StringSliceVar(&s.cases, "case", nil, "only this case, adapter/scenario (repeatable)")
}

// selection turns the flags into a verify.Selection (no shard); name is the command, for a bad --run's next step.
func (s *selectFlags) selection(g *globals, name string) (verify.Selection, error) {
	sel, err := verify.Select(s.adapters, s.run, s.cases)
	if err != nil {
		return sel, outcome.Errorf(outcome.EUsage, runPatternStep(g, name, s.run), "--run %q is not a regular expression: %v", s.run, err)
	}
	return sel, nil
}

// plannedCases loads the project and plans its cases as verify would, for a harness:
// the cases and the options verify would judge them with (harness.Plan).
func plannedCases(g *globals, s *selectFlags, name string, paths []string) ([]verify.Case, verify.Options, error) {
	debug.SetGCPercent(400) // cases, check: 4 MB live for 10,000 cassettes, 190 MB of garbage parsing them; GC was 20% of the CPU
	sel, err := s.selection(g, name)
	if err != nil {
		return nil, verify.Options{}, err
	}
	p, err := loadProject(g)
	if err != nil {
		return nil, verify.Options{}, err
	}
	if len(paths) == 0 {
		paths = []string{p.cfg.CassetteDir()}
	}
	cases, opts, err := harness.Plan(p.Project, paths, sel, os.LookupEnv)
	if err != nil && opts.Config == nil { // the cassettes did not load
		return nil, opts, nextstep.NoCassetteDir(p.cfg, err, paths)
	}
	return cases, opts, err
}

func newCasesCmd(stdio *IO, g *globals) *cobra.Command {
	s := &selectFlags{}
	cmd := &cobra.Command{
		Use:   "cases [paths...]",
		Short: "List the cases a test runner drives its in-process fakes with (--json: the harness protocol)",
		Long: `cases lists the cases verify would run, with what a test runner needs to
drive an in-process fake with each: a CLI case's command, arguments, stdin,
environment names and directory; an HTTP case's requests, in order. With
--json it prints the listing of the harness protocol (see
docs/reference/harness-protocol.md); the pytest and node:test bindings read it,
then send what their fakes produced to 'cassette check'.

Exit 0: listed; 2: a config or cassette error.`,
		Example: `  cassette cases
  cassette cases --json --adapter git`,
		RunE: func(cmd *cobra.Command, args []string) error {
			cases, opts, err := plannedCases(g, s, "cases", args)
			if err != nil {
				return err
			}
			l, err := harness.List(cases, opts, time.Now())
			if err != nil {
				return err
			}
			if g.json {
				enc := json.NewEncoder(stdio.Out)
				enc.SetEscapeHTML(false)
				enc.SetIndent("", "  ")
				return enc.Encode(l)
			}
			return l.WriteTable(stdio.Out)
		},
	}
	s.bind(cmd)
	return cmd
}
