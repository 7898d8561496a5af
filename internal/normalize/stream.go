package normalize

import (
	"errors"
	"slices"
	"sync"
	"unsafe"
)

// The streamed engine for JSON documents. Most of a JSON body is never
// rewritten: member names, numbers, words. Parsing it into a tree of
// every value (parseJSON) costs more than every normalizer together. The
// streamed engine scans the document once, validating it as parseJSON
// does, and keeps only the values something could rewrite (leaves):
//
//   - strings whose features (features.go) let a text part change them, or
//     in which the redaction's prefilter finds a literal;
//   - strings under a credential-named key (redaction by name);
//   - strings and numbers of 10 or 13 digits under a time-like key
//     (timestamps.unix);
//   - values a JSON path of the pipeline selects.
//
// The document it returns is a root whose nodes are those leaves in
// document order, each flagged with what the scan learned about its
// place (cred; and in lists of the document's, the leaves under time-like
// names and those each path selects); the stages, passes and writing of the tree
// engine then run on it unchanged (Pipeline.json), so that what comes out,
// identity numbers included, is what the tree engine gives
// (FuzzStreamMatchesTree). Whatever the scan cannot do alone falls back to
// the tree: json.canonical (it sorts members), a path that selects an
// object or an array, a path with a union, slice, negative index or a
// descendant segment anywhere but last, a JSON part that says nothing of
// what it selects.

// maxStreamPaths bounds the JSON paths a streamed pipeline follows (a bit
// each in leafCtx.sel).
const maxStreamPaths = 8

// A streamPlan is what the streamed engine needs to know of a pipeline.
type streamPlan struct {
	paths []streamPath
	epoch bool // a step rewrites epochs under time-like keys
	// cand tells, per set of features (their low bits), whether some text
	// part may change a string that has them.
	cand *[1 << featureBits]bool
	red  *redactor
	// alias: every step is one of this package's, which keep nothing of
	// the texts they are given; the scan then reads the document in place
	// instead of copying it into a string (see scan).
	alias bool
	// chunks are the nodes of documents written already, for the next
	// (see release), and lists their lists of leaves (jsonDoc's epochs
	// and selected), emptied.
	chunks nodePool
	lists  sync.Pool // *leafLists
	advs   sync.Pool // *advTable
}

// leafLists are a streamed document's lists of leaves, kept for the next
// document: a page's were grown append by append, a tenth of what
// normalizing it allocated.
type leafLists struct {
	epochs   []*jsonNode
	selected [maxStreamPaths][]*jsonNode
}

// A nodePool holds full chunks of nodes, cleared, for the documents a
// pipeline scans next: a 1 MiB page keeps some 20,000 leaves (1.3 MB),
// which were a third of what normalizing it allocated, and so of the
// collections it caused.
type nodePool struct{ p sync.Pool }

// get returns an empty chunk of capacity nodeChunk.
func (np *nodePool) get() []jsonNode {
	if c, ok := np.p.Get().(*[]jsonNode); ok {
		return (*c)[:0]
	}
	return make([]jsonNode, 0, nodeChunk)
}

// release gives the full chunks of a streamed document back, cleared (so
// that the pool keeps no string of it alive), once nothing will read the
// document again: Pipeline.JSON has written it.
func (sp *streamPlan) release(root *jsonNode) {
	for _, c := range root.doc.nodes {
		if cap(c) == nodeChunk {
			c = c[:nodeChunk]
			clear(c)
			sp.chunks.p.Put(&c)
		}
	}
	root.doc.nodes = nil
	// The lists, emptied (the pool keeps no node of the document alive).
	l, kept := &leafLists{epochs: root.doc.epochs, selected: root.doc.selected}, root.doc.epochs != nil
	clear(l.epochs)
	l.epochs = l.epochs[:0]
	for k := range l.selected {
		kept = kept || l.selected[k] != nil
		clear(l.selected[k])
		l.selected[k] = l.selected[k][:0]
	}
	root.doc.epochs, root.doc.selected = nil, [maxStreamPaths][]*jsonNode{}
	if kept {
		sp.lists.Put(l)
	}
}

// A streamPath is a JSON path the scan follows: child segments of one
// selector each (a name, a wildcard or an index ≥ 0), then maybe one
// descendant segment of one name (..name).
type streamPath struct {
	q       *JSONPath
	child   []selector
	desc    string
	hasDesc bool
}

// newStreamPlan returns the plan of a pipeline's steps, or nil when its
// documents must be parsed into trees.
func newStreamPlan(steps []Normalizer, red *redactor, canonical bool) *streamPlan {
	if canonical {
		return nil
	}
	sp := &streamPlan{red: red, cand: new([1 << featureBits]bool), alias: true}
	var needs []features
	for _, n := range steps {
		sp.alias = sp.alias && n.own
		if n.json != nil {
			if len(n.jsonPaths) == 0 && !n.jsonEpochs && !n.jsonCreds {
				return nil // a JSON part that does not say what it selects
			}
			sp.epoch = sp.epoch || n.jsonEpochs
			for _, q := range n.jsonPaths {
				if !sp.follow(q) {
					return nil
				}
			}
		}
		if n.Text != nil {
			needs = append(needs, n.needs)
		}
	}
	for f := range sp.cand {
		for _, need := range needs {
			if features(f)&need == need {
				sp.cand[f] = true
				break
			}
		}
	}
	return sp
}

// follow adds q to the paths the scan follows; false when it cannot.
func (sp *streamPlan) follow(q *JSONPath) bool {
	if slices.ContainsFunc(sp.paths, func(p streamPath) bool { return p.q == q }) {
		return true
	}
	if len(sp.paths) == maxStreamPaths {
		return false
	}
	p := streamPath{q: q}
	for i, seg := range q.segs {
		if len(seg.sels) != 1 {
			return false // a union: selection order and duplicates are the tree's to get right
		}
		s := seg.sels[0]
		if seg.descendant {
			if i != len(q.segs)-1 || s.kind != 'n' {
				return false
			}
			p.desc, p.hasDesc = s.name, true
			continue
		}
		if s.kind == 's' || s.kind == 'i' && s.index < 0 {
			return false // needs the array's length
		}
		p.child = append(p.child, s)
	}
	sp.paths = append(sp.paths, p)
	return true
}

// errBail says the scan met what only the tree engine does.
var errBail = errors.New("normalize: not streamed")

// leafCtx is what a value's place says about it.
type leafCtx struct {
	cred   bool                  // under a credential-named key (through arrays)
	epoch  bool                  // a member whose name is time-like
	sel    uint8                 // the paths that select it
	parent int                   // start of the object it is a member of, or -1
	prog   [maxStreamPaths]int16 // per path: segments matched, or -1
}

type scanner struct {
	jsonParser
	plan  *streamPlan
	names nameCache
	// first are, per depth (modulo), 1 + the slot of the name that came
	// first in the last object there, or 0 (see member).
	first [16]uint16
	adv   *advTable // while paths are followed (see container)
	doc   jsonDoc   // the document's own, gathered as it is scanned
	pre   *byteSet  // plan.red.prefilter()
	dead  [maxStreamPaths]int16
}

const (
	nameCred  = 1
	nameEpoch = 2
	nameKnown = 4
)

// scan validates src as parseJSON does and returns its leaves' document.
func (sp *streamPlan) scan(src []byte) (*jsonNode, error) {
	// The values are strings: slices of one copy of the document, or of the
	// document itself where nothing keeps any of them past the call (its
	// own normalizers keep nothing; the State keeps copies of what it
	// numbers; the output is written by copying), which saves copying a
	// whole body once more.
	var s string
	if sp.alias {
		s = unsafe.String(unsafe.SliceData(src), len(src))
	} else {
		s = string(src)
	}
	sc := scanner{jsonParser: jsonParser{src: src, s: s, pool: &sp.chunks}, plan: sp, pre: sp.red.prefilter()}
	if l, ok := sp.lists.Get().(*leafLists); ok {
		sc.doc.epochs, sc.doc.selected = l.epochs, l.selected
	}
	for k := range sc.dead {
		sc.dead[k] = -1
	}
	if len(sp.paths) > 0 {
		t, _ := sp.advs.Get().(*advTable)
		if t == nil {
			t = new(advTable)
		}
		if t.gen++; t.gen == 0 { // wrapped: no entry may hold
			*t = advTable{gen: 1}
		}
		sc.adv = t
		defer sp.advs.Put(t)
	}
	ctx := leafCtx{parent: -1} // every path at its start
	for k, p := range sp.paths {
		if len(p.child) == 0 && !p.hasDesc {
			ctx.sel |= 1 << k // $ selects the document
		}
	}
	sc.space()
	start := sc.i
	if err := sc.value(0, ctx); err != nil {
		return nil, err
	}
	end := sc.i
	sc.space()
	if sc.i != len(src) {
		return nil, errJSON
	}
	if len(sc.chunks) > 0 {
		sc.chunks[len(sc.chunks)-1] = sc.chunk
	}
	kind := src[start]
	switch {
	case kind == 't' || kind == 'f' || kind == 'n':
		kind = 'l'
	case kind != '{' && kind != '[' && kind != '"':
		kind = '0'
	}
	sc.doc.nodes, sc.doc.flat, sc.doc.credKnown = sc.chunks, sp, true
	return &jsonNode{kind: kind, start: start, end: end, doc: &sc.doc}, nil
}

func (sc *scanner) value(depth int, c leafCtx) error {
	if depth > maxJSONDepth {
		return sc.fail("nesting too deep")
	}
	if sc.i >= len(sc.src) {
		return sc.fail("unexpected end")
	}
	start := sc.i
	switch ch := sc.src[sc.i]; {
	case ch == '{' || ch == '[':
		if c.sel != 0 {
			return errBail // a path selects a whole object or array
		}
		return sc.container(depth, c)
	case ch == '"':
		// Most strings are plain: their features are found in the scan
		// that finds their end; the others are parsed again.
		var s string
		var f features
		var clean bool
		red := sc.plan.red
		if end, pf, hit := scanPlain(sc.s, sc.i+1, sc.pre); end < len(sc.s) && sc.s[end] == '"' {
			s, sc.i = sc.s[sc.i+1:end], end+1
			f, clean = pf, red.clean(s, hit)
		} else {
			var err error
			if s, err = sc.string(); err != nil {
				return err
			}
			f, clean = red.textFeatures(s)
		}
		epoch := c.epoch && epochDigits(s) > 0
		if c.sel == 0 && !c.cred && !epoch && clean && !sc.plan.cand[f&(1<<featureBits-1)] {
			return nil // nothing will rewrite it
		}
		n := sc.leaf('"', start, c)
		n.str, n.feat = s, f|fKnown
		if clean {
			n.feat |= fClean
		}
	case ch == '-' || (ch >= '0' && ch <= '9'):
		if err := sc.number(); err != nil {
			return err
		}
		if c.sel != 0 || c.epoch && epochDigits(sc.s[start:sc.i]) > 0 {
			sc.leaf('0', start, c).str = sc.s[start:sc.i]
		}
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if len(sc.s)-sc.i >= len(lit) && sc.s[sc.i:sc.i+len(lit)] == lit {
				sc.i += len(lit)
				if c.sel != 0 {
					sc.leaf('l', start, c).str = lit
				}
				return nil
			}
		}
		return sc.fail("unexpected character")
	}
	return nil
}

// leaf records the value just scanned, from start.
func (sc *scanner) leaf(kind byte, start int, c leafCtx) *jsonNode {
	n := sc.node(kind, start)
	n.end, n.cred, n.parent = sc.i, c.cred, c.parent
	if c.epoch {
		sc.doc.epochs = append(sc.doc.epochs, n)
	}
	for sel, k := c.sel, 0; sel != 0; sel, k = sel>>1, k+1 {
		if sel&1 != 0 {
			sc.doc.selected[k] = append(sc.doc.selected[k], n)
		}
	}
	return n
}

// container scans an object or an array, its members in the contexts
// their places give them.
func (sc *scanner) container(depth int, c leafCtx) error {
	obj := sc.src[sc.i] == '{'
	closer := byte(']')
	if obj {
		closer = '}'
	}
	start := sc.i
	sc.i++
	sc.space()
	if sc.i < len(sc.src) && sc.src[sc.i] == closer {
		sc.i++
		return nil
	}
	live := len(sc.plan.paths) > 0 && c.prog != sc.dead // a path may select below
	prev := &sc.first[depth%len(sc.first)]              // where the next name's guess is
	for index := 0; ; index++ {
		sc.space()
		kc := leafCtx{cred: c.cred, parent: -1, prog: sc.dead}
		var key string
		if obj {
			at, err := sc.member(*prev)
			if err != nil {
				return err
			}
			*prev = uint16(at) + 1
			e := &sc.names[at]
			prev = &e.next
			kc.cred, kc.epoch, kc.parent, key = e.f&nameCred != 0, e.f&nameEpoch != 0, start, e.k
			if live {
				// A member's progress is a function of its object's and
				// its name (the index matters in arrays only): the last
				// answer for this name's slot is kept (advCache).
				a := &sc.adv.e[at]
				if a.gen != sc.adv.gen || a.from != c.prog {
					a.sel = sc.plan.advance(&c.prog, &a.to, obj, key, index)
					a.gen, a.from = sc.adv.gen, c.prog
				}
				kc.sel, kc.prog = a.sel, a.to
			}
		} else if live {
			kc.sel = sc.plan.advance(&c.prog, &kc.prog, obj, key, index)
		}
		if err := sc.value(depth+1, kc); err != nil {
			return err
		}
		if more, err := sc.sep(closer); !more || err != nil {
			return err
		}
	}
}

// member reads an object member's name and the ':' after it, and returns
// the name's slot in sc.names, which holds it and its verdict (name). The
// records of a document repeat their names in one order: guess, 1 + a slot
// or 0 for none, is the slot of the name that followed the previous one
// last time (or came first in an object at this depth). Where the source
// holds that name, quoted, it is taken as it is, with its verdict: no scan
// for its end, no hash and no compare of its slot. A name is guessed only
// when it holds no byte a JSON string must escape (nameSlotEntry.plain),
// so that the bytes between the quotes are the name itself.
func (sc *scanner) member(guess uint16) (uint8, error) {
	if guess != 0 {
		e := &sc.names[guess-1]
		at, end := sc.i+1, sc.i+1+len(e.k)
		if e.plain && end+1 < len(sc.s) && sc.s[sc.i] == '"' && sc.s[end] == '"' && sc.s[at:end] == e.k {
			if sc.s[end+1] != ':' { // (white space before the ':': rare)
				sc.i = end + 1
				return uint8(guess - 1), sc.colon()
			}
			sc.i = end + 2
			sc.space()
			return uint8(guess - 1), nil
		}
	}
	k, err := sc.key()
	if err != nil {
		return 0, err
	}
	at := nameSlot(k)
	sc.name(k, at)
	return at, nil
}

// name judges a member name (as redactByName judges it: a credential
// name; as timestamps.unix does: a time-like name), once per name and
// document while the names of a document fit in its cache.
func (sc *scanner) name(k string, at uint8) uint8 {
	slot := &sc.names[at]
	if slot.f != 0 && slot.k == k {
		return slot.f
	}
	f := uint8(nameKnown)
	if sc.plan.red.isCredentialName(k) {
		f |= nameCred
	}
	if sc.plan.epoch && isUnixKey(k) {
		f |= nameEpoch
	}
	plain := true
	for i := 0; i < len(k); i++ {
		plain = plain && k[i] >= 0x20 && k[i] != '"' && k[i] != '\\'
	}
	*slot = nameSlotEntry{k: k, f: f, plain: plain}
	if sc.adv != nil {
		sc.adv.e[at].gen = 0 // a new name in the slot
	}
	return f
}

// A nameCache remembers the verdicts on member names, a slot a name (by
// its length and its ends): a document repeats a few names many times, and
// a slot is cheaper than a map.
type nameCache [256]nameSlotEntry

type nameSlotEntry struct {
	k     string
	f     uint8
	plain bool   // k holds no control character, quote or backslash
	next  uint16 // 1 + the slot of the name that followed it last, or 0
}

// An advTable keeps, per slot of a scanner's names, the last answer of
// streamPlan.advance for a member of that name: an entry holds where its
// gen is the table's (the document's, and the slot's name has not changed
// since: name clears it). A plan keeps its tables for the next documents
// (they hold no pointer, and need no clearing: a document of a few names
// pays for none of it).
type advTable struct {
	gen uint32
	e   [len(nameCache{})]advEntry
}

// An advEntry says that a member of the slot's name, in an object whose
// progress along the paths is from, has progress to and is selected by sel.
type advEntry struct {
	gen      uint32
	sel      uint8
	from, to [maxStreamPaths]int16
}

func nameSlot(k string) uint8 {
	if k == "" {
		return 0
	}
	h := uint32(len(k))<<24 | uint32(k[0])<<16 | uint32(k[len(k)-1])<<8 | uint32(k[len(k)/2])
	return uint8(h * 2654435761 >> 24)
}

// advance sets a member's progress along each path from its container's,
// and returns the paths that select it.
func (sp *streamPlan) advance(par, out *[maxStreamPaths]int16, obj bool, key string, index int) (sel uint8) {
	for k := range sp.paths {
		p := &sp.paths[k]
		at, next := par[k], int16(-1)
		m := int16(len(p.child))
		switch {
		case at < 0:
		case at < m:
			s := &p.child[at] // (a selector is 80 bytes: not a copy a member)
			if s.kind == '*' || obj && s.kind == 'n' && s.name == key || !obj && s.kind == 'i' && s.index == index {
				next = at + 1
				if next == m && !p.hasDesc {
					sel |= 1 << k
				}
			}
		case p.hasDesc: // at == m: below where ..name starts
			next = m
			if obj && key == p.desc {
				sel |= 1 << k
			}
		}
		out[k] = next
	}
	return sel
}

// selected returns the leaves q selects in a streamed document, in the
// order of the query's evaluation: document order, but for ..name, whose
// members come by their objects' order (a member of an object before the
// members of the objects inside it).
func (sp *streamPlan) selected(root *jsonNode, q *JSONPath) []*jsonNode {
	k := slices.IndexFunc(sp.paths, func(p streamPath) bool { return p.q == q })
	if k < 0 {
		panic("normalize: a streamed document selected by a path its plan does not follow")
	}
	out := root.doc.selected[k]
	if sp.paths[k].hasDesc {
		out = slices.Clone(out)
		slices.SortStableFunc(out, func(a, b *jsonNode) int { return a.parent - b.parent })
	}
	return out
}
