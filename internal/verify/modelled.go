package verify

import (
	"fmt"
	"sort"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// belowMinModelled is the run-level failure of the adapters whose fakes,
// compared in modelled mode, model less of what reality returned than
// their coverage.min_modelled (verdict.BelowMinModelled). nil when every
// adapter reaches its floor (or sets none).
func belowMinModelled(results []Result, cfg *cfgschema.Config) *outcome.Error {
	if cfg == nil {
		return nil
	}
	sums := map[string]*verdict.ModelledAdapter{}
	var figs []*verdict.ModelledAdapter
	for _, r := range results {
		if r.Modelled == nil {
			continue
		}
		n := r.Case.Cassette.Adapter
		s := sums[n]
		if s == nil {
			s = &verdict.ModelledAdapter{Adapter: n}
			if a := cfg.Adapters[n]; a != nil {
				s.Min = a.Coverage.MinModelled
			}
			sums[n] = s
			figs = append(figs, s)
		}
		s.Fields += r.Modelled.Fields
		s.Modelled.Modelled += r.Modelled.Modelled
	}
	sort.Slice(figs, func(i, j int) bool { return figs[i].Adapter < figs[j].Adapter })
	out := make([]verdict.ModelledAdapter, len(figs))
	for i, f := range figs {
		f.Percent = f.Modelled.Percent()
		out[i] = *f
	}
	return verdict.BelowMinModelled(out, cfg.Path, cfg.Line,
		"open report.html: each case lists the fields its fake leaves out; model them or lower coverage.min_modelled in "+cfg.Path)
}

// writeModelled prints the modelled figure of each adapter compared in
// modelled mode, one line each.
func (c Console) writeModelled(run *verdict.Run) {
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
