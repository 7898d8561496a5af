package verdict

// Coverage is what a run of `cassette coverage` found: per adapter, the
// call shapes the project's tests sent to its fake and the cassettes that
// back them. The run's cases are the observed shapes (a failing case is an
// uncovered shape of an adapter that fails); Coverage holds the rest of
// the picture, which coverage.json, report.html's coverage section, the job
// summary's and sarif.json's uncovered-call-shape results show.
type Coverage struct {
	Adapters []CoverageAdapter `json:"adapters"`
	// Modelled is what the fakes model as the latest verify run measured
	// it (coverage runs no fake); nil when the project compares no
	// cassette in modelled mode.
	Modelled *CoverageModelled `json:"modelled,omitempty"`
}

// CoverageModelled is the modelled figure coverage shows, read from the
// summary.json of the latest verify run.
type CoverageModelled struct {
	// Summary is the summary.json read (or looked for, when Found is
	// false), relative to the project.
	Summary string `json:"summary"`
	Found   bool   `json:"found"`
	// RunID is that run's correlation_id; Written when it was written and
	// AgeSeconds how long before this run (volatile: omitted in golden
	// mode).
	RunID      string `json:"correlation_id,omitempty"`
	Written    string `json:"written,omitempty"`
	AgeSeconds *int64 `json:"age_seconds,omitempty"`
	// Note says what the figure is, or why there is none and what to run.
	Note string `json:"note"`
	// Adapters are the run's figures, each Min the adapter's
	// coverage.min_modelled in the cassette.yaml of this run.
	Adapters []ModelledAdapter `json:"adapters"`
}

// The verdicts of an adapter's coverage.
const (
	CoveragePass       = "pass"       // covers at least its minimum
	CoverageFail       = "fail"       // below its minimum
	CoverageUnrecorded = "unrecorded" // calls observed, not one cassette (the seed ADR's rule)
	CoverageUnobserved = "unobserved" // no test called its fake
)

// CoverageAdapter is the coverage of one adapter.
type CoverageAdapter struct {
	Name    string  `json:"name"`
	Kind    string  `json:"kind"`
	Status  string  `json:"status"`
	Percent float64 `json:"percent"` // of the observed shapes, rounded to 0.1
	Min     float64 `json:"min"`
	// Line is the adapter's line in cassette.yaml (Run.ConfigPath), where
	// SARIF places its uncovered shapes.
	Line      int `json:"line"`
	Calls     int `json:"calls"`
	Ignored   int `json:"ignored_calls"`
	Cassettes int `json:"cassettes"`
	// Shapes are the observed call shapes, sorted.
	Shapes []CoverageShape `json:"shapes"`
	// Stale are the cassettes none of whose shapes was observed.
	Stale []CoverageStale `json:"stale"`
}

// CoverageShape is one observed call shape.
type CoverageShape struct {
	Shape   string `json:"shape"`
	Covered bool   `json:"covered"`
	Calls   int    `json:"calls"`
	// Tests made the calls; Observed is where the first call was read
	// (file:line of .cassette/observed).
	Tests    []string `json:"tests"`
	Observed string   `json:"observed"`
	// Cassettes back the shape; for an uncovered one, Scenario and Record
	// are the proposed scenario and the command that records the call.
	Cassettes []string `json:"cassettes,omitempty"`
	Scenario  string   `json:"scenario,omitempty"`
	Record    string   `json:"record,omitempty"`
	// Note is what to do to Record before it records the call (put back
	// a redacted credential, give a standard input that was not kept).
	Note string `json:"note,omitempty"`
}

// CoverageStale is a cassette no observed call exercised.
type CoverageStale struct {
	Cassette string   `json:"cassette"`
	Shapes   []string `json:"shapes"`
}

// Failing says whether the adapter fails the run: below its minimum, or
// observed without a cassette.
func (a CoverageAdapter) Failing() bool {
	return a.Status == CoverageFail || a.Status == CoverageUnrecorded
}

// CoveredShapes counts the adapter's covered call shapes.
func (a CoverageAdapter) CoveredShapes() int {
	n := 0
	for _, s := range a.Shapes {
		if s.Covered {
			n++
		}
	}
	return n
}
