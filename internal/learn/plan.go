package learn

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/cassette-dev/cassette/internal/normalize"
)

// plan turns the places into proposals proved on the recordings: built-ins
// that rewrite a constant are replaced by targeted project normalizers,
// and a place still varying under the proposal is reported as left.
func plan(res *Result, sets []*scenarioSet, o Options) error {
	if err := dropBroadBuiltins(res.Places, sets, o); err != nil {
		return err
	}
	refinePaths(res.Places, sets)
	for round := 0; ; round++ {
		props := propose(res.Places, o)
		names, defs := namesOf(o, props)
		p, err := pipeline(names, defs, o.Normalize)
		if err != nil {
			return fmt.Errorf("learn: a proposed normalizer does not build: %w", err)
		}
		still := stillVarying(sets, p, o)
		if len(still) == 0 || round == 2 {
			res.Proposals, res.Names = props, names
			if res.Warnings, err = broadProposals(props, sets, o); err != nil {
				return err
			}
			for _, pl := range res.Places {
				for k := range pl.keys {
					if still[pl.Scenario+"\x00"+k] {
						res.Left = append(res.Left, Unexpressed{Scenario: pl.Scenario, Where: pl.Where, What: "still differs under the proposed normalizers",
							Advice: "write a normalizer for it under `normalizers:` in cassette.yaml (regex, json_paths, headers), or set `compare: modelled`", Samples: pl.Samples})
						break
					}
				}
			}
			return nil
		}
		// A built-in that did not cover a place gives way to a project
		// normalizer aimed at it.
		for _, pl := range res.Places {
			for k := range pl.keys {
				if still[pl.Scenario+"\x00"+k] && pl.builtin != nil {
					pl.builtin = nil
					break
				}
			}
		}
	}
}

// dropBroadBuiltins gives the places of a built-in that rewrites a value
// that never varied to project normalizers.
func dropBroadBuiltins(places []*Place, sets []*scenarioSet, o Options) error {
	broad := map[string]bool{}
	for _, pl := range places {
		for _, b := range pl.builtin {
			if _, done := broad[b]; done {
				continue
			}
			p, err := pipeline(append(slices.Clone(o.Names), b), o.Defs, o.Normalize)
			if err != nil {
				return err
			}
			broad[b] = changesConstants(sets, p, o, true)
		}
	}
	for _, pl := range places {
		if slices.ContainsFunc(pl.builtin, func(b string) bool { return broad[b] }) {
			pl.builtin = nil
		}
	}
	return nil
}

// broadProposals names the project proposals that rewrite a constant.
func broadProposals(props []Proposal, sets []*scenarioSet, o Options) ([]string, error) {
	var out []string
	for _, p := range props {
		if p.Builtin {
			continue // dropBroadBuiltins kept only those that do not
		}
		defs := maps.Clone(o.Defs)
		if defs == nil {
			defs = map[string]normalize.Definition{}
		}
		defs[p.Name] = p.Definition
		pl, err := pipeline(append(slices.Clone(o.Names), p.Name), defs, o.Normalize)
		if err != nil {
			return nil, err
		}
		if changesConstants(sets, pl, o, false) {
			out = append(out, fmt.Sprintf("%s also rewrites a value that is the same in every recording; narrow its %s in cassette.yaml if that value matters", p.Name, defField(p.Definition)))
		}
	}
	return out, nil
}

func defField(d normalize.Definition) string {
	switch {
	case d.Regex != "":
		return "regex"
	case len(d.JSONPaths) > 0:
		return "json_paths"
	}
	return "headers"
}

// changesConstants reports whether p rewrites a value that every recording
// of a scenario holds alike; requests too reports a request's value (which
// verify does not compare: rewriting it there only matters to a built-in,
// which rewrites every text alike).
func changesConstants(sets []*scenarioSet, p *normalize.Pipeline, o Options, requests bool) bool {
	for _, s := range sets {
		got := byKey(s.comparedLeaves(0, s.normalizedOne(0, p), o)) // the first recording alone: consts are every recording's
		for k, v := range s.consts {
			if !requests && strings.Contains(k, ".request.") {
				continue
			}
			if l, ok := got[k]; ok && l.value != v {
				return true
			}
		}
	}
	return false
}

// stillVarying returns "scenario\x00key" of every location that differs
// between recordings under p.
func stillVarying(sets []*scenarioSet, p *normalize.Pipeline, o Options) map[string]bool {
	out := map[string]bool{}
	for _, s := range sets {
		all := s.normalized(p, o)
		first := byKey(all[0])
		for j, ls := range all[1:] {
			for _, l := range ls {
				if j+1 == s.nreal && s.fakeOff[l.key] {
					continue // the fake's drift: reported (fake.go), not to be covered
				}
				if f, ok := first[l.key]; ok && f.value != l.value {
					out[s.name+"\x00"+l.key] = true
				}
			}
		}
	}
	return out
}

// propose groups the places into normalizers: each built-in once, and one
// project normalizer per kind of target (numbered JSON paths, replaced
// JSON paths, headers, text).
func propose(places []*Place, o Options) []Proposal {
	var ids, vols, hdrs, text Proposal
	ids.Name, vols.Name = uniqueName(o, ".id"), uniqueName(o, ".volatile")
	hdrs.Name, text.Name = uniqueName(o, ".headers"), uniqueName(o, ".text")
	ids.Definition.Replace = "" // numbered: <adapter.id:N>
	vols.Definition.Replace, hdrs.Definition.Replace = "<volatile>", "<volatile>"
	var builtins []Proposal
	var regexes []string
	tokens := Proposal{Name: uniqueName(o, ".token")}
	tokens.Definition.Regex = tokenRegex(places)
	tokenRE := regexp.MustCompile(tokens.Definition.Regex)
	for _, pl := range places {
		if pl.keys == nil {
			continue
		}
		if pl.builtin == nil && tokens.Definition.Regex != "" && allEqual(maskRE(tokenRE, pl.values)) {
			tokens.Places = append(tokens.Places, pl) // an id that recurs: numbered wherever it appears
			continue
		}
		if pl.builtin != nil {
			for _, b := range pl.builtin {
				i := slices.IndexFunc(builtins, func(p Proposal) bool { return p.Name == b })
				if i < 0 {
					builtins = append(builtins, Proposal{Name: b, Builtin: true})
					i = len(builtins) - 1
				}
				builtins[i].Places = append(builtins[i].Places, pl)
			}
			continue
		}
		switch {
		case pl.Target == TargetJSON && pl.Recurs:
			addPath(&ids, pl)
		case pl.Target == TargetJSON:
			addPath(&vols, pl)
		case pl.Target == TargetHeader:
			if !slices.Contains(hdrs.Definition.Headers, pl.Path) {
				hdrs.Definition.Headers = append(hdrs.Definition.Headers, pl.Path)
			}
			hdrs.Places = append(hdrs.Places, pl)
		default:
			if !slices.Contains(regexes, pl.regex) {
				regexes = append(regexes, pl.regex)
			}
			text.Places = append(text.Places, pl)
		}
	}
	if len(regexes) > 0 {
		text.Definition.Regex, text.Definition.Replace = alternation(regexes)
	}
	var out []Proposal
	for _, p := range []Proposal{tokens, ids, vols, hdrs, text} {
		if len(p.Places) > 0 {
			out = append(out, p)
		}
	}
	slices.SortStableFunc(builtins, func(a, b Proposal) int { return builtinRank(a.Name) - builtinRank(b.Name) })
	return append(out, builtins...)
}

var idShaped = lazy(`^(?:[0-9a-f]{16,}|[A-Za-z0-9_-]*[0-9][A-Za-z0-9_-]*)$`)

// tokenRegex is the expression of the ids that recur in a recording (a
// value returned by one request and sent in the next one's URL) and are
// shaped like ids (16 hex digits or more, or a word of 16 characters or
// more with a digit): one numbered project normalizer that rewrites them
// wherever they appear keeps their identity across the places. "" when
// there are none.
func tokenRegex(places []*Place) string {
	var alts []string
	for _, pl := range places {
		if pl.keys == nil || pl.builtin != nil || !pl.Recurs || pl.Target != TargetJSON {
			continue
		}
		hex, lens, shaped := true, map[int]bool{}, true
		for _, v := range pl.values {
			shaped = shaped && len(v) >= 16 && idShaped().MatchString(v)
			hex = hex && strings.Trim(v, "0123456789abcdef") == ""
			lens[len(v)] = true
		}
		if !shaped {
			continue // numbered by its JSON path instead
		}
		class := `[A-Za-z0-9_-]`
		if hex {
			class = `[0-9a-f]`
		}
		prefix := idPrefix(pl.values) // msg_…: the prefix is kept, so that only such ids match
		for _, l := range sortedInts(lens) {
			if alt := fmt.Sprintf("%s%s{%d}", regexp.QuoteMeta(prefix), class, l-len(prefix)); !slices.Contains(alts, alt) {
				alts = append(alts, alt)
			}
		}
	}
	if len(alts) == 0 {
		return ""
	}
	return `\b(?:` + strings.Join(alts, "|") + `)\b`
}

func sortedInts(m map[int]bool) []int { return slices.Sorted(maps.Keys(m)) }

var prefixRE = lazy(`^[a-z]{2,12}_`)

// idPrefix is the lowercase prefix every value starts with (msg_), or "".
func idPrefix(vs []string) string {
	p := prefixRE().FindString(vs[0])
	for _, v := range vs[1:] {
		if !strings.HasPrefix(v, p) {
			return ""
		}
	}
	return p
}

// maskRE replaces what re matches in each value.
func maskRE(re *regexp.Regexp, vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = re.ReplaceAllString(v, "<token>")
	}
	return out
}

func addPath(p *Proposal, pl *Place) {
	for _, path := range pl.paths {
		if !slices.Contains(p.Definition.JSONPaths, path) {
			p.Definition.JSONPaths = append(p.Definition.JSONPaths, path)
		}
	}
	p.Places = append(p.Places, pl)
}

// alternation joins expressions of the form (context)shape into one, whose
// replacement keeps each context: ${1}${2}…<volatile>.
func alternation(res []string) (regex, replace string) {
	var alts []string
	var b strings.Builder
	multiline := false
	for i, re := range res {
		if strings.HasPrefix(re, "(?m)") {
			multiline, re = true, strings.TrimPrefix(re, "(?m)")
		}
		alts = append(alts, re)
		fmt.Fprintf(&b, "${%d}", i+1)
	}
	regex = strings.Join(alts, "|")
	if multiline {
		regex = "(?m)" + regex
	}
	return regex, b.String() + "<volatile>"
}

// builtinRank orders built-ins: identities (uuid, SHAs) before what
// rewrites text around them, as the built-ins' own list does.
func builtinRank(name string) int {
	for i, c := range classes {
		if c.Builtin == name {
			return i
		}
	}
	return len(classes)
}

// uniqueName is <adapter><suffix>, made unique against the project's
// definitions and the built-ins.
func uniqueName(o Options, suffix string) string {
	base := strings.Map(func(r rune) rune {
		if r == ' ' || r == '/' || r == ':' {
			return '-'
		}
		return r
	}, o.Adapter)
	if base == "" || !(base[0] >= 'a' && base[0] <= 'z' || base[0] >= 'A' && base[0] <= 'Z') {
		base = "learned" + base
	}
	name := base + suffix
	reg := normalize.Builtins()
	for i := 2; ; i++ {
		if _, taken := o.Defs[name]; !taken && !reg.Has(name) {
			return name
		}
		name = fmt.Sprintf("%s%s%d", base, suffix, i)
	}
}

// namesOf is the adapter's list with the proposals, and the definitions
// it needs.
func namesOf(o Options, props []Proposal) ([]string, map[string]normalize.Definition) {
	names := slices.Clone(o.Names)
	defs := map[string]normalize.Definition{}
	for k, v := range o.Defs {
		defs[k] = v
	}
	for _, p := range props {
		if !slices.Contains(names, p.Name) {
			names = append(names, p.Name)
		}
		if !p.Builtin {
			defs[p.Name] = p.Definition
		}
	}
	return names, defs
}

// refinePaths chooses the JSONPaths a project normalizer selects a place
// by: for each concrete path, the most general one (indices turned into
// [*], innermost last) that selects no value which never varied, in any
// scenario: `$.data.result[*].value[0]`, not `…value[*]`, when value[1]
// is the same in every recording.
func refinePaths(places []*Place, sets []*scenarioSet) {
	var consts []string
	for _, s := range sets {
		for _, l := range s.leaves[0] {
			if _, ok := s.consts[l.key]; ok && l.target == TargetJSON {
				consts = append(consts, l.cpath)
			}
		}
	}
	for _, pl := range places {
		pl.paths = nil
		for _, cp := range pl.cpaths {
			p := generalise(cp, consts)
			if !slices.Contains(pl.paths, p) {
				pl.paths = append(pl.paths, p)
			}
		}
		sort.Strings(pl.paths)
	}
}

var indexRE = lazy(`\[\d+\]`)

// generalise turns the indices of a concrete path into [*], outermost
// first, as long as the path selects no more of consts than the concrete
// path itself does (a path a scenario holds constant while another's
// varies is normalized in both: an adapter's normalizers apply to all its
// scenarios).
func generalise(cp string, consts []string) string {
	locs := indexRE().FindAllStringIndex(cp, -1)
	selected := func(p string) int {
		re := regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(p), `\[\*\]`, `\[\d+\]`) + "$")
		n := 0
		for _, c := range consts {
			if re.MatchString(c) {
				n++
			}
		}
		return n
	}
	base := selected(cp)
	for n := len(locs); n > 0; n-- { // n indices generalised, from the left
		var b strings.Builder
		last := 0
		for i, loc := range locs {
			b.WriteString(cp[last:loc[0]])
			if i < n {
				b.WriteString("[*]")
			} else {
				b.WriteString(cp[loc[0]:loc[1]])
			}
			last = loc[1]
		}
		b.WriteString(cp[last:])
		if cand := b.String(); selected(cand) == base {
			return cand
		}
	}
	return cp
}
