package proxy

import (
	"fmt"
	"net/http"

	"github.com/cassette-dev/cassette/cassettes"
)

// matcher serves replay when cassettes match by different rules (the
// `match:` of their adapter, or of their scenario): one index per distinct
// set of MatchOptions. A request is looked up in each, in the order the
// sets first appear; a miss reports the closest interaction over all.
type matcher struct {
	groups []*index
}

func newMatcher(cs []*cassettes.Cassette, def MatchOptions, matchFor func(*cassettes.Cassette) MatchOptions, prep func(*cassettes.Interaction)) *matcher {
	if matchFor == nil {
		return &matcher{groups: []*index{newIndex(cs, def, prep)}}
	}
	var keys []string
	byKey := map[string][]*cassettes.Cassette{}
	opts := map[string]MatchOptions{}
	for _, c := range cs {
		o := matchFor(c)
		k := fmt.Sprintf("%#v", o)
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
			opts[k] = o
		}
		byKey[k] = append(byKey[k], c)
	}
	m := &matcher{}
	for _, k := range keys {
		m.groups = append(m.groups, newIndex(byKey[k], opts[k], prep))
	}
	if len(m.groups) == 0 {
		m.groups = []*index{newIndex(nil, def, prep)}
	}
	return m
}

// find returns the recorded interaction that answers the request, or the
// miss that explains why none does.
func (m *matcher) find(method, rawURL string, h http.Header, body []byte, request string) (*cassettes.Interaction, *Miss) {
	var best *Miss
	for _, x := range m.groups {
		v := x.opts.viewWith(x.c, method, rawURL, h, body, x.hnames)
		it, miss := x.lookup(v, request)
		if it != nil || miss.Used > 0 {
			return it, miss
		}
		if best == nil || best.Closest == nil || miss.Closest != nil && miss.score > best.score {
			best = miss
		}
	}
	return nil, best
}

// check compiles the options of every group.
func (m *matcher) check() error {
	for _, x := range m.groups {
		if err := x.opts.Check(); err != nil {
			return err
		}
	}
	return nil
}

// MatchFromConfig turns the `match:` settings of cassette.yaml (an
// adapter's, or one scenario's: cassettes.Match.For) into MatchOptions.
func MatchFromConfig(m cassettes.Match) MatchOptions {
	o := MatchOptions{Headers: m.Headers, Body: BodyMode(m.Body), URLs: m.URLs, IgnoreParams: m.IgnoreQuery,
		IgnoreJSON: m.IgnoreJSON, OnlyJSON: m.OnlyJSON, Replayable: m.Sequence == "replayable"}
	if m.Query != nil && !*m.Query {
		o.IgnoreQuery = true
	}
	return o
}
