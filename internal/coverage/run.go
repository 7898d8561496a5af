package coverage

import (
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// RunMeta is what the report of a coverage run needs besides the analysis.
type RunMeta struct {
	Tool  verdict.Tool
	Suite string
	// ConfigPath is cassette.yaml relative to the repository root, and
	// Prefix the project's directory relative to it ("" at the root): the
	// report's paths are the repository's, as code scanning reads them.
	ConfigPath, Prefix string
	ConfigBytes        []byte
	Started, Finished  time.Time
}

// Run is the coverage run as the report package's model: a case per
// observed call shape (it fails when it is uncovered and its adapter
// fails: below its minimum, or without any cassette), and the whole
// analysis as Run.Coverage, from which report renders coverage.json,
// report.html's coverage section, the job summary's and the SARIF results
// of rule cassette/uncovered-call-shape.
func (r *Report) Run(m RunMeta) *verdict.Run {
	repo := func(p string) string {
		if m.Prefix == "" || p == "" || path.IsAbs(p) {
			return p
		}
		return path.Join(m.Prefix, p)
	}
	run := &verdict.Run{Tool: m.Tool, Command: "coverage", Suite: m.Suite, ConfigPath: m.ConfigPath, ConfigBytes: m.ConfigBytes,
		Started: m.Started, Finished: m.Finished, ReplayCommand: "cassette coverage", Coverage: &verdict.Coverage{}, Seeds: verdict.FileOrder()}
	for _, a := range r.Adapters {
		ca := verdict.CoverageAdapter{Name: a.Name, Kind: string(a.Kind), Status: string(a.Status()), Percent: round1(a.Percent()), Min: a.Min,
			Line: a.Line, Calls: a.Calls, Ignored: a.Ignored, Cassettes: len(a.Cassettes), Shapes: []verdict.CoverageShape{}, Stale: []verdict.CoverageStale{}}
		failing := a.Fails()
		for _, s := range a.Shapes {
			cs := verdict.CoverageShape{Shape: string(s.Shape), Covered: s.Covered, Calls: s.Calls, Tests: append([]string{}, s.Tests...),
				Observed: fmt.Sprintf("%s:%d", repo(s.First.File), s.First.Line), Scenario: s.Scenario, Record: s.Record, Note: s.Note}
			for _, c := range s.Cassettes {
				cs.Cassettes = append(cs.Cassettes, repo(c))
			}
			ca.Shapes = append(ca.Shapes, cs)
			run.Cases = append(run.Cases, shapeCase(a, s, cs, failing, m.ConfigPath))
		}
		for _, st := range a.Stale {
			shapes := make([]string, len(st.Shapes))
			for i, sh := range st.Shapes {
				shapes[i] = string(sh)
			}
			ca.Stale = append(ca.Stale, verdict.CoverageStale{Cassette: repo(st.Cassette), Shapes: shapes})
		}
		run.Coverage.Adapters = append(run.Coverage.Adapters, ca)
	}
	if r.Modelled != nil {
		run.Coverage.Modelled = r.Modelled.report()
		if r.Modelled.Err != nil {
			run.Err = r.Modelled.Err
		}
	}
	return run
}

// shapeCase is one observed shape as a case of the run.
func shapeCase(a *AdapterReport, s *ShapeReport, cs verdict.CoverageShape, failing bool, config string) verdict.Case {
	c := verdict.Case{Adapter: a.Name, Scenario: string(s.Shape), Status: verdict.StatusPass, ReplayCommand: "cassette coverage"}
	by := plural(s.Calls, "call") + " by " + tests(s.Tests)
	switch {
	case s.Covered:
		c.CassettePath = cs.Cassettes[0]
		c.Message = "backed by " + strings.Join(cs.Cassettes, ", ") + " (" + by + ")"
	case failing:
		c.Status, c.Reason, c.CassettePath, c.NextStep = verdict.StatusFail, outcome.EUncoveredCall, config, s.Record
		c.Message = "no cassette of adapter " + a.Name + " has this call shape (" + by + ")"
		if a.Status() == StatusUnrecorded {
			c.Message += "; the adapter has no cassette at all: " + RuleUnrecorded
		}
	default:
		c.CassettePath = config
		c.Message = fmt.Sprintf("no cassette has this call shape (%s), within coverage.min %s of adapter %s", by, pct(a.Min), a.Name)
	}
	return c
}
