package verify

import (
	"fmt"
	"sort"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/report"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// belowMinModelled is the run-level failure of the adapters whose fakes,
// compared in modelled mode, model less of what reality returned than
// their coverage.min_modelled: each one a problem at that line. nil when
// every adapter reaches its floor (or sets none).
func belowMinModelled(results []Result, cfg *cassettes.Config) *outcome.Error {
	if cfg == nil {
		return nil
	}
	sums := map[string]*verdict.Modelled{}
	for _, r := range results {
		if r.Modelled == nil {
			continue
		}
		s := sums[r.Case.Cassette.Adapter]
		if s == nil {
			s = &verdict.Modelled{}
			sums[r.Case.Cassette.Adapter] = s
		}
		s.Fields += r.Modelled.Fields
		s.Modelled += r.Modelled.Modelled
	}
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	sort.Strings(names)
	var probs []outcome.Problem
	for _, n := range names {
		a := cfg.Adapters[n]
		if a == nil || a.Coverage.MinModelled == nil || sums[n].Percent() >= *a.Coverage.MinModelled {
			continue
		}
		field := "adapters." + n + ".coverage.min_modelled"
		probs = append(probs, outcome.Problem{File: cfg.Path, Line: cfg.Line(field), Field: field,
			Message:  fmt.Sprintf("the %s fake models %v%% of the response fields reality returned (%d of %d)", n, sums[n].Percent(), sums[n].Modelled, sums[n].Fields),
			Expected: fmt.Sprintf("at least %v%%", *a.Coverage.MinModelled)})
	}
	if len(probs) == 0 {
		return nil
	}
	return &outcome.Error{Reason: outcome.ETestFailed, Problems: probs,
		Message:  fmt.Sprintf("%d adapter(s) model less than their coverage.min_modelled", len(probs)),
		NextStep: "open report.html: each case lists the fields its fake leaves out; model them or lower coverage.min_modelled in " + cfg.Path}
}

// writeModelled prints the modelled figure of each adapter compared in
// modelled mode, one line each.
func (c Console) writeModelled(run *report.Run) {
	figs := run.ModelledFigures()
	if len(figs) == 0 {
		return
	}
	fmt.Fprintln(c.W)
	for _, a := range figs {
		line := outcome.Printable(a.String())
		if a.Below() || a.RequiredMissing > 0 {
			line = c.paint("31", line)
		}
		fmt.Fprintln(c.W, line)
	}
}
