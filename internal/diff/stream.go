package diff

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cassette-dev/cassette/internal/normalize"
)

// stream compares JSONL or SSE record by record: the records are aligned
// (equal ones matched, the others paired by similarity), so that a record
// only one side has is named as added or removed. In modelled mode a
// record the fake leaves out is not modelled.
func (c *comparer) stream(field string, w, g []byte, wr, gr []record, lineAt func(int) int) {
	if sameMultiset(wr, gr) {
		c.add(Drift{Class: ClassStream, Change: Reordered, Field: field, Path: "$", Line: lineAt(0),
			Want: fmt.Sprintf("%d records", len(wr)), Got: "the same records in another order", Diff: textDiff(w, g)})
		return
	}
	wv, gv := decodeRecords(wr), decodeRecords(gr)
	sim := func(i, j int) float64 {
		if wv[i] == nil || gv[j] == nil {
			return 0
		}
		return similarity(wv[i], gv[j])
	}
	s := c.scope(1)
	for _, op := range align(len(wr), len(gr), func(i, j int) bool { return wr[i].text == gr[j].text }, sim) {
		switch {
		case op.i < 0:
			c.add(Drift{Class: ClassStream, Change: Added, Field: field, Path: fmt.Sprintf("$[%d]", gr[op.j].index), Line: lineAt(wrEnd(wr, w)), Got: gr[op.j].text})
		case op.j < 0 && s != nil:
			n := members(wv[op.i])
			s.model.Fields += n
			s.model.Unmodelled = append(s.model.Unmodelled, Unmodelled{Field: field, Path: fmt.Sprintf("$[%d]", wr[op.i].index), Line: lineAt(wr[op.i].offset), Want: snippet(wr[op.i].text), Fields: n})
		case op.j < 0:
			c.add(Drift{Class: ClassStream, Change: Removed, Field: field, Path: fmt.Sprintf("$[%d]", wr[op.i].index), Line: lineAt(wr[op.i].offset), Want: wr[op.i].text})
		case wr[op.i].text == gr[op.j].text:
			s.count(wv[op.i])
		default:
			wv, e1 := decodeJSON([]byte(wr[op.i].json))
			gv, e2 := decodeJSON([]byte(gr[op.j].json))
			if wr[op.i].json == "" || gr[op.j].json == "" || e1 != nil || e2 != nil {
				c.add(Drift{Class: ClassStream, Change: Changed, Field: field, Path: fmt.Sprintf("$[%d]", wr[op.i].index), Line: lineAt(wr[op.i].offset),
					Want: wr[op.i].text, Got: gr[op.j].text})
				continue
			}
			n, m := len(c.res.Drifts), s.left()
			for _, ch := range jsonChanges(s, []step{{index: wr[op.i].index}}, wv, gv) {
				c.add(ch.drift(field, recordLine(wr, ch.locateSteps(), lineAt)))
			}
			if len(c.res.Drifts) == n && s.left() == m { // same JSON, different framing (SSE event name, spacing)
				c.add(Drift{Class: ClassStream, Change: Changed, Field: field, Path: fmt.Sprintf("$[%d]", wr[op.i].index), Line: lineAt(wr[op.i].offset),
					Want: wr[op.i].text, Got: gr[op.j].text})
			}
		}
	}
	c.unmodelled(field, s, func(ch change) int { return recordLine(wr, ch.at, lineAt) })
}

func at0(at []step) int {
	if len(at) == 0 {
		return 0
	}
	return at[0].index
}

// recordLine is the line of a location in a stream ($[i]…: record i).
func recordLine(wr []record, at []step, lineAt func(int) int) int {
	i := sort.Search(len(wr), func(i int) bool { return wr[i].index >= at0(at) })
	if len(at) == 0 || i == len(wr) {
		return lineAt(0)
	}
	r := wr[i]
	if off := locate([]byte(r.json), at[1:]); off > 0 {
		return lineAt(r.offset + r.jsonAt + off)
	}
	return lineAt(r.offset)
}

// decodeRecords decodes each record's JSON payload (nil where there is none).
func decodeRecords(rs []record) []any {
	out := make([]any, len(rs))
	for i, r := range rs {
		if r.json != "" {
			if v, err := decodeJSON([]byte(r.json)); err == nil {
				out[i] = v
			}
		}
	}
	return out
}

func wrEnd(rs []record, w []byte) int {
	if len(rs) == 0 {
		return 0
	}
	return rs[len(rs)-1].offset
}

// record is one JSONL line or SSE event of a stream.
type record struct {
	text   string // the record as written
	json   string // its JSON payload, if any
	jsonAt int    // offset of the payload within text
	offset int    // offset of the record within the body
	index  int    // its index in the stream ($[index]), kept when content mode collapses records
}

func records(k normalize.Kind, body []byte) []record {
	var out []record
	s := string(body)
	if k == normalize.KindJSONL {
		off := 0
		for _, line := range strings.SplitAfter(s, "\n") {
			t := strings.TrimRight(line, "\r\n")
			if strings.TrimSpace(t) != "" {
				out = append(out, record{text: t, json: t, offset: off, index: len(out)})
			}
			off += len(line)
		}
		return out
	}
	// SSE: events are separated by a blank line; the payload is the data lines.
	off := 0
	for _, ev := range strings.SplitAfter(strings.ReplaceAll(s, "\r\n", "\n"), "\n\n") {
		t := strings.TrimRight(ev, "\n")
		if strings.TrimSpace(t) != "" {
			r := record{text: t, offset: off, index: len(out)}
			pos := 0
			for _, line := range strings.SplitAfter(t, "\n") {
				if rest, ok := strings.CutPrefix(line, "data:"); ok && r.json == "" {
					lead := len(rest) - len(strings.TrimLeft(rest, " "))
					r.json = strings.TrimRight(strings.TrimSpace(rest), "\n")
					r.jsonAt = pos + len("data:") + lead
				}
				pos += len(line)
			}
			out = append(out, r)
		}
		off += len(ev)
	}
	return out
}

func sameMultiset(a, b []record) bool {
	if len(a) != len(b) || len(a) < 2 {
		return false
	}
	count := map[string]int{}
	ordered := true
	for i := range a {
		count[a[i].text]++
		count[b[i].text]--
		ordered = ordered && a[i].text == b[i].text
	}
	if ordered {
		return false
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}
