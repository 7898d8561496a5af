package coverage

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/kind"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// Status is an adapter's coverage verdict.
type Status string

// The verdicts. Only StatusFail and StatusUnrecorded fail a run.
const (
	StatusPass       Status = "pass"       // covered at least its minimum
	StatusFail       Status = "fail"       // below its minimum
	StatusUnrecorded Status = "unrecorded" // calls observed, no cassette at all (the ADR's second rule)
	StatusUnobserved Status = "unobserved" // no test called its fake: nothing to hold against the cassettes
)

// Report is what coverage found: per adapter, the observed call shapes,
// which cassettes back them, and the cassettes no test exercised.
type Report struct {
	Adapters []*AdapterReport
	// Modelled is the latest verify run's modelled figure (modelled.go);
	// nil when the project compares nothing in modelled mode.
	Modelled *Modelled
}

// AdapterReport is the coverage of one adapter.
type AdapterReport struct {
	Name string
	Kind cfgschema.Kind
	// Min is the percentage the adapter must reach (coverage.min, or --min).
	Min float64
	// Config locates the adapter in cassette.yaml (for reports and SARIF).
	Config string
	Line   int
	// Calls counts the observed calls; Ignored those coverage.ignore left out.
	Calls, Ignored int
	// Cassettes are the adapter's cassette files, relative to the project.
	Cassettes []string
	// Shapes are the observed shapes, sorted.
	Shapes []*ShapeReport
	// Stale are the cassettes none of whose shapes was observed.
	Stale []Stale

	rules          *Rules
	backing        map[Shape][]string // shape → the cassettes that have it
	cassetteShapes [][]Shape          // the shapes of each of Cassettes
	seen           map[Shape]*ShapeReport
	ignored        map[Shape]bool // the shapes coverage.ignore leaves out, once matched
	shape          []byte         // a call's shape, being built
}

// ShapeReport is one observed call shape.
type ShapeReport struct {
	Shape   Shape
	Covered bool
	Calls   int
	// Tests are the tests that made the calls, sorted ("" is not listed).
	Tests []string
	// Cassettes back the shape (relative paths); none when uncovered.
	Cassettes []string
	// First is the first observed call of this shape.
	First Located

	tests map[string]bool // Tests, once they are many
	// Scenario and Record are, for an uncovered shape, a scenario name not
	// yet taken and the command that records the call from the real side;
	// Note is what to add to it first (see RecordNote).
	Scenario, Record, Note string
}

// Stale is a cassette that no observed call exercised.
type Stale struct {
	Cassette string
	Shapes   []Shape
}

// Options tune Analyze.
type Options struct {
	// Min, when not nil, replaces every adapter's coverage.min (--min).
	Min *float64
	// Record builds the record command of an uncovered shape (nil: none).
	Record func(adapter string, a *cfgschema.Adapter, call Call, scenario string) string
	// ObserveStep is the command that observes the tests again, the next
	// step when no observation can be used (AnalyzeProject); "" is
	// `cassette observe --help`.
	ObserveStep string
	// Log, when not nil, is told which runs of observations are read.
	Log io.Writer
	// Kinds are the adapter kinds the cassettes' calls are read through
	// (Rules.Kinds); nil is http and cli. AnalyzeProject takes the
	// project's.
	Kinds *kind.Registry
	// VerifyReports is the report directory of the verify run whose
	// modelled figure coverage shows; "" is VerifyReports, verify's
	// default. Now dates it; nil is time.Now.
	VerifyReports string
	Now           func() time.Time
}

// Covered counts the adapter's covered shapes.
func (a *AdapterReport) Covered() int {
	n := 0
	for _, s := range a.Shapes {
		if s.Covered {
			n++
		}
	}
	return n
}

// Percent is the covered share of the observed shapes (100 with none).
func (a *AdapterReport) Percent() float64 { return percent(a.Covered(), len(a.Shapes)) }

func percent(n, of int) float64 {
	if of == 0 {
		return 100
	}
	return 100 * float64(n) / float64(of)
}

// Status is the adapter's verdict.
func (a *AdapterReport) Status() Status {
	switch {
	case len(a.Shapes) == 0:
		return StatusUnobserved
	case len(a.Cassettes) == 0:
		return StatusUnrecorded
	case a.Percent() < a.Min:
		return StatusFail
	}
	return StatusPass
}

// Uncovered lists the adapter's uncovered shapes.
func (a *AdapterReport) Uncovered() []*ShapeReport {
	var out []*ShapeReport
	for _, s := range a.Shapes {
		if !s.Covered {
			out = append(out, s)
		}
	}
	return out
}

// Fails reports whether the adapter fails the run: below its minimum, or
// called without any cassette.
func (a *AdapterReport) Fails() bool {
	s := a.Status()
	return s == StatusFail || s == StatusUnrecorded
}

// Totals counts observed and covered shapes over every adapter.
func (r *Report) Totals() (covered, observed int) {
	for _, a := range r.Adapters {
		covered += a.Covered()
		observed += len(a.Shapes)
	}
	return covered, observed
}

// Analyze holds the observed calls against the cassettes of every adapter
// of cfg. Problems are configuration or observation errors (a bad
// coverage setting, a call to an adapter cassette.yaml does not declare,
// a call of the wrong kind), each naming file and line.
func Analyze(cfg *cfgschema.Config, list []*cassettes.Cassette, obs []Located, opts Options) (*Report, []outcome.Problem) {
	var probs []outcome.Problem
	byName := map[string]*AdapterReport{}
	rep := &Report{}
	for _, name := range cfg.Order {
		a := cfg.Adapters[name]
		r, ps := NewRules(a)
		r.Kinds = opts.Kinds
		r.Memoize()
		for _, p := range ps {
			field := "adapters." + name + ".coverage." + p.Field
			p.File, p.Line, p.Field = cfg.Path, cfg.Line(field), field
			probs = append(probs, p)
		}
		if opts.Min != nil {
			r.Min = *opts.Min
		}
		ar := &AdapterReport{Name: name, Kind: a.Kind, Min: r.Min, Config: cfg.Path, Line: cfg.Line("adapters." + name),
			rules: r, backing: map[Shape][]string{}, seen: map[Shape]*ShapeReport{}, ignored: map[Shape]bool{}}
		byName[name] = ar
		rep.Adapters = append(rep.Adapters, ar)
	}
	for _, c := range list {
		if ar, ok := byName[c.Adapter]; ok {
			ar.addCassette(c, relTo(cfg.Dir, c.Path))
		}
	}
	var file, rel string // the last call's file, and relative to the project
	for i := range obs {
		o := &obs[i]
		ar, ok := byName[o.Adapter]
		switch {
		case !ok:
			probs = append(probs, outcome.Problem{File: o.File, Line: o.Line, Field: "adapter",
				Message: fmt.Sprintf("a call to adapter %q, which %s does not declare", o.Adapter, cfg.Path), Expected: "one of " + strings.Join(cfg.Order, ", "),
				Suggestion: outcome.Suggest(o.Adapter, cfg.Order)})
		case o.Kind != ar.Kind:
			probs = append(probs, outcome.Problem{File: o.File, Line: o.Line, Field: "kind",
				Message: fmt.Sprintf("a %s call to adapter %s, which is a %s adapter", o.Kind, o.Adapter, ar.Kind), Expected: string(ar.Kind)})
		default:
			if o.File != file {
				file, rel = o.File, relTo(cfg.Dir, o.File)
			}
			ar.addCall(o, rel)
		}
	}
	for _, ar := range rep.Adapters {
		ar.finish()
		suggest(ar, cfg, opts, list)
	}
	return rep, probs
}

// addCassette indexes a cassette's shapes.
func (ar *AdapterReport) addCassette(c *cassettes.Cassette, rel string) {
	ar.Cassettes = append(ar.Cassettes, rel)
	shapes := slices.DeleteFunc(ar.rules.OfCassette(c), ar.rules.Ignored)
	ar.cassetteShapes = append(ar.cassetteShapes, shapes)
	for _, s := range shapes {
		ar.backing[s] = append(ar.backing[s], rel)
	}
}

// addCall counts one observed call, read in file (relative to the
// project), under its shape.
func (ar *AdapterReport) addCall(o *Located, file string) {
	ar.shape = ar.rules.appendShape(ar.shape[:0], &o.Observation)
	sr := ar.seen[Shape(ar.shape)]
	if sr == nil {
		s := Shape(ar.shape)
		ignored, ok := ar.ignored[s]
		if !ok {
			ignored = ar.rules.Ignored(s)
			ar.ignored[s] = ignored
		}
		if ignored {
			ar.Ignored++
			return
		}
		first := *o
		first.File = file
		sr = &ShapeReport{Shape: s, First: first, Cassettes: ar.backing[s]}
		sr.Covered = len(sr.Cassettes) > 0
		ar.seen[s] = sr
		ar.Shapes = append(ar.Shapes, sr)
	}
	ar.Calls++
	sr.Calls++
	sr.addTest(o.Test)
}

// addTest lists a test of the shape's calls ("" is not listed): a set
// holds them once they are many, so that a shape every test calls costs
// no scan of them all on each call.
func (sr *ShapeReport) addTest(test string) {
	switch {
	case test == "", sr.tests[test]:
	case sr.tests != nil:
		sr.tests[test] = true
		sr.Tests = append(sr.Tests, test)
	case !slices.Contains(sr.Tests, test):
		sr.Tests = append(sr.Tests, test)
		if len(sr.Tests) > 16 {
			sr.tests = map[string]bool{}
			for _, t := range sr.Tests {
				sr.tests[t] = true
			}
		}
	}
}

// finish sorts the shapes and finds the stale cassettes.
func (ar *AdapterReport) finish() {
	slices.SortFunc(ar.Shapes, func(a, b *ShapeReport) int { return strings.Compare(string(a.Shape), string(b.Shape)) })
	for _, s := range ar.Shapes {
		slices.Sort(s.Tests)
	}
	for i, shapes := range ar.cassetteShapes {
		if !slices.ContainsFunc(shapes, func(s Shape) bool { return ar.seen[s] != nil }) {
			ar.Stale = append(ar.Stale, Stale{Cassette: ar.Cassettes[i], Shapes: shapes})
		}
	}
}

// suggest names a new scenario for each uncovered shape and builds its
// record command.
func suggest(ar *AdapterReport, cfg *cfgschema.Config, opts Options, list []*cassettes.Cassette) {
	taken := map[string]bool{}
	for _, c := range list {
		if c.Adapter == ar.Name {
			taken[c.Scenario] = true
		}
	}
	for _, s := range ar.Uncovered() {
		s.Scenario = uniqueName(ScenarioName(s.Shape), taken)
		if opts.Record != nil {
			s.Record = opts.Record(ar.Name, cfg.Adapters[ar.Name], s.First.Call, s.Scenario)
			s.Note = RecordNote(s.First.Call)
		}
	}
}

// uniqueName is name, or name-2, name-3 … when taken; it takes it.
func uniqueName(name string, taken map[string]bool) string {
	out := name
	for i := 2; taken[out]; i++ {
		out = fmt.Sprintf("%s-%d", name, i)
	}
	taken[out] = true
	return out
}

// ScenarioName proposes a scenario name for a shape: the subcommand words
// and flags of a CLI shape (rev-parse-abbrev-ref), the method and the last
// path words of an HTTP shape (get-labels, get-labels-item).
func ScenarioName(s Shape) string {
	fields := strings.Fields(string(s))
	if len(fields) == 0 {
		return "call"
	}
	var parts []string
	if methodRe.MatchString(fields[0]) && strings.ToUpper(fields[0]) == fields[0] && len(fields) > 1 && strings.HasPrefix(fields[1], "/") {
		path, _, _ := strings.Cut(fields[1], "?")
		var words []string
		for _, seg := range strings.Split(path, "/") {
			if seg != "" && seg != Placeholder {
				words = append(words, seg)
			}
		}
		if len(words) > 2 {
			words = words[len(words)-2:]
		}
		parts = append([]string{strings.ToLower(fields[0])}, words...)
		if strings.HasSuffix(path, "/"+Placeholder) {
			parts = append(parts, "item")
		}
	} else {
		for _, f := range fields[1:] {
			if f == "<stdin>" || strings.Contains(f, Placeholder) {
				continue
			}
			parts = append(parts, strings.TrimLeft(f, "-"))
		}
		if len(parts) == 0 {
			parts = []string{fields[0]}
		}
		if len(parts) > 3 {
			parts = parts[:3]
		}
	}
	name := cassettes.StrictName(strings.Join(parts, "-"))
	if len(name) > 48 {
		name = strings.TrimRight(name[:48], "-._")
	}
	if name == "" {
		return "call"
	}
	return name
}

// relTo is path relative to dir with slashes, or path when it is not below.
func relTo(dir, path string) string {
	if r, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(path)
}

// Unrecorded lists, in cassette.yaml's order, the adapters (of selected;
// nil for all) that have a fake and not one cassette in list.
func Unrecorded(cfg *cfgschema.Config, list []*cassettes.Cassette, selected []string) []string {
	has := map[string]bool{}
	for _, c := range list {
		has[c.Adapter] = true
	}
	var out []string
	for _, name := range cfg.Order {
		a := cfg.Adapters[name]
		if has[name] || (len(selected) > 0 && !slices.Contains(selected, name)) || (len(a.Fake.Command) == 0 && a.Fake.BaseURL == "") {
			continue
		}
		out = append(out, name)
	}
	return out
}
