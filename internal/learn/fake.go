package learn

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Learning from the fake. A recording of a stored or replayed real side
// never varies, yet verify needs normalizers there because the fake makes
// up its own ids and times. So the fake's answer to the committed input
// (what verify would compare) is one more "recording" of a scenario, held
// to a stricter rule than reality's own: a place where only the fake
// differs is learned when the fake's value and reality's are of one
// volatile class as a whole (two UUIDs, two timestamps, two SHAs, two
// ports, two prefixed random ids like msg_…: Classify), or when reality
// varies there too and the fake's value is of the classes reality's are.
// Anything else — a wrong label name, another stop reason, another count,
// a missing field, another status — is a Drift: reported, never learned,
// and never allowed to shape a proposal.

// Drift is a place where the fake's answer differs from reality under the
// proposed normalizers, in a way that is not volatile: the fake is wrong
// there (verify will fail on it).
type Drift struct {
	Scenario string
	Where    string // the concrete place: interactions[0].response.body line 17 $.delta.stop_reason
	Want     string // reality's value, redacted; "(absent)"
	Got      string // the fake's value, redacted; "(absent)"
}

// fakeShape returns what is under a list or text whose length differs
// between the first recording and the fake's answer: its items do not line
// up, and the fake's values there are drifts.
func (s *scenarioSet) fakeShape(order []string, idx []map[string]leaf) func(string) bool {
	if !s.hasFake() {
		return func(string) bool { return false }
	}
	return shapeChanges(order, []map[string]leaf{idx[0], idx[s.nreal]})
}

// fakeFits reports whether the fake's value at key k may be learned from,
// writing it into vals (vals[:nreal] are reality's). underShape: k is
// under a list or text whose length the fake changes.
func (s *scenarioSet) fakeFits(k string, vals []string, underShape bool, fake map[string]leaf) bool {
	l, ok := fake[k]
	if !ok || underShape {
		return false
	}
	vals[s.nreal] = l.value
	real := vals[:s.nreal]
	switch {
	case l.target == TargetFixed:
		return allEqual(vals) // a status, an exit code, a length: never normalized
	case allEqual(real) && l.value == real[0]:
		return true
	case allEqual(real):
		return sameVolatile(real[0], l.value, l)
	}
	// Reality varies here too: the fake's value must be of its classes.
	cs := Cover(real)
	return cs != nil && slices.Equal(classNames(cs), classNames(Cover(vals)))
}

// sameVolatile reports whether reality's value a and the fake's b are of
// one volatile class as a whole or, on a line of text, token by token:
// every token that differs is (`commit 1a2b… (HEAD)` and `commit 9f8e…
// (HEAD)`; not `stop end_turn` and `stop max_tokens`).
func sameVolatile(a, b string, l leaf) bool {
	if class, _ := Classify(a, b); class != "" || l.target != TargetText {
		return class != ""
	}
	sep := " "
	if strings.HasSuffix(l.key, ".request.url") {
		sep = "/"
	}
	ta, tb := strings.Split(a, sep), strings.Split(b, sep)
	if len(ta) != len(tb) {
		return false
	}
	for i := range ta {
		if class, _ := Classify(ta[i], tb[i]); ta[i] != tb[i] && class == "" {
			return false
		}
	}
	return true
}

func classNames(cs []Class) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out
}

// maxDrifts bounds the drifts a scenario lists: past them, verify shows
// the rest.
const maxDrifts = 8

// fakeDrifts lists, for each scenario with a fake's answer, the places
// where that answer still differs from the first recording under the
// proposed normalizers (and reality agrees with itself there): a list or
// text whose length the fake changes once, not item by item.
func fakeDrifts(res *Result, sets []*scenarioSet, o Options) error {
	p, err := res.pipeline(o)
	if err != nil {
		return err
	}
	for _, s := range sets {
		if !s.hasFake() {
			continue
		}
		all := s.normalized(p, o)
		idx := make([]map[string]leaf, len(all))
		for i, ls := range all {
			idx[i] = byKey(ls)
		}
		first, fake := idx[0], idx[s.nreal]
		raw0, rawF := byKey(s.leaves[0]), byKey(s.leaves[s.nreal])
		var order []string
		seen := map[string]bool{}
		for _, ls := range [][]leaf{all[0], all[s.nreal]} {
			for _, l := range ls {
				if !seen[l.key] {
					seen[l.key] = true
					order = append(order, l.key)
				}
			}
		}
		under := shapeChanges(order, []map[string]leaf{first, fake})
		n := 0
		for _, k := range order {
			w, inW := first[k]
			g, inG := fake[k]
			if under(k) || inW && inG && w.value == g.value || !s.realAgrees(k, idx) || strings.Contains(k, ".request.") ||
				strings.Contains(k, ".response.headers.") && !comparedHeader(o, cmp.Or(w.path, g.path)) {
				// The requests are the recorded ones, and verify compares
				// none, nor a header outside the contract: only what the
				// fake answered, as verify compares it, is its drift.
				continue
			}
			if n++; n > maxDrifts {
				continue
			}
			d := Drift{Scenario: s.name, Where: k, Want: "(absent)", Got: "(absent)"}
			if inW {
				d.Want = shown(raw0, k, o)
			}
			if inG {
				d.Got = shown(rawF, k, o)
			}
			res.Drifts = append(res.Drifts, d)
		}
		if n > maxDrifts {
			res.Drifts = append(res.Drifts, Drift{Scenario: s.name, Where: fmt.Sprintf("and %d more (cassette verify shows them all)", n-maxDrifts)})
		}
	}
	return nil
}

// comparedHeader reports whether verify compares header h of a fake's
// answer: the adapter's contract_headers, or Content-Type when it has none.
func comparedHeader(o Options, h string) bool {
	if o.Headers == nil {
		return h == "Content-Type"
	}
	return slices.ContainsFunc(o.Headers, func(c string) bool { return http.CanonicalHeaderKey(c) == h })
}

// realAgrees reports whether every recording of reality holds k alike
// (where it does not, the place is reality's to learn or to report).
func (s *scenarioSet) realAgrees(k string, idx []map[string]leaf) bool {
	w, ok := idx[0][k]
	for _, m := range idx[1:s.nreal] {
		if l, ok2 := m[k]; ok != ok2 || ok && l.value != w.value {
			return false
		}
	}
	return true
}

// shown is the value of k as compared before learning, redacted and
// shortened.
func shown(m map[string]leaf, k string, o Options) string {
	l, ok := m[k]
	if !ok {
		return "(absent)"
	}
	if v := samples([]string{l.value}, o.Redact); len(v) > 0 {
		return v[0]
	}
	return ""
}
