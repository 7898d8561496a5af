package matching

import (
	"maps"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cassette-dev/cassette/match"
)

// The closest miss, from posting lists. A recorded request's score against the
// request that missed is Hoverfly's: 2 points for each equal field (method,
// host, path, query, each matched header, body), 1 for a near one (a path
// with the same parent, a query with the same parameter names). That is a
// sum over "dimensions" — method, host, path, path's parent, query, query's
// names, each header, body — each with a weight (an equal path is equal
// in both path and parent: 1 + 1), so the score of a recorded request is
// the sum of the weights of the posting lists (recorded requests sharing
// the missed request's value in that dimension) it is in.
//
// The best one (first recorded on a tie) is found by scoring the members
// of the shortest lists first and stopping as soon as the lists not yet
// read cannot add up to the best score so far (MaxScore, as search engines
// rank documents). The long lists (every interaction has the same host)
// are usually never read, so a miss costs about the same at 1 and at
// 100,000 interactions. Scoring one candidate is a handful of integer
// comparisons. The answer is the one a scan of every interaction gives
// (closest_test.go compares them).

// dim is one scored dimension: each distinct value gets an id, each id
// the positions (ascending) of the recorded requests that have it.
type dim struct {
	weight int
	value  func(v *view) string
	ids    map[string]int32
	lists  [][]int32
	of     []int32 // position → id
}

// postings are the dimensions of every recorded request of a group, in
// recorded order (a position is an index into group.all).
type postings struct {
	dims []*dim
	n    int32
}

// newPostings makes the dimensions the rules score.
func newPostings(c *compiled) *postings {
	mi := &postings{}
	add := func(w int, f func(v *view) string) {
		mi.dims = append(mi.dims, &dim{weight: w, value: f, ids: map[string]int32{}})
	}
	if !c.IgnoreMethod {
		add(2, func(v *view) string { return v.method })
	}
	if !c.IgnoreHost {
		add(2, func(v *view) string { return v.origin })
	}
	add(1, func(v *view) string { return v.path })
	add(1, func(v *view) string { return parentOf(v.path) })
	if !c.IgnoreQuery {
		add(1, func(v *view) string { return v.query })
		add(1, func(v *view) string { return namesOf(v.query) })
	}
	for i := range c.headers {
		add(2, func(v *view) string { return v.headers[i] })
	}
	if c.Body != match.BodyIgnore {
		add(2, func(v *view) string { return v.bodyKey })
	}
	return mi
}

// parentOf is what two paths share when they are near (same parent): the
// path up to its last '/'. A path without one is near no other path; it
// gets a value of its own, so that only an equal path shares it.
func parentOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return "\x00" + p
}

// namesOf is what two queries share when they are near (the same set of
// parameter names): the names, sorted and length-prefixed. A query that
// does not parse is near no other query.
func namesOf(q string) string {
	vals, err := url.ParseQuery(q)
	if err != nil {
		return "\x00" + q
	}
	names := slices.AppendSeq(make([]string, 0, len(vals)), maps.Keys(vals))
	slices.Sort(names)
	var b strings.Builder
	for _, k := range names {
		b.WriteString(strconv.Itoa(len(k)))
		b.WriteByte(':')
		b.WriteString(k)
	}
	return b.String()
}

// grow makes room for n more positions.
func (mi *postings) grow(n int) {
	for _, d := range mi.dims {
		d.of = slices.Grow(d.of, n)
	}
}

// add indexes the view at the next position.
func (mi *postings) add(v *view) {
	pos := mi.n
	mi.n++
	for _, d := range mi.dims {
		val := d.value(v)
		id, ok := d.ids[val]
		if !ok {
			id = int32(len(d.lists))
			d.ids[val] = id
			d.lists = append(d.lists, nil)
		}
		d.of = append(d.of, id)
		d.lists[id] = append(d.lists[id], pos)
	}
}

// best returns the position of the highest-scoring recorded request (the
// first recorded on a tie) and its score, among the positions skip does
// not rule out (nil: all of them); -1 when there is none.
func (mi *postings) best(got *view, skip func(pos int32) bool) (int, int) {
	if skip == nil {
		skip = func(int32) bool { return false }
	}
	// The first position not ruled out scores what it scores even when it
	// is in none of the lists: it is the answer when no list member beats it.
	best := int32(0)
	for best < mi.n && skip(best) {
		best++
	}
	if best == mi.n {
		return -1, -1
	}
	type list struct {
		w   int
		pos []int32
	}
	gotIDs := make([]int32, len(mi.dims))
	var lists []list
	total := 0
	for i, d := range mi.dims {
		id, ok := d.ids[d.value(got)]
		if !ok {
			gotIDs[i] = -1
			continue
		}
		gotIDs[i] = id
		lists = append(lists, list{d.weight, d.lists[id]})
		total += d.weight
	}
	score := func(pos int32) int {
		s := 0
		for i, d := range mi.dims {
			if d.of[pos] == gotIDs[i] {
				s += d.weight
			}
		}
		return s
	}
	top := score(best)
	if top == total {
		return int(best), top
	}
	sort.SliceStable(lists, func(i, j int) bool { return len(lists[i].pos) < len(lists[j].pos) })
	rest := total // the most a request in none of the lists read so far can score
	for _, l := range lists {
		if rest < top {
			break
		}
		if rest == top {
			// Only a request in every list left, recorded before best, can
			// tie and win: they are all in this (the shortest) one.
			for _, pos := range l.pos {
				if pos >= best {
					break
				}
				if !skip(pos) && score(pos) == top {
					best = pos
					break
				}
			}
			break
		}
		for _, pos := range l.pos {
			if skip(pos) {
				continue
			}
			if s := score(pos); s > top || (s == top && pos < best) {
				best, top = pos, s
				if top == total { // in every list: the first such is in this one, in order
					return int(best), top
				}
			}
		}
		rest -= l.w
	}
	return int(best), top
}
