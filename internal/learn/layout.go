package learn

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/normalize"
)

// canonical is the built-in that compares JSON as values: RFC 8785 form.
const canonical = "json.canonical"

// layout proposes json.canonical where a JSON body, or a record of a
// stream, holds the same values in two recordings (or in a recording and
// the fake's answer) laid out differently: another key order, other
// spacing. Learn compares values, verify compares bytes, and no value
// normalizer makes those equal. It is proposed only when it makes every
// such body or record byte-identical.
func layout(res *Result, sets []*scenarioSet, o Options) error {
	if slices.Contains(res.Names, canonical) {
		return nil
	}
	p, err := res.pipeline(o)
	if err != nil {
		return err
	}
	pc, err := res.pipeline(o, canonical)
	if err != nil {
		return err
	}
	var places []*Place
	for _, s := range sets {
		cs, canon := s.normalizedCassettes(p), s.normalizedCassettes(pc)
		ls := s.compared(cs, o)
		first, firstC := units(cs[0]), units(canon[0])
		where := map[string]bool{}
		for r := 1; r < len(cs); r++ {
			other, otherC := units(cs[r]), units(canon[r])
			for _, u := range slices.Sorted(maps.Keys(first)) {
				b, ok := other[u]
				if !ok || bytes.Equal(first[u], b) || !sameLeaves(u, ls[0], ls[r]) || !bytes.Equal(firstC[u], otherC[u]) {
					continue
				}
				field, _, _ := strings.Cut(u, " line ")
				if !where[field] {
					where[field] = true
					places = append(places, &Place{Scenario: s.name, Where: field, Target: TargetFixed, Classes: []string{"the same JSON, in another key order or spacing"}})
				}
			}
		}
	}
	if len(places) > 0 {
		res.Proposals = append(res.Proposals, Proposal{Name: canonical, Builtin: true, Places: places})
		res.Names = append(res.Names, canonical)
	}
	return nil
}

// pipeline is the result's normalizers (and then extra) over the
// project's definitions and the proposed ones.
func (r *Result) pipeline(o Options, extra ...string) (*normalize.Pipeline, error) {
	defs := maps.Clone(o.Defs)
	if defs == nil {
		defs = map[string]normalize.Definition{}
	}
	maps.Copy(defs, r.Defs())
	return pipeline(append(slices.Clone(r.Names), extra...), defs, o.Normalize)
}

// units are the bodies verify compares, a JSON document whole and any
// other body line by line (a stream's records), by the key their leaves
// start with: interactions[0].response.body, output.stdout line 3.
func units(c *cassettes.Cassette) map[string][]byte {
	out := map[string][]byte{}
	add := func(field string, b []byte) {
		if _, ok := decodeJSON(b); ok {
			out[field] = b
			return
		}
		for i, line := range bytes.Split(b, []byte("\n")) {
			out[fmt.Sprintf("%s line %d", field, i+1)] = line
		}
	}
	for i, it := range c.Interactions {
		add(fmt.Sprintf("interactions[%d].response.body", i), it.Response.Body.Bytes())
	}
	if c.Output != nil {
		add("output.stdout", c.Output.Stdout.Bytes())
		add("output.stderr", c.Output.Stderr.Bytes())
	}
	return out
}

// sameLeaves reports whether the leaves of unit u are the same in a and b.
func sameLeaves(u string, a, b []leaf) bool {
	of := func(ls []leaf) map[string]string {
		m := map[string]string{}
		for _, l := range ls {
			if l.key == u || strings.HasPrefix(l.key, u+" ") {
				m[l.key] = l.value
			}
		}
		return m
	}
	return maps.Equal(of(a), of(b))
}
