package matching

import (
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"

	"github.com/cassette-dev/cassette/cassettes"
)

// The memo: a door's request seen before, looked up again in one map
// access. Under rules that compare nothing of a request but its method
// and URL (no chosen headers), a request without a body has the same key
// whenever its method and URL are the same, so the slots its key finds in
// each group (the map entries of g.slots, which never change once the
// index is built) are kept under the parsed URL itself: the next such
// request is served from them without its URL written out, parsed and
// normalized again, and without a key built. Which response a slot gives
// (the n-th identical request the n-th recorded response) is decided by
// the slot, under its group's lock, as in take. Only requests that found a
// slot are kept, at most memoMax of them: a stream of misses, or of URLs
// that differ in nothing the rules compare, does not grow it past that.

// memoMax bounds the memo's entries (a few hundred bytes each).
const memoMax = 1 << 14

// memoKey is a request as the memo knows it: its method and its URL as
// parsed, which says everything a URL's text does.
type memoKey struct {
	method string
	u      url.URL
}

// memo holds, for each request kept, the slot of its key in each group
// (nil where a group has none).
type memo struct {
	on bool // the rules of every group compare method and URL alone
	// m is a map of its own type under a lock, not a sync.Map: hashing a
	// URL through an interface (sync.Map's keys) cost half of a lookup.
	mu sync.RWMutex
	m  map[memoKey][]*slot
	n  atomic.Int32 // len(m), read without the lock
}

func newMemo(groups []*group) *memo {
	for _, g := range groups {
		if len(g.rules.headers) > 0 {
			return &memo{}
		}
	}
	return &memo{on: true, m: map[memoKey][]*slot{}}
}

// key is r's memo key; false when r cannot be kept (it has a body, or
// headers the index reads, or a URL with userinfo, whose parse holds a
// pointer).
func (m *memo) key(r Request, u *url.URL) (memoKey, bool) {
	if !m.on || u == nil || len(r.Body) > 0 || u.User != nil || encoded(r.Header) {
		return memoKey{}, false
	}
	return memoKey{r.Method, *u}, true
}

// slots are the slots kept for k, if any.
func (m *memo) slots(k memoKey) ([]*slot, bool) {
	m.mu.RLock()
	s, ok := m.m[k]
	m.mu.RUnlock()
	return s, ok
}

// keep remembers the slots r's key found in each group, when it found one
// and the memo has room.
func (m *memo) keep(k memoKey, slots []*slot) {
	if m.n.Load() >= memoMax {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.m[k]; !ok && len(m.m) < memoMax {
		m.m[k] = slots
		m.n.Store(int32(len(m.m)))
	}
}

// takeMemo serves r from the memo: kept is true when r is one the memo
// knows by its key (it then returns what take would have, or nil), false
// when it must be looked up by its key.
func (x *Index) takeMemo(r Request, u *url.URL) (it *cassettes.Interaction, kept bool) {
	k, ok := x.memo.key(r, u)
	if !ok {
		return nil, false
	}
	slots, ok := x.memo.slots(k)
	if !ok {
		if r.URL == "" {
			r.URL = u.String()
		}
		slots = make([]*slot, len(x.groups))
		found := false
		for i, g := range x.groups {
			slots[i] = g.slot(g.rules.key(g.rules.view(r)))
			found = found || slots[i] != nil
		}
		if !found {
			return nil, false // a miss: explained by the lookup, never kept
		}
		x.memo.keep(k, slots)
	}
	for i, s := range slots {
		if s == nil {
			continue
		}
		if it := x.groups[i].takeSlot(s); it != nil {
			return it, true
		}
		if x.prepare == nil {
			break // as find: the first group that holds the key answers, or explains it is used up
		}
	}
	return nil, true
}

// encoded is whether h says its body is encoded: h.Get("Content-Encoding")
// != "" without the canonicalization of the name (a tenth of a lookup).
func encoded(h http.Header) bool {
	vs := h["Content-Encoding"]
	return len(vs) > 0 && vs[0] != ""
}
