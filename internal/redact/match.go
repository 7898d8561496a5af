package redact

import (
	"bytes"
	"math"
	"slices"
)

// How a text is searched for the known formats. The keyword index finds
// where each pattern's keywords are; a pattern none of whose keywords
// occurs is not run. A pattern whose every match starts with a keyword is
// tried only there, anchored (with the byte before it, so that \b sees
// it); one whose matches are bounded in length is run on the windows
// around its keywords; only the rest run over the whole text. Go's regular
// expressions without a literal prefix run at a few MB/s over a whole
// text: gitleaks' keyword rules over a 1 MiB body took 0.1–0.9 s each.

// span is one secret found: the bytes of the secret, and its pattern.
type span struct {
	start, end int
	p          *Pattern
}

// find returns the secrets of the known formats in data, sorted by start,
// without overlaps (the first to start wins, then the longest). With
// refuseOnly, only the patterns that refuse are run.
func (rs *ruleSet) find(data []byte, refuseOnly bool) []span {
	occ := rs.index.find(data)
	if len(occ) == 0 && len(rs.always) == 0 {
		return nil
	}
	// The occurrences of each keyword found, in order; the patterns they
	// belong to.
	byKeyword := map[int32][]occurrence{}
	for _, o := range occ {
		byKeyword[o.kw] = append(byKeyword[o.kw], o)
	}
	var touched []int32
	for kw := range byKeyword {
		touched = append(touched, rs.index.kws[kw].patterns...)
	}
	slices.Sort(touched)
	touched = slices.Compact(touched)
	var out []span
	run := func(pi int32, occ []occurrence) {
		if p := &rs.patterns[pi]; p.Refuse || !refuseOnly {
			out = p.search(data, occ, rs, out)
		}
	}
	for _, pi := range touched {
		var mine []occurrence
		for _, kw := range rs.keywordsOf[pi] {
			if len(mine) == 0 {
				mine = byKeyword[kw]
			} else if os := byKeyword[kw]; len(os) > 0 {
				mine = append(slices.Clip(mine), os...)
				slices.SortStableFunc(mine, func(a, b occurrence) int { return a.pos - b.pos })
			}
		}
		run(pi, mine)
	}
	for _, pi := range rs.always {
		run(pi, nil)
	}
	return disjoint(out)
}

// disjoint sorts spans by start (longest first on a tie) and drops each
// that overlaps one kept before it.
func disjoint(spans []span) []span {
	if len(spans) < 2 {
		return spans
	}
	slices.SortStableFunc(spans, func(a, b span) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return b.end - a.end
	})
	out := spans[:1]
	for _, s := range spans[1:] {
		if s.start >= out[len(out)-1].end {
			out = append(out, s)
		}
	}
	return out
}

// search appends the pattern's secrets in data to out; occ are where its
// keywords are.
func (p *Pattern) search(data []byte, occ []occurrence, rs *ruleSet, out []span) []span {
	pr := p.prep.get()
	switch {
	case pr.shape.anchored:
		return p.searchAnchored(pr, data, occ, rs, out)
	case pr.shape.maxLen >= 0 && len(occ) > 0:
		return p.searchWindows(pr, data, occ, rs, out)
	}
	for _, loc := range pr.re().FindAllSubmatchIndex(data, -1) {
		if s, ok := p.secret(data, loc, rs); ok {
			out = append(out, s)
		}
	}
	return out
}

// searchAnchored tries the pattern where each keyword starts. The window
// is the byte before (for \b) to the longest match after: a match found
// in it is a match of the whole text, and the other way round.
func (p *Pattern) searchAnchored(pr *prepared, data []byte, occ []occurrence, rs *ruleSet, out []span) []span {
	lastEnd := 0
	for i, o := range occ {
		q := o.pos
		if (i > 0 && occ[i-1].pos == q) || q < lastEnd {
			continue // tried already, or inside the last match (FindAll does not overlap)
		}
		if (pr.shape.wordStart && !boundary(data, q)) || (p.near != nil && !p.near(data, q)) {
			continue
		}
		end := len(data)
		if pr.shape.maxLen >= 0 {
			end = min(end, q+pr.shape.maxLen+1)
		}
		var loc []int
		if q == 0 {
			loc = pr.at0().FindSubmatchIndex(data[:end])
		} else if loc = pr.after1().FindSubmatchIndex(data[q-1 : end]); loc != nil {
			for k := range loc {
				if loc[k] >= 0 {
					loc[k] += q - 1
				}
			}
			loc[0] = q
		}
		if loc == nil || (loc[1] == end && end < len(data)) {
			continue
		}
		lastEnd = loc[1]
		if s, ok := p.secret(data, loc, rs); ok {
			out = append(out, s)
		}
	}
	return out
}

// searchWindows runs the pattern over the windows around its keywords: a
// match holding a keyword that starts at q lies within the longest match
// on either side of it. A match that touches a window's edge inside the
// text is not one of the whole text (its \b or $ saw the edge) and is
// dropped: the one that holds the keyword lies strictly inside.
func (p *Pattern) searchWindows(pr *prepared, data []byte, occ []occurrence, rs *ruleSet, out []span) []span {
	m := pr.shape.maxLen
	ws, we := -1, -1
	flush := func() {
		if ws < 0 {
			return
		}
		for _, loc := range pr.re().FindAllSubmatchIndex(data[ws:we], -1) {
			if (loc[0] == 0 && ws > 0) || (loc[1] == we-ws && we < len(data)) {
				continue
			}
			for k := range loc {
				if loc[k] >= 0 {
					loc[k] += ws
				}
			}
			if s, ok := p.secret(data, loc, rs); ok {
				out = append(out, s)
			}
		}
	}
	for _, o := range occ {
		k := len(rs.index.kws[o.kw].text)
		s, e := max(0, o.pos+k-m-1), min(len(data), o.pos+m+1)
		if ws >= 0 && s <= we {
			we = max(we, e)
			continue
		}
		flush()
		ws, we = s, e
	}
	flush()
	return out
}

// boundary reports whether \b holds before data[q] (ASCII word characters,
// as Go's \b).
func boundary(data []byte, q int) bool {
	before := q > 0 && isWordByte(data[q-1])
	return before != (q < len(data) && isWordByte(data[q]))
}

func isWordByte(c byte) bool {
	return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// secret picks the secret out of a match (see Pattern.Group) and says
// whether it is one: not already redacted, not a documented example, of
// enough entropy, and allowed by no allowlist.
func (p *Pattern) secret(data []byte, loc []int, rs *ruleSet) (span, bool) {
	s, e := loc[0], loc[1]
	if p.Group > 0 && 2*p.Group+1 < len(loc) {
		s, e = loc[2*p.Group], loc[2*p.Group+1]
	} else if p.Group == 0 {
		for g := 1; 2*g+1 < len(loc); g++ {
			if loc[2*g] >= 0 && loc[2*g+1] > loc[2*g] {
				s, e = loc[2*g], loc[2*g+1]
				break
			}
		}
	}
	if s < 0 || e <= s {
		return span{}, false
	}
	sec := data[s:e]
	if bytes.Contains(sec, []byte("REDACTED")) || examples[string(sec)] ||
		(p.Entropy > 0 && entropy(sec) <= p.Entropy) {
		return span{}, false
	}
	for _, a := range rs.global {
		if a.allows(data, loc, s, e) {
			return span{}, false
		}
	}
	for _, a := range p.allow {
		if a.allows(data, loc, s, e) {
			return span{}, false
		}
	}
	return span{s, e, p}, true
}

// allows reports whether the allowlist holds for a match (loc) whose
// secret is data[s:e], as gitleaks judges it.
func (a allowlist) allows(data []byte, loc []int, s, e int) bool {
	target := data[s:e]
	switch a.target {
	case "match":
		target = data[loc[0]:loc[1]]
	case "line":
		from := bytes.LastIndexByte(data[:loc[0]], '\n') + 1
		to := len(data)
		if i := bytes.IndexByte(data[loc[1]:], '\n'); i >= 0 {
			to = loc[1] + i
		}
		target = data[from:to]
	}
	res := a.res()
	re := false
	for _, r := range res {
		if r.Match(target) {
			re = true
			break
		}
	}
	stop := false
	if len(a.stopwords) > 0 {
		low := bytes.ToLower(data[s:e])
		for _, w := range a.stopwords {
			if bytes.Contains(low, []byte(w)) {
				stop = true
				break
			}
		}
	}
	if !a.and {
		return re || stop
	}
	return (len(res) == 0 || re) && (len(a.stopwords) == 0 || stop)
}

// entropy is the Shannon entropy of s in bits per character, as gitleaks
// computes it.
func entropy(s []byte) float64 {
	counts := map[rune]int{}
	for _, r := range string(s) {
		counts[r]++
	}
	inv := 1 / float64(len(s))
	h := 0.0
	for _, n := range counts {
		f := float64(n) * inv
		h -= f * math.Log2(f)
	}
	return h
}
