package learn

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/diff"
	"github.com/cassette-dev/cassette/internal/normalize"
	"github.com/cassette-dev/cassette/internal/redact"
)

// Scenario is one scenario's recordings: the same input recorded several
// times against the real side, as recorded (not normalized).
type Scenario struct {
	Name       string
	Recordings []*cassettes.Cassette
	// Fake is the fake's answer to the first recording's input, as verify
	// got it (the recorded requests with the fake's responses, or the
	// fake's output), nil when the fake was not run. A place where it
	// differs from reality is learned only when both values are of one
	// volatile class (fake.go); anything else is a Drift.
	Fake *cassettes.Cassette
}

// Options say what is already normalized and how to show samples.
type Options struct {
	Adapter string // names the project normalizers proposed: <adapter>.volatile, …
	// Names are the adapter's normalizers now, in order; Defs are the
	// project's definitions (cassette.yaml's `normalizers:`) they may name.
	Names []string
	Defs  map[string]normalize.Definition
	// Normalize is handed to every pipeline (credentials, working dir).
	Normalize normalize.Options
	// Headers are the headers compared (the adapter's contract_headers);
	// nil compares all of them, as verify does.
	Headers []string
	// Redact shows samples; nil is the built-in credential names and formats.
	Redact *redact.Redactor
}

// Place is one place of a scenario whose value differs between recordings.
type Place struct {
	Scenario string
	Where    string // interactions[0].response.body $.data.result[*].value[1]
	Target   Target
	Path     string   // the JSONPath, header or query key a normalizer selects
	Classes  []string // what the values are: iso8601, uuid, counter, …
	Samples  []string // a few of its values, redacted
	Recurs   bool     // a value recurs elsewhere in its recording: numbered

	values  []string // one per recording; never printed
	cpaths  []string // TargetJSON: the concrete paths of the values
	paths   []string // TargetJSON: the paths a project normalizer selects (refine)
	keys    map[string]bool
	builtin []string // the built-ins planned for it; nil: a project normalizer
	regex   string   // TargetText: the expression a project normalizer matches it with
}

// Proposal is one normalizer proposed, and the places it covers.
type Proposal struct {
	Name       string
	Builtin    bool
	Definition normalize.Definition // a project normalizer's definition
	Places     []*Place
}

// Unexpressed is a place that varies in a way no normalizer can express.
type Unexpressed struct {
	Scenario, Where string
	What            string // "the order of a list changes"
	Advice          string // what to do instead
	Samples         []string
}

// Result is what Learn found and proposes.
type Result struct {
	Places    []*Place
	Proposals []Proposal
	// Names are the adapter's normalizers with the proposals: the current
	// ones first, then the proposed ones, in the order they must run.
	Names []string
	Left  []Unexpressed
	// Warnings name proposals that also rewrite a value that never varied
	// (a project normalizer's expression that a constant matches too).
	Warnings []string
	// Drifts are the places where a fake's answer still differs from
	// reality under the proposed normalizers: the fake is wrong there.
	Drifts []Drift
}

// Defs are the project definitions the result adds.
func (r *Result) Defs() map[string]normalize.Definition {
	out := map[string]normalize.Definition{}
	for _, p := range r.Proposals {
		if !p.Builtin {
			out[p.Name] = p.Definition
		}
	}
	return out
}

// Learn compares each scenario's recordings after the current normalizers
// and proposes the normalizers that make them equal. A scenario needs two
// recordings at least.
func Learn(scenarios []Scenario, o Options) (*Result, error) {
	if o.Redact == nil {
		o.Redact = redact.New(o.Normalize.Rules, o.Normalize.Credentials)
	}
	cur, err := pipeline(o.Names, o.Defs, o.Normalize)
	if err != nil {
		return nil, err
	}
	res := &Result{}
	sets := make([]*scenarioSet, 0, len(scenarios))
	for _, sc := range scenarios {
		if n := len(sc.Recordings); n == 0 || n < 2 && sc.Fake == nil {
			return nil, fmt.Errorf("scenario %s: %d recording(s); learning needs two at least, or one and the fake's answer", sc.Name, len(sc.Recordings))
		}
		s := newSet(sc, cur, o)
		sets = append(sets, s)
		places, left := s.compare(o)
		res.Places = append(res.Places, places...)
		res.Left = append(res.Left, left...)
	}
	if err := plan(res, sets, o); err != nil {
		return nil, err
	}
	if err := layout(res, sets, o); err != nil { // layout.go
		return nil, err
	}
	return res, fakeDrifts(res, sets, o) // fake.go
}

// pipeline builds the pipeline of names over a registry of the built-ins
// and defs.
func pipeline(names []string, defs map[string]normalize.Definition, no normalize.Options) (*normalize.Pipeline, error) {
	reg := normalize.Builtins()
	for _, n := range sortedKeys(defs) {
		if err := reg.Define(n, defs[n]); err != nil {
			return nil, err
		}
	}
	return reg.Pipeline(names, no)
}

// scenarioSet is one scenario's recordings, each as leaves; with a fake's
// answer, it is the last of them (recs[nreal]).
type scenarioSet struct {
	name   string
	recs   []*cassettes.Cassette
	leaves [][]leaf
	consts map[string]string // key → the value every recording has
	nreal  int               // the recordings of reality: recs[:nreal]
	// fakeOff are the keys where the fake's value is not of reality's
	// class: it shapes no proposal and proves nothing (a drift, fake.go).
	fakeOff map[string]bool
}

func newSet(sc Scenario, p *normalize.Pipeline, o Options) *scenarioSet {
	s := &scenarioSet{name: sc.Name, recs: sc.Recordings, nreal: len(sc.Recordings), fakeOff: map[string]bool{}}
	if sc.Fake != nil {
		s.recs = append(slices.Clone(sc.Recordings), sc.Fake)
	}
	s.leaves = s.normalized(p, o)
	return s
}

// hasFake reports whether the last recording is a fake's answer.
func (s *scenarioSet) hasFake() bool { return len(s.recs) > s.nreal }

// normalized returns the leaves of every recording normalized by p, with
// the headers that are not compared left out.
func (s *scenarioSet) normalized(p *normalize.Pipeline, o Options) [][]leaf {
	return s.compared(s.normalizedCassettes(p), o)
}

// compared returns the leaves of recordings already normalized (cs, in
// s.recs' order), with the headers that are not compared left out.
func (s *scenarioSet) compared(cs []*cassettes.Cassette, o Options) [][]leaf {
	out := make([][]leaf, len(cs))
	for i, c := range cs {
		out[i] = s.comparedLeaves(i, c, o)
	}
	return out
}

// comparedLeaves are the leaves of recording i (c, normalized), with the
// headers that are not compared left out.
func (s *scenarioSet) comparedLeaves(i int, c *cassettes.Cassette, o Options) []leaf {
	return slices.DeleteFunc(leaves(c), func(l leaf) bool {
		if l.target != TargetHeader {
			return false
		}
		if i == s.nreal { // the fake's, as verify compares them (fake.go)
			return !comparedHeader(o, l.path)
		}
		return o.Headers != nil && !comparedHeader(o, l.path)
	})
}

// normalizedCassettes are the recordings normalized by p, as verify
// compares them: a command's output without the HTTP underneath.
func (s *scenarioSet) normalizedCassettes(p *normalize.Pipeline) []*cassettes.Cassette {
	out := make([]*cassettes.Cassette, len(s.recs))
	for i := range s.recs {
		out[i] = s.normalizedOne(i, p)
	}
	return out
}

// normalizedOne is recording i normalized by p, as verify compares it.
func (s *scenarioSet) normalizedOne(i int, p *normalize.Pipeline) *cassettes.Cassette {
	c := s.recs[i]
	if c.Kind == cfgschema.KindCLI {
		cc := *c
		cc.Interactions = nil // verify compares a command's output, not the HTTP underneath
		c = &cc
	}
	return diff.Normalize(c, p)
}

// byKey indexes leaves by key.
func byKey(ls []leaf) map[string]leaf {
	m := make(map[string]leaf, len(ls))
	for _, l := range ls {
		m[l.key] = l
	}
	return m
}

// compare finds the places that differ between the recordings.
func (s *scenarioSet) compare(o Options) ([]*Place, []Unexpressed) {
	idx := make([]map[string]leaf, len(s.leaves))
	for i, ls := range s.leaves {
		idx[i] = byKey(ls)
	}
	var order []string
	seen := map[string]bool{}
	for _, ls := range s.leaves {
		for _, l := range ls {
			if !seen[l.key] {
				seen[l.key] = true
				order = append(order, l.key)
			}
		}
	}
	s.consts = map[string]string{}
	places := map[string]*Place{} // by where (and prefix, for text)
	var list []*Place
	lefts := map[string]*Unexpressed{}
	var leftList []Unexpressed
	left := func(where, what, advice string, vals []string) {
		if lefts[where] == nil {
			lefts[where] = &Unexpressed{Scenario: s.name, Where: where, What: what, Advice: advice, Samples: samples(vals, o.Redact)}
			leftList = append(leftList, *lefts[where])
		}
	}
	skip, fakeSkip := shapeChanges(order, idx[:s.nreal]), s.fakeShape(order, idx)
	for _, k := range order {
		if skip(k) {
			continue // under a list or text whose length changes: reported once, as that
		}
		vals, absent, first := make([]string, len(idx)), false, leaf{}
		for i, m := range idx[:s.nreal] {
			l, ok := m[k]
			if !ok {
				absent = true
				continue
			}
			vals[i], first = l.value, l
		}
		if s.hasFake() && (absent || !s.fakeFits(k, vals, fakeSkip(k), idx[s.nreal])) {
			s.fakeOff[k] = true
			vals[s.nreal] = vals[0] // it stands in as reality's: a drift (fake.go), not a variation
		}
		switch {
		case first.key == "":
			continue // the fake's alone: a drift (fake.go)
		case absent:
			left(first.where, "present in some recordings only", advice(first, true), vals)
		case allEqual(vals):
			s.consts[k] = vals[0]
		case first.target == TargetFixed:
			left(first.where, "differs between recordings ("+strings.Join(dedupe(vals), " vs ")+")", advice(first, false), vals)
		default:
			for _, p := range s.placesOf(first, vals, o) {
				id := p.Where + "\x00" + p.regex
				if q := places[id]; q != nil {
					q.merge(p, k)
					continue
				}
				p.keys = map[string]bool{k: true}
				places[id] = p
				list = append(list, p)
			}
		}
	}
	s.markOrder(list, idx[:s.nreal], left)
	for _, p := range list {
		p.Recurs = s.recurs(p)
	}
	return slices.DeleteFunc(list, func(p *Place) bool { return p.keys == nil }), leftList
}

// shapeChanges returns what is under a text whose line count, or a list
// whose length, differs between recordings: its lines and items do not
// line up, so comparing them one by one would propose nonsense.
func shapeChanges(order []string, idx []map[string]leaf) func(string) bool {
	var prefixes []string
	for _, k := range order {
		var p string
		switch {
		case strings.HasSuffix(k, " lines"):
			p = strings.TrimSuffix(k, " lines") + " line "
		case strings.HasSuffix(k, ".length"):
			p = strings.TrimSuffix(k, ".length") + "["
		default:
			continue
		}
		var vals []string
		for _, m := range idx {
			vals = append(vals, m[k].value) // "" when absent
		}
		if !allEqual(vals) {
			prefixes = append(prefixes, p)
		}
	}
	return func(k string) bool {
		return slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(k, p) })
	}
}

// advice says what to do about a place no normalizer can express.
func advice(l leaf, absent bool) string {
	switch {
	case l.target == TargetFixed && strings.HasSuffix(l.key, " lines"):
		return "the number of lines changes: compare this output as a model (`compare: modelled` on the adapter), or make the command's output stable"
	case l.target == TargetFixed && strings.HasSuffix(l.key, ".length"), absent && strings.Contains(l.where, "[*]"):
		return "the length of a list changes: set `compare: modelled` on the adapter, or pin what the real side returns (a query parameter, a fixture)"
	case absent:
		return "a value that is sometimes absent: set `compare: modelled` on the adapter, or a `match:` rule for this request"
	case strings.HasSuffix(l.key, ".code"), l.key == "output.exit_code":
		return "the real side answers differently from one call to the next: record it when it is stable, or split the scenario"
	}
	return "set `compare: modelled` on the adapter"
}

// merge adds the values of the same place at another concrete location.
func (p *Place) merge(q *Place, key string) {
	p.keys[key] = true
	p.cpaths = append(p.cpaths, q.cpaths...)
	p.values = append(p.values, q.values...)
	for _, c := range q.Classes {
		if !slices.Contains(p.Classes, c) {
			p.Classes = append(p.Classes, c)
		}
	}
	if all := dedupe(append(p.Samples, q.Samples...)); len(all) > 3 {
		p.Samples = all[:3]
	} else {
		p.Samples = all
	}
	if q.builtin == nil {
		p.builtin = nil
	}
}

// placesOf classifies one varying value: the whole value, or, for a line
// of text whose whole no class covers, each token that differs.
func (s *scenarioSet) placesOf(l leaf, vals []string, o Options) []*Place {
	cs := Cover(vals)
	if l.target != TargetText || (cs != nil && allBuiltin(cs)) {
		return []*Place{newPlace(s.name, l, vals, cs, "", o)}
	}
	sep := " "
	if strings.HasSuffix(l.key, ".request.url") {
		sep = "/"
	}
	toks := make([][]string, len(vals))
	for i, v := range vals {
		toks[i] = strings.Split(v, sep)
		if len(toks[i]) != len(toks[0]) {
			return []*Place{newPlace(s.name, l, vals, cs, wholeLineRegex(), o)}
		}
	}
	var out []*Place
	for j := range toks[0] {
		tv := make([]string, len(toks))
		for i := range toks {
			tv[i] = toks[i][j]
		}
		if allEqual(tv) {
			continue
		}
		prefix := "^"
		if j > 0 && allEqualAt(toks, j-1) {
			prefix = regexp.QuoteMeta(toks[0][j-1] + sep)
			if j == 1 {
				prefix = "^" + prefix
			}
		}
		tcs := Cover(tv)
		re := "(?m)(" + prefix + ")" + shape(tv)
		if j == len(toks[0])-1 {
			re += "$" // the last token: up to the end of the line
		}
		if tcs != nil && allBuiltin(tcs) {
			re = ""
		}
		out = append(out, newPlace(s.name, l, tv, tcs, re, o))
	}
	return out
}

func wholeLineRegex() string { return "(?m)(^).*$" }

func allEqualAt(toks [][]string, j int) bool {
	for i := range toks {
		if toks[i][j] != toks[0][j] {
			return false
		}
	}
	return true
}

func allBuiltin(cs []Class) bool {
	for _, c := range cs {
		if c.Builtin == "" {
			return false
		}
	}
	return true
}

func newPlace(scenario string, l leaf, vals []string, cs []Class, regex string, o Options) *Place {
	p := &Place{Scenario: scenario, Where: l.where, Target: l.target, Path: l.path, values: vals, regex: regex, Samples: samples(vals, o.Redact)}
	if l.cpath != "" {
		p.cpaths = []string{l.cpath}
	}
	for _, c := range cs {
		p.Classes = append(p.Classes, c.Name)
		p.builtin = append(p.builtin, c.Builtin)
	}
	if len(cs) == 0 {
		p.Classes = []string{"value"}
	}
	if !allBuiltin(cs) || len(cs) == 0 {
		p.builtin = nil
	}
	if l.target == TargetHeader && p.builtin == nil && normalize.IsVolatileHeader(l.path) {
		p.builtin = []string{"headers.volatile"}
	}
	if l.target == TargetText && p.regex == "" {
		// Should the built-ins not cover it, a project normalizer
		// matches what the classes match.
		var masks []string
		for _, c := range cs {
			masks = append(masks, c.mask().String())
		}
		p.regex = "()(?:" + strings.Join(masks, "|") + ")"
		if len(masks) == 0 {
			p.regex = wholeLineRegex()
		}
	}
	if l.target == TargetQuery && regex == "" && p.builtin == nil {
		p.regex = "([?&]" + regexp.QuoteMeta(l.path) + "=)[^&#\\s]*"
	}
	return p
}

// markOrder turns the places under a list whose values are the same in
// every recording, in another order, into an order change.
func (s *scenarioSet) markOrder(list []*Place, idx []map[string]leaf, left func(string, string, string, []string)) {
	for _, p := range list {
		if p.Target != TargetJSON || !strings.Contains(p.Where, "[*]") {
			continue
		}
		var sets []string
		for _, m := range idx {
			var vs []string
			for _, l := range m {
				if l.where == p.Where {
					vs = append(vs, l.value)
				}
			}
			sort.Strings(vs)
			sets = append(sets, strings.Join(vs, "\x00"))
		}
		if allEqual(sets) {
			left(p.Where, "the order of a list changes", "sort the list on both sides (the fake, and a `match:` rule or `compare: modelled` on the adapter): no normalizer reorders a list", p.values)
			p.keys = nil
		}
	}
}

// recurs reports whether a value of p appears at another place of the
// same recording (a later request's URL, another field), or twice at p
// (the id a stream starts with, named again by its last record).
func (s *scenarioSet) recurs(p *Place) bool {
	n := len(s.leaves)
	for j, v := range p.values {
		for k := j + n; k < len(p.values); k += n { // the same recording, another key of p
			if len(v) >= 6 && !isNumber(v) && p.values[k] == v {
				return true
			}
		}
	}
	for i, ls := range s.leaves {
		for _, l := range ls {
			if p.keys[l.key] {
				continue
			}
			for j, v := range p.values {
				if j%len(s.leaves) == i && len(v) >= 6 && !isNumber(v) && strings.Contains(l.value, v) {
					return true
				}
			}
		}
	}
	return false
}

// samples are up to three distinct values, redacted and shortened.
func samples(vals []string, r *redact.Redactor) []string {
	var out []string
	for _, v := range dedupe(vals) {
		v = r.String(v)
		if len(v) > 60 {
			v = v[:57] + "..."
		}
		out = append(out, v)
		if len(out) == 3 {
			break
		}
	}
	return out
}

func dedupe(vs []string) []string {
	var out []string
	for _, v := range vs {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}
