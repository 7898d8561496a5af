package verdict

import (
	"fmt"
	"math"
	"sort"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// ModelledAdapter is the modelled figure of one adapter: its cases'
// figures summed, and each case's.
type ModelledAdapter struct {
	Adapter string `json:"adapter"`
	Modelled
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

// BelowMinModelled is the run-level failure of the adapters of figs that
// model less than their Min (coverage.min_modelled in the config at
// path, whose line of a field line gives): each one a problem at that
// line, with next as the next step. nil when every
// adapter reaches its floor (or sets none). Verify judges its own run's
// figures by it, coverage the latest verify run's.
func BelowMinModelled(figs []ModelledAdapter, path string, line func(field string) int, next string) *outcome.Error {
	var probs []outcome.Problem
	for _, a := range figs {
		if !a.Below() {
			continue
		}
		field := "adapters." + a.Adapter + ".coverage.min_modelled"
		probs = append(probs, outcome.Problem{File: path, Line: line(field), Field: field,
			Message:  fmt.Sprintf("the %s fake models %v%% of the response fields reality returned (%d of %d)", a.Adapter, a.Percent, a.Modelled.Modelled, a.Fields),
			Expected: fmt.Sprintf("at least %v%%", *a.Min)})
	}
	if len(probs) == 0 {
		return nil
	}
	return &outcome.Error{Reason: outcome.ETestFailed, Problems: probs, NextStep: next,
		Message: fmt.Sprintf("%d adapter(s) model less than their coverage.min_modelled", len(probs))}
}
