package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/coverage"
	"github.com/cassette-dev/cassette/redact"
)

type coverageOptions struct {
	min       float64
	observed  string
	reportDir string
	verbose   bool
}

func newCoverageCmd(stdio *IO, g *globals) *cobra.Command {
	o := &coverageOptions{}
	cmd := &cobra.Command{
		Use:   "coverage [--min PERCENT]",
		Short: "Check that every call shape the tests sent to a fake is backed by a cassette",
		Long: `coverage holds the calls 'cassette observe' saw the tests make (the files of
.cassette/observed) against the cassettes, per adapter: a call shape is
covered when a cassette of the adapter has it, uncovered when none does;
a cassette no test exercised is stale (shown, never failing).

It fails (exit 1, E_UNCOVERED_CALL) when an adapter covers less than its
coverage.min in cassette.yaml (default 100%, --min for all), and when an
adapter's fake answered calls but it has no cassette at all (the seed
ADR's rule: record a baseline cassette). For each uncovered shape it
prints the command that records the observed call from the real side.
coverage.json goes to --report-dir.`,
		Example: `  cassette observe -- go test ./...
  cassette coverage
  cassette coverage --min 80 -v`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var min *float64
			if cmd.Flags().Changed("min") {
				min = &o.min
			}
			return coverageRun(stdio, g, o, min)
		},
	}
	f := cmd.Flags()
	f.Float64Var(&o.min, "min", coverage.DefaultMin, "percent of each adapter's observed call shapes that must be covered (replaces coverage.min)")
	f.StringVar(&o.observed, "observed", "", "directory of observation files (default .cassette/observed of the project)")
	f.StringVar(&o.reportDir, "report-dir", filepath.Join(".cassette", "reports"), "where coverage.json is written")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "list the covered shapes and their cassettes too")
	cmd.GroupID = "main"
	return cmd
}

func coverageRun(stdio *IO, g *globals, o *coverageOptions, min *float64) error {
	if min != nil && (*min < 0 || *min > 100) {
		return cassettes.Errorf(cassettes.EUsage, "cassette coverage --min 90", "--min %g is not a percentage (0 to 100)", *min)
	}
	p, err := loadProject(g)
	if err != nil {
		return err
	}
	dir := o.observed
	if dir == "" {
		dir = filepath.Join(p.cfg.Dir, filepath.FromSlash(coverage.ObservedDir))
	}
	obs, probs, err := coverage.ReadDir(dir)
	if err != nil {
		return &cassettes.Error{Reason: cassettes.EIO, Message: "cannot read the observations", Err: err, NextStep: "ls -l " + dir}
	}
	if len(probs) > 0 {
		return &cassettes.Error{Reason: cassettes.EObservationInvalid, Message: fmt.Sprintf("%d lines of %s are not observations", len(probs), dir), Problems: probs,
			NextStep: "cassette observe -- go test ./...   # observe again; the format is in the README, \"The observation format\""}
	}
	if len(obs) == 0 {
		return &cassettes.Error{Reason: cassettes.EUsage, Message: "no calls observed in " + dir + ": run the tests under cassette observe first",
			NextStep: "cassette observe -- go test ./...   # or your test command"}
	}
	declared := p.credentials()
	for i := range obs {
		obs[i].Call = coverage.Redact(obs[i].Call, declared)
	}
	list, err := loadCorpus(p)
	if err != nil {
		return err
	}
	config := g.config
	rep, probs := coverage.Analyze(p.cfg, list, obs, coverage.Options{Min: min,
		Record: func(name string, a *cassettes.Adapter, c coverage.Call, scenario string) string {
			return coverage.RecordCommand(name, a, c, scenario, config)
		}})
	if len(probs) > 0 {
		return &cassettes.Error{Reason: cassettes.ECfgParse, Message: "the coverage settings or the observed calls do not fit " + p.cfg.Path, Problems: probs,
			NextStep: "cassette validate --config " + p.cfg.Path}
	}
	return coverageOutcome(stdio, g, o, rep)
}

// loadCorpus loads every cassette of the project; a project without a
// cassettes directory has none (coverage then says which adapters need one).
func loadCorpus(p *project) ([]*cassettes.Cassette, error) {
	dir := p.cfg.CassetteDir()
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return cassettes.LoadTree([]string{dir}, p.loadOptions())
}

// coverageOutcome prints the report, writes coverage.json and picks the
// exit code.
func coverageOutcome(stdio *IO, g *globals, o *coverageOptions, rep *coverage.Report) error {
	exit := 0
	if rep.Failed() {
		exit = 1
	}
	doc, err := rep.JSON(exit)
	if err != nil {
		return err
	}
	doc = redact.Redact(doc, nil)
	if err := os.MkdirAll(o.reportDir, 0o755); err != nil {
		return &cassettes.Error{Reason: cassettes.EIO, Message: "cannot create " + o.reportDir, Err: err, NextStep: "ls -ld " + o.reportDir}
	}
	path := filepath.Join(o.reportDir, "coverage.json")
	if err := os.WriteFile(path, doc, 0o644); err != nil {
		return &cassettes.Error{Reason: cassettes.EIO, Message: "cannot write " + path, Err: err, NextStep: "ls -ld " + o.reportDir}
	}
	console := stdio.Out
	if g.json {
		console = stdio.Err
		_, _ = stdio.Out.Write(doc)
	}
	rep.WriteConsole(console, stdio.Color && !g.json, o.verbose)
	fmt.Fprintf(console, "report: %s\n", path)
	if exit == 0 {
		return nil
	}
	return uncoveredError(rep)
}

// uncoveredError says what fails the run and gives the first record
// command as the next step.
func uncoveredError(rep *coverage.Report) error {
	var parts []string
	next := ""
	for _, a := range rep.Adapters {
		un := a.Uncovered()
		switch a.Status() {
		case coverage.StatusUnrecorded:
			parts = append(parts, fmt.Sprintf("adapter %s has no cassette for the %d call shapes its fake answered", a.Name, len(un)))
		case coverage.StatusFail:
			parts = append(parts, fmt.Sprintf("adapter %s covers %.1f%% of its call shapes (min %.1f%%): %d uncovered", a.Name, a.Percent(), a.Min, len(un)))
		default:
			continue
		}
		if next == "" && len(un) > 0 {
			next = un[0].Record
		}
	}
	return &cassettes.Error{Reason: cassettes.EUncoveredCall, Message: strings.Join(parts, "; "), NextStep: next}
}

// warnUnrecorded tells verify's user about adapters (of those selected)
// that have a fake and no cassette: nothing proves such a fake.
func warnUnrecorded(w io.Writer, cfg *cassettes.Config, list []*cassettes.Cassette, selected []string) {
	for _, name := range coverage.Unrecorded(cfg, list, selected) {
		fmt.Fprintf(w, "warning: adapter %s has a fake and no cassette: nothing proves the fake answers like the real side (the seed ADR: %s)\n  next: cassette record --adapter %s --scenario NAME -- COMMAND   # then: cassette observe -- go test ./... && cassette coverage\n",
			name, coverage.RuleUnrecorded, name)
	}
}
