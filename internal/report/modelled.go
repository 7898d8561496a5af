package report

import (
	"fmt"
	"math"

	"github.com/cassette-dev/cassette/internal/verdict"
)

// ModelledAdapter and ModelledScenario are the run model's modelled
// figures (verdict.ModelledAdapter).
type (
	ModelledAdapter  = verdict.ModelledAdapter
	ModelledScenario = verdict.ModelledScenario
)

// ModelledFigures is verdict.Run.ModelledFigures.
func (r *Run) ModelledFigures() []ModelledAdapter { return r.model().ModelledFigures() }

// mdModelled is the job summary's table of what the fakes compared in
// modelled mode model, per adapter, each scenario a row.
func (r *Run) mdModelled(b *mdBlocks) {
	figs := r.ModelledFigures()
	if len(figs) == 0 {
		return
	}
	b.WriteString("#### What the fakes model\n\n| adapter | scenario | response fields modelled | required missing |\n|---|---|---:|---:|\n")
	b.Next()
	for _, a := range figs {
		floor := ""
		if a.Min != nil {
			floor = fmt.Sprintf(" (min %s%%%s)", pct(*a.Min), map[bool]string{true: ", **below**"}[a.Below()])
		}
		b.Printf("| %s | all | %s%% (%d of %d)%s | %d |\n", mdText(a.Adapter), pct(a.Percent), a.Modelled.Modelled, a.Fields, floor, a.RequiredMissing)
		for _, s := range a.Scenarios {
			b.Printf("| | %s | %s%% (%d of %d) | %d |\n", mdText(s.Scenario), pct(s.Percent), s.Modelled, s.Fields, s.RequiredMissing)
		}
		b.Next()
	}
	b.WriteString("\n")
	b.Next()
}

// htmlModelledAdapter is report.html's view of one adapter's figure.
type htmlModelledAdapter struct {
	Adapter, Figure string
	RequiredMissing int
	Below           bool
	Scenarios       []htmlModelledScenario
}

type htmlModelledScenario struct {
	ID, Scenario, Figure string
	RequiredMissing      int
	Unmodelled           []htmlUnmodelled
}

type htmlUnmodelled struct{ Where, Location string }

// htmlModelled is report.html's section on what the fakes model: the
// figure of each adapter and scenario, and a click away each scenario's
// list of what its fake left out, located in its cassette.
func (r *Run) htmlModelled() []htmlModelledAdapter {
	byID := map[string]*verdict.Case{}
	for i := range r.Cases {
		byID[r.Cases[i].ID()] = &r.Cases[i]
	}
	var out []htmlModelledAdapter
	for _, a := range r.ModelledFigures() {
		h := htmlModelledAdapter{Adapter: a.Adapter, RequiredMissing: a.RequiredMissing, Below: a.Below(),
			Figure: fmt.Sprintf("%s%% (%d of %d)", pct(a.Percent), a.Modelled.Modelled, a.Fields)}
		if a.Min != nil {
			h.Figure += fmt.Sprintf(", min %s%%", pct(*a.Min))
		}
		for _, s := range a.Scenarios {
			c := byID[a.Adapter+"/"+s.Scenario]
			hs := htmlModelledScenario{ID: c.ID(), Scenario: s.Scenario, RequiredMissing: s.RequiredMissing,
				Figure: fmt.Sprintf("%s%% (%d of %d)", pct(s.Percent), s.Modelled, s.Fields)}
			for _, u := range c.Modelled.Unmodelled {
				where := u.Field
				if u.JSONPath != "" {
					where += " " + u.JSONPath
				}
				loc := c.CassettePath
				if u.Line > 0 {
					loc += fmt.Sprintf(":%d", u.Line)
				}
				hs.Unmodelled = append(hs.Unmodelled, htmlUnmodelled{Where: where, Location: loc})
			}
			h.Scenarios = append(h.Scenarios, hs)
		}
		out = append(out, h)
	}
	return out
}

// pct is a percentage as the reports print it, to 0.1 (verdict's figures
// print it so too).
func pct(f float64) string { return fmt.Sprint(math.Round(f*10) / 10) }
