package diff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
)

// step is one step of a location in a JSON value.
type step struct {
	key   string
	index int
	isKey bool
}

// jsonPath renders steps as an RFC 9535 normalized path: $['a b'].c[2].
func jsonPath(steps []step) string {
	var b strings.Builder
	b.WriteString("$")
	for _, s := range steps {
		switch {
		case !s.isKey:
			fmt.Fprintf(&b, "[%d]", s.index)
		case plainName.MatchString(s.key):
			b.WriteString("." + s.key)
		default:
			b.WriteString("['" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s.key) + "']")
		}
	}
	return b.String()
}

var plainName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// change is one structural difference between two JSON values.
type change struct {
	at        []step // location, indexes as in want (as in got for an added item)
	kind      string // Added, Removed, TypeChanged, ValueChanged
	class     Class
	want, got string
	inGot     bool   // the location exists only in got
	hint      string // the drift's Hint (a required field left out)
}

func (c change) drift(field string, line int) Drift {
	return Drift{Class: c.class, Change: c.kind, Field: field, Path: jsonPath(c.at), Line: line, Want: c.want, Got: c.got, Hint: c.hint}
}

// locateSteps is where to point in the want body: an added member or item
// has no place there, so its parent is shown.
func (c change) locateSteps() []step {
	if c.inGot && len(c.at) > 0 {
		return c.at[:len(c.at)-1]
	}
	return c.at
}

func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func typeName(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	}
	return "null"
}

func compact(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// jsonChanges lists the differences between two decoded JSON values:
// members added or removed and types changed are schema drift, other value
// changes and array items added or removed are value drift. A member of w
// that g leaves out is a change unless s (nil: exact) says it is not
// modelled (modelled.go).
func jsonChanges(s *scope, at []step, w, g any) []change {
	wt, gt := typeName(w), typeName(g)
	if wt != gt {
		return []change{{at: clone(at), kind: TypeChanged, class: ClassSchema, want: wt + " " + compact(w), got: gt + " " + compact(g)}}
	}
	switch wv := w.(type) {
	case map[string]any:
		gv := g.(map[string]any)
		keys := make([]string, 0, len(wv)+len(gv))
		for k := range wv {
			keys = append(keys, k)
		}
		for k := range gv {
			if _, ok := wv[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		var out []change
		for _, k := range keys {
			here := append(clone(at), step{key: k, isKey: true})
			a, inW := wv[k]
			b, inG := gv[k]
			switch {
			case !inG:
				if ch, drift := s.leftOut(here, a); drift {
					out = append(out, ch)
				}
			case !inW:
				out = append(out, change{at: here, kind: Added, class: ClassSchema, got: compact(b), inGot: true})
			default:
				s.present()
				out = append(out, jsonChanges(s, here, a, b)...)
			}
		}
		return out
	case []any:
		return arrayChanges(s, at, wv, g.([]any))
	}
	if compact(w) != compact(g) {
		return []change{{at: clone(at), kind: ValueChanged, class: ClassValue, want: compact(w), got: compact(g)}}
	}
	return nil
}

// identityKeys are member names that identify an array item.
var identityKeys = []string{"id", "node_id", "uuid", "number", "sha", "key", "name", "login", "slug"}

// arrayChanges aligns two arrays sensibly: by an identity member when every
// item of both is an object with a unique scalar value for it, otherwise by
// the longest common subsequence of equal items, pairing what is left
// between two matches position by position.
func arrayChanges(s *scope, at []step, w, g []any) []change {
	var out []change
	pair := func(ops []alignOp) {
		for _, op := range ops {
			switch {
			case op.j < 0:
				s.absent(w[op.i])
				out = append(out, change{at: append(clone(at), step{index: op.i}), kind: Removed, class: ClassValue, want: compact(w[op.i])})
			case op.i < 0:
				out = append(out, change{at: append(clone(at), step{index: op.j}), kind: Added, class: ClassValue, got: compact(g[op.j]), inGot: true})
			default:
				out = append(out, jsonChanges(s, append(clone(at), step{index: op.i}), w[op.i], g[op.j])...)
			}
		}
	}
	if key := identityKey(w, g); key != "" {
		gi := map[string]int{}
		for j, v := range g {
			gi[compact(v.(map[string]any)[key])] = j
		}
		used := map[int]bool{}
		var ops []alignOp
		var lostW []int
		for i, v := range w {
			if j, ok := gi[compact(v.(map[string]any)[key])]; ok {
				ops = append(ops, alignOp{i, j})
				used[j] = true
			} else {
				lostW = append(lostW, i)
			}
		}
		var lostG []int
		for j := range g {
			if !used[j] {
				lostG = append(lostG, j)
			}
		}
		// Items whose identity matched nothing are paired by similarity, so
		// that an item whose id alone changed shows as that change (the
		// wrong id a fake returned), not as one removed and one added.
		for _, op := range align(len(lostW), len(lostG), func(int, int) bool { return false },
			func(a, b int) float64 { return similarity(w[lostW[a]], g[lostG[b]]) }) {
			switch {
			case op.i < 0:
				ops = append(ops, alignOp{-1, lostG[op.j]})
			case op.j < 0:
				ops = append(ops, alignOp{lostW[op.i], -1})
			default:
				ops = append(ops, alignOp{lostW[op.i], lostG[op.j]})
			}
		}
		pair(ops)
		return out
	}
	if s != nil && s.modelled {
		// A modelled item holds part of the real one: equal text or
		// similarity would not pair them. Arrays keep their order, so the
		// items pair by position and a difference in count is at the end.
		pair(align(len(w), len(g), func(i, j int) bool { return i == j }, nil))
		return out
	}
	ws, gs := make([]string, len(w)), make([]string, len(g))
	for i, v := range w {
		ws[i] = compact(v)
	}
	for j, v := range g {
		gs[j] = compact(v)
	}
	pair(align(len(w), len(g), func(i, j int) bool { return ws[i] == gs[j] }, func(i, j int) float64 { return similarity(w[i], g[j]) }))
	return out
}

func identityKey(w, g []any) string {
	if len(w) == 0 || len(g) == 0 {
		return ""
	}
next:
	for _, k := range identityKeys {
		for _, side := range [][]any{w, g} {
			seen := map[string]bool{}
			for _, v := range side {
				m, ok := v.(map[string]any)
				if !ok {
					return ""
				}
				id, ok := m[k]
				if !ok {
					continue next
				}
				if t := typeName(id); t == "object" || t == "array" || t == "null" {
					continue next
				}
				if seen[compact(id)] {
					continue next
				}
				seen[compact(id)] = true
			}
		}
		return k
	}
	return ""
}

// alignOp pairs item i of want with item j of got; -1 on one side is an
// item only the other side has.
type alignOp struct{ i, j int }

// maxLCS bounds the quadratic alignment; longer sequences pair by position.
const maxLCS = 4_000_000

// align returns the pairing of two sequences: equal items matched by their
// longest common subsequence; between two matches, the unmatched items are
// paired by similarity (an order-preserving matching of greatest total
// similarity, pairs below minSimilar left out; nil sim pairs by position),
// and the rest are added or removed. Ties go to the earliest match, so the
// result is deterministic.
func align(n, m int, eq func(i, j int) bool, sim func(i, j int) float64) []alignOp {
	var ops []alignOp
	if n*m > maxLCS {
		for k := 0; k < max(n, m); k++ {
			switch {
			case k >= m:
				ops = append(ops, alignOp{k, -1})
			case k >= n:
				ops = append(ops, alignOp{-1, k})
			default:
				ops = append(ops, alignOp{k, k})
			}
		}
		return ops
	}
	// lcs[i][j] = LCS length of w[i:] and g[j:]
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if eq(i, j) {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var gw, gg []int // the current gap
	flush := func() {
		ops = append(ops, pairGap(gw, gg, sim)...)
		gw, gg = gw[:0], gg[:0]
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case eq(i, j):
			flush()
			ops = append(ops, alignOp{i, j})
			i++
			j++
		case lcs[i+1][j] >= lcs[i][j+1]:
			gw = append(gw, i)
			i++
		default:
			gg = append(gg, j)
			j++
		}
	}
	for ; i < n; i++ {
		gw = append(gw, i)
	}
	for ; j < m; j++ {
		gg = append(gg, j)
	}
	flush()
	return ops
}

// minSimilar is the least similarity for two items to be shown as one
// changed item rather than one removed and one added.
const minSimilar = 0.5

// pairGap pairs the items of one gap, keeping their order.
func pairGap(gw, gg []int, sim func(i, j int) float64) []alignOp {
	var ops []alignOp
	if sim == nil || len(gw)*len(gg) > 10_000 {
		k := 0
		for ; k < len(gw) && k < len(gg); k++ {
			ops = append(ops, alignOp{gw[k], gg[k]})
		}
		for ; k < len(gw); k++ {
			ops = append(ops, alignOp{gw[k], -1})
		}
		for ; k < len(gg); k++ {
			ops = append(ops, alignOp{-1, gg[k]})
		}
		return ops
	}
	n, m := len(gw), len(gg)
	best := make([][]float64, n+1)
	for i := range best {
		best[i] = make([]float64, m+1)
	}
	score := func(a, b int) float64 {
		if s := sim(gw[a], gg[b]); s >= minSimilar {
			return s
		}
		return -1
	}
	for a := n - 1; a >= 0; a-- {
		for b := m - 1; b >= 0; b-- {
			best[a][b] = max(best[a+1][b], best[a][b+1])
			if s := score(a, b); s > 0 {
				best[a][b] = max(best[a][b], best[a+1][b+1]+s)
			}
		}
	}
	a, b := 0, 0
	for a < n && b < m {
		if s := score(a, b); s > 0 && best[a][b] == best[a+1][b+1]+s {
			ops = append(ops, alignOp{gw[a], gg[b]})
			a++
			b++
		} else if best[a][b] == best[a+1][b] {
			ops = append(ops, alignOp{gw[a], -1})
			a++
		} else {
			ops = append(ops, alignOp{-1, gg[b]})
			b++
		}
	}
	for ; a < n; a++ {
		ops = append(ops, alignOp{gw[a], -1})
	}
	for ; b < m; b++ {
		ops = append(ops, alignOp{-1, gg[b]})
	}
	return ops
}

// similarity is how alike two JSON values are, from 0 to 1: for objects the
// share of members equal in both, for scalars of one type 0.5 (a changed
// value), for arrays the share of equal items by position.
func similarity(a, b any) float64 {
	if typeName(a) != typeName(b) {
		return 0
	}
	switch av := a.(type) {
	case map[string]any:
		bv := b.(map[string]any)
		n := max(len(av), len(bv))
		if n == 0 {
			return 1
		}
		same := 0
		for k, x := range av {
			if y, ok := bv[k]; ok && compact(x) == compact(y) {
				same++
			}
		}
		return float64(same) / float64(n)
	case []any:
		bv := b.([]any)
		n := max(len(av), len(bv))
		if n == 0 {
			return 1
		}
		same := 0
		for i := 0; i < min(len(av), len(bv)); i++ {
			if compact(av[i]) == compact(bv[i]) {
				same++
			}
		}
		return float64(same) / float64(n)
	}
	if compact(a) == compact(b) {
		return 1
	}
	return minSimilar
}

// locate returns the byte offset in data of the value at steps (or of the
// nearest ancestor that exists), -1 when data is not JSON.
func locate(data []byte, steps []step) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	best := -1
	var seek func(steps []step) bool
	seek = func(steps []step) bool {
		start := skipBlank(data, int(dec.InputOffset()))
		best = start
		if len(steps) == 0 {
			return true
		}
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		d, ok := tok.(json.Delim)
		if !ok || d == '}' || d == ']' {
			return false
		}
		for i := 0; dec.More(); i++ {
			if d == '{' {
				kt, err := dec.Token()
				if err != nil {
					return false
				}
				if k, _ := kt.(string); steps[0].isKey && k == steps[0].key {
					return seek(steps[1:])
				}
			} else if !steps[0].isKey && i == steps[0].index {
				return seek(steps[1:])
			}
			if skipValue(dec) != nil {
				return false
			}
		}
		return false
	}
	seek(steps)
	return best
}

func skipBlank(data []byte, i int) int {
	for i < len(data) && strings.IndexByte(" \t\r\n,:", data[i]) >= 0 {
		i++
	}
	return i
}

func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return err
		}
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

func clone(s []step) []step { return append([]step(nil), s...) }
