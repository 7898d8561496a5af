package report

import (
	"fmt"
	"math"
	"sort"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// ModelledAdapter is the modelled figure of one adapter: its cases'
// figures summed, and each case's.
type ModelledAdapter struct {
	Adapter string `json:"adapter"`
	verdict.Modelled
	Percent float64 `json:"percent"`
	// Min is the adapter's coverage.min_modelled, when it sets one.
	Min       *float64           `json:"min,omitempty"`
	Scenarios []ModelledScenario `json:"scenarios"`
}

// ModelledScenario is the modelled figure of one case.
type ModelledScenario struct {
	Scenario        string  `json:"scenario"`
	Fields          int     `json:"fields"`
	Modelled        int     `json:"modelled"`
	RequiredMissing int     `json:"required_missing"`
	Percent         float64 `json:"percent"`
}

// Below reports whether the adapter models less than its minimum.
func (a ModelledAdapter) Below() bool { return a.Min != nil && a.Percent < *a.Min }

// String is the one line verify's console and the job summary print:
// "docker: 61% of response fields modelled (11 of 18), 0 required missing".
func (a ModelledAdapter) String() string {
	s := fmt.Sprintf("%s: %s%% of response fields modelled (%d of %d), %d required missing", a.Adapter, pct(a.Percent), a.Modelled.Modelled, a.Fields, a.RequiredMissing)
	if a.Min != nil {
		verdict := "at least"
		if a.Below() {
			verdict = "below"
		}
		s += fmt.Sprintf(" (%s min_modelled %s%%)", verdict, pct(*a.Min))
	}
	return s
}

func pct(f float64) string { return fmt.Sprint(math.Round(f*10) / 10) }

// BelowMinModelled is the run-level failure of the adapters of figs that
// model less than their Min (coverage.min_modelled in cfg): each one a
// problem at that line, with next as the next step. nil when every
// adapter reaches its floor (or sets none). Verify judges its own run's
// figures by it, coverage the latest verify run's.
func BelowMinModelled(figs []ModelledAdapter, cfg *cfgschema.Config, next string) *outcome.Error {
	var probs []outcome.Problem
	for _, a := range figs {
		if !a.Below() {
			continue
		}
		field := "adapters." + a.Adapter + ".coverage.min_modelled"
		probs = append(probs, outcome.Problem{File: cfg.Path, Line: cfg.Line(field), Field: field,
			Message:  fmt.Sprintf("the %s fake models %v%% of the response fields reality returned (%d of %d)", a.Adapter, a.Percent, a.Modelled.Modelled, a.Fields),
			Expected: fmt.Sprintf("at least %v%%", *a.Min)})
	}
	if len(probs) == 0 {
		return nil
	}
	return &outcome.Error{Reason: outcome.ETestFailed, Problems: probs, NextStep: next,
		Message: fmt.Sprintf("%d adapter(s) model less than their coverage.min_modelled", len(probs))}
}

// ModelledFigures are the run's modelled figures per adapter, sorted by
// adapter, then scenario: only cases compared in modelled mode count;
// each adapter's Min is Run.MinModelled's.
func (r *Run) ModelledFigures() []ModelledAdapter {
	by := map[string]*ModelledAdapter{}
	var names []string
	for _, c := range r.Cases {
		if c.Modelled == nil {
			continue
		}
		a := by[c.Adapter]
		if a == nil {
			a = &ModelledAdapter{Adapter: c.Adapter, Min: r.MinModelled[c.Adapter]}
			by[c.Adapter] = a
			names = append(names, c.Adapter)
		}
		a.Add(c.Modelled)
		a.Scenarios = append(a.Scenarios, ModelledScenario{Scenario: c.Scenario, Fields: c.Modelled.Fields, Modelled: c.Modelled.Modelled,
			RequiredMissing: c.Modelled.RequiredMissing, Percent: c.Modelled.Percent()})
	}
	sort.Strings(names)
	out := make([]ModelledAdapter, 0, len(names))
	for _, n := range names {
		a := by[n]
		a.Percent = a.Modelled.Percent()
		sort.Slice(a.Scenarios, func(i, j int) bool { return a.Scenarios[i].Scenario < a.Scenarios[j].Scenario })
		out = append(out, *a)
	}
	return out
}

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
