package matching

import (
	"fmt"
	"net/url"
	"sync"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/match"
)

// Options configure an Index.
type Options struct {
	// Rules are the rules of every cassette, unless RulesFor is set; then
	// only of an empty set of cassettes.
	Rules match.Rules
	// RulesFor, when set, gives the rules of each cassette (its adapter's
	// or scenario's `match:` in cassette.yaml). Cassettes under different
	// rules are indexed apart, one group per distinct set of rules.
	RulesFor func(*cassettes.Cassette) match.Rules
	// Prepare, when set, is applied to a copy of each recorded request
	// (in an interaction with an empty response) before it is indexed, and
	// to a copy of a request that matches nothing as it came (Lookup): a
	// door passes its redaction, so that both sides are compared redacted
	// and a cassette from elsewhere (a plain go-vcr file whose form body
	// still holds `client_secret=test-secret`) matches the same request.
	// It is called concurrently.
	Prepare func(*cassettes.Interaction)
	// Prepared, when set, tells the cassettes whose recorded requests are
	// in prepared form already (a door's own files, redacted before they
	// were saved): they are indexed as they are, without Prepare's copy
	// and second redaction of every request at start-up.
	Prepared func(*cassettes.Cassette) bool
	// Rerecord gives the command that re-records a cassette, which a miss
	// names as its next step (c is nil when nothing is recorded). Nil is
	// the CLI's: `cassette record --adapter A --scenario S`, or
	// `cassette proxy --mode record --cassette PATH`.
	Rerecord func(c *cassettes.Cassette) string
}

// Index answers "which recorded interaction serves this request" with one
// map lookup per group of rules, whatever the number of recorded
// interactions, and explains a request it cannot serve (Miss). It keeps
// which recorded responses were served: the n-th identical request gets
// the n-th recorded response. Its methods are safe for concurrent use.
type Index struct {
	groups  []*group
	prepare func(*cassettes.Interaction)
	memo    *memo // requests seen before, by method and parsed URL (memo.go)
}

// New indexes the recorded requests of cs; the error is the first rule
// that does not compile (a URL pattern, a JSONPath).
func New(cs []*cassettes.Cassette, o Options) (*Index, error) {
	if o.Rerecord == nil {
		o.Rerecord = RecordStep
	}
	if o.RulesFor == nil {
		g, err := newGroup(cs, o.Rules, o)
		if err != nil {
			return nil, err
		}
		x := &Index{groups: []*group{g}, prepare: o.Prepare}
		x.memo = newMemo(x.groups)
		return x, nil
	}
	var keys []string
	byKey := map[string][]*cassettes.Cassette{}
	rules := map[string]match.Rules{}
	for _, c := range cs {
		r := o.RulesFor(c)
		k := fmt.Sprintf("%#v", r)
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
			rules[k] = r
		}
		byKey[k] = append(byKey[k], c)
	}
	if len(keys) == 0 {
		keys, rules[""] = []string{""}, o.Rules
	}
	x := &Index{prepare: o.Prepare}
	for _, k := range keys {
		g, err := newGroup(byKey[k], rules[k], o)
		if err != nil {
			return nil, err
		}
		x.groups = append(x.groups, g)
	}
	x.memo = newMemo(x.groups)
	return x, nil
}

// Lookup returns the recorded interaction that answers r, and consumes
// it, or the miss that explains why none does. A request is first looked
// up as it came: the recorded requests are indexed prepared (see
// Options.Prepare), so when r equals one of them there is nothing to
// prepare, and a door's redaction is not paid on its hot path. Only a
// request that matches nothing as it came (one that carries a live token
// where the cassette says [REDACTED], one whose body is compressed, or a
// real miss) is prepared the same way, on a copy, and looked up again; the
// miss is explained from that prepared form, so it never shows what the
// preparation hides.
func (x *Index) Lookup(r Request) (*cassettes.Interaction, *Miss) { return x.lookup(r, nil) }

// LookupParsed is Lookup of r whose URL is u, as parsed (absolute); r.URL
// may be left empty. A request seen before is found in a memo kept by its
// method and u (memo.go), without its URL written out and normalized
// again; r.URL is written from u only for one the memo does not know.
func (x *Index) LookupParsed(r Request, u *url.URL) (*cassettes.Interaction, *Miss) {
	return x.lookup(r, u)
}

func (x *Index) lookup(r Request, u *url.URL) (*cassettes.Interaction, *Miss) {
	it, kept := x.takeMemo(r, u)
	if it != nil {
		return it, nil
	}
	if r.URL == "" && u != nil {
		r.URL = u.String()
	}
	if x.prepare == nil {
		return x.find(r)
	}
	if !kept && !encoded(r.Header) { // the recorded side holds decoded bodies
		if it := x.take(r); it != nil {
			return it, nil
		}
	}
	return x.find(prepared(r, x.prepare))
}

// prepared is r as prep leaves a copy of it, in an interaction with an
// empty response.
func prepared(r Request, prep func(*cassettes.Interaction)) Request {
	probe := cassettes.Interaction{Request: cassettes.Request{Method: r.Method, URL: r.URL,
		Headers: r.Header.Clone(), Body: cassettes.Body(r.Body), ContentLength: int64(len(r.Body))}}
	prep(&probe)
	q := &probe.Request
	return Request{Method: q.Method, URL: q.URL, Header: q.Headers, Body: []byte(q.Body)}
}

// take serves r from the first group that holds it unused (or repeats
// it), and consumes it; nil when none does. It builds no miss.
func (x *Index) take(r Request) *cassettes.Interaction {
	for _, g := range x.groups {
		if it, _ := g.take(g.rules.view(r)); it != nil {
			return it
		}
	}
	return nil
}

// find serves r like take, or returns the miss that explains why nothing
// does: the recorded request that came closest over every group, or the
// sequence r used up.
func (x *Index) find(r Request) (*cassettes.Interaction, *Miss) {
	var best *Miss
	request := r.String()
	for _, g := range x.groups {
		it, miss := g.lookup(g.rules.view(r), request)
		if it != nil || miss.Used > 0 {
			return it, miss
		}
		if best == nil || best.Closest == nil || miss.Closest != nil && miss.score > best.score {
			best = miss
		}
	}
	return nil, best
}

// ref locates one recorded interaction.
type ref struct{ c, i int }

// slot is the queue of recorded interactions answering one key.
type slot struct {
	refs []ref
	next int
}

// entry is one recorded interaction as the closest miss sees it: where it
// is, its view, and its place in the queue of its key (slot.refs[n]), which
// says whether it was served already.
type entry struct {
	ref  ref
	view view
	slot *slot
	n    int
}

// group is the index of the cassettes under one set of rules.
type group struct {
	rules    *compiled
	cs       []*cassettes.Cassette
	rerecord func(*cassettes.Cassette) string

	mu    sync.Mutex
	slots map[string]*slot
	all   []entry   // every recorded interaction, in recorded order
	miss  *postings // positions in all, for the closest miss (closest.go)
}

func newGroup(cs []*cassettes.Cassette, r match.Rules, o Options) (*group, error) {
	c, err := compile(r)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, cas := range cs {
		n += len(cas.Interactions)
	}
	// Sized once: grown by appending, they were twice their size in garbage.
	g := &group{rules: c, cs: cs, rerecord: o.Rerecord, slots: make(map[string]*slot, n), all: make([]entry, 0, n), miss: newPostings(c)}
	g.miss.grow(n)
	for ci, cas := range cs {
		prep := o.Prepare
		if o.Prepared != nil && o.Prepared(cas) {
			prep = nil
		}
		for ii := range cas.Interactions {
			v := c.view(recorded(&cas.Interactions[ii].Request, prep))
			k := c.key(v)
			s := g.slots[k]
			if s == nil {
				s = &slot{}
				g.slots[k] = s
			}
			g.all = append(g.all, entry{ref{ci, ii}, v, s, len(s.refs)})
			s.refs = append(s.refs, ref{ci, ii})
			g.miss.add(&v)
		}
	}
	return g, nil
}

// recorded is a recorded request as matching sees it, prepared (on a
// copy) when prep is set.
func recorded(r *cassettes.Request, prep func(*cassettes.Interaction)) Request {
	if prep != nil {
		probe := cassettes.Interaction{Request: r.Clone()}
		prep(&probe)
		r = &probe.Request
	}
	return Request{Method: r.Method, URL: r.URL, Header: r.Headers, Body: []byte(r.Body)}
}

func (g *group) interaction(r ref) *cassettes.Interaction {
	return &g.cs[r.c].Interactions[r.i]
}

// repeats reports whether the last response of cassette c may be served again.
func (g *group) repeats(c int) bool {
	if rp := g.cs[c].Replayable; rp != nil {
		return *rp
	}
	return g.rules.Replayable
}

// lookup returns the interaction that answers v, or a miss explaining why
// none does.
func (g *group) lookup(v view, request string) (*cassettes.Interaction, *Miss) {
	it, s := g.take(v)
	switch {
	case it != nil:
		return it, nil
	case s != nil:
		return nil, g.exhausted(request, s.refs[len(s.refs)-1], len(s.refs))
	}
	return nil, g.closest(v, request)
}

// served reports whether the entry at pos was served already and will not
// be served again (a sequence's last response that repeats is never used
// up). g.mu must be held.
func (g *group) served(pos int32) bool {
	e := &g.all[pos]
	if e.n >= e.slot.next {
		return false
	}
	return e.n != len(e.slot.refs)-1 || !g.repeats(e.ref.c)
}

// take returns the interaction that answers v and consumes it; when none
// does, the slot of v's key if it exists (its responses all served).
func (g *group) take(v view) (*cassettes.Interaction, *slot) {
	s := g.slot(g.rules.key(v))
	if s == nil {
		return nil, nil
	}
	if it := g.takeSlot(s); it != nil {
		return it, nil
	}
	return nil, s
}

// slot is the slot of key k, nil when no recorded request has it. The
// slots map is not written after newGroup.
func (g *group) slot(k string) *slot { return g.slots[k] }

// takeSlot consumes the next response of s (or repeats its last one);
// nil when they are all served.
func (g *group) takeSlot(s *slot) *cassettes.Interaction {
	g.mu.Lock()
	defer g.mu.Unlock()
	if s.next < len(s.refs) {
		r := s.refs[s.next]
		s.next++
		return g.interaction(r)
	}
	if last := s.refs[len(s.refs)-1]; g.repeats(last.c) {
		return g.interaction(last)
	}
	return nil
}
