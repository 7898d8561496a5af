package normalize

import (
	"math/bits"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cassette-dev/cassette/internal/redact"
)

// This file holds what makes normalizing cheap where nothing is volatile
// (most of any body), with matchers.go (matchers that find a rule's
// candidates with a byte search before any expression runs) and
// features.go (what a string holds that a built-in needs): a prefilter for
// credential redaction, and the grouping of text normalizers so that a
// JSON document is walked once per group rather than once per normalizer.

// redactor is redact.RedactString with a prefilter: a text in which no
// declared value occurs (one scan of its bytes, three in a row at a time)
// and no keyword of a key format (redact.MayHoldFormat) is returned as it
// is: Redact would change nothing in it.
type redactor struct {
	creds map[string]string
	rules *redact.Rules        // the credential names
	lits  map[uint64][]literal // declared values Redact scrubs, by the tripleHash of their key
	// few are those values when there are at most maxFew: each is then
	// looked for by strings.Contains (a vector search), not by the scan
	// of every three bytes.
	few  []string
	keys *tripleSet // each literal's key: three bytes of it (4 KiB: stays in cache)
	// pre is each literal's key and each format keyword's first three
	// bytes, in lower case: a text in which scanText finds none of them
	// nor a pair of pairEQ or pairS (the two-byte keywords) holds no
	// literal and no keyword (redact.MayHoldFormat is false of it).
	// preFormats is false when that cannot be told of the formats (some
	// format has no keyword, or a two-byte keyword is not one of those
	// pairs): pre is then the literals' keys alone.
	// Set on first use (prefilter): building it builds redaction's rule
	// set, which a pipeline that redacts nothing never needs.
	preOnce    sync.Once
	pre        *byteSet
	preFormats bool

	// names remembers Rules.IsCredentialField for the first maxNames
	// keys seen: the records of a stream repeat theirs.
	names     sync.Map // string → bool
	nameCount atomic.Int64
}

func newRedactor(creds map[string]string, rules *redact.Rules) *redactor {
	r := &redactor{creds: creds, rules: rules, keys: new(tripleSet), lits: map[uint64][]literal{}, few: []string{}}
	for _, l := range creds {
		if len(l) < redact.MinValueLen { // Redact leaves a shorter value alone
			continue
		}
		at := keyOf(l)
		h := tripleHash(l[at], l[at+1], l[at+2])
		r.lits[h] = append(r.lits[h], literal{l, at})
		r.few = append(r.few, l)
		r.keys.add(l[at], l[at+1], l[at+2])
	}
	if len(r.few) > maxFew {
		r.few = nil
	}
	return r
}

// preFormatsSet sets r.pre if it is not, and returns r.preFormats.
func (r *redactor) preFormatsSet() bool {
	r.prefilter()
	return r.preFormats
}

// prefilter returns r.pre, set first if it is not.
func (r *redactor) prefilter() *byteSet {
	r.preOnce.Do(func() { r.pre, r.preFormats = formatPrefilter(r.creds) })
	return r.pre
}

// maxFew is how many declared values redactor.mayHoldDeclared looks for
// one by one.
const maxFew = 4

// formatPrefilter returns redactor.pre and preFormats for the declared
// values creds.
func formatPrefilter(creds map[string]string) (*byteSet, bool) {
	pre, fold := new(byteSet), foldASCII
	for _, l := range creds {
		if len(l) >= redact.MinValueLen {
			at := keyOf(l)
			pre.add(fold(l[at]), fold(l[at+1]), fold(l[at+2]))
		}
	}
	kws, ok := redact.FormatKeywords()
	for _, k := range kws {
		if len(k) == 2 && !pairCovered(k[0], k[1]) {
			ok = false
		}
	}
	if !ok {
		return pre, false
	}
	for _, k := range kws {
		if len(k) > 2 {
			pre.add(fold(k[0]), fold(k[1]), fold(k[2]))
		}
	}
	return pre, true
}

// pairCovered reports whether scanText sees the two bytes a, b in a row, in
// every case, as one of the pairs pairEQ and pairS.
func pairCovered(a, b byte) bool {
	for _, x := range []byte{a, a &^ 0x20} {
		for _, y := range []byte{b, b &^ 0x20} {
			if (x != a && foldASCII(x) != a) || (y != b && foldASCII(y) != b) {
				continue // not a case of a letter
			}
			if byteBits[x]>>16&(byteBits[y]>>32)&uint64(pairEQ|pairS) == 0 {
				return false
			}
		}
	}
	return true
}

// mayChange reports whether a declared value or a format's keyword occurs in s.
func (r *redactor) mayChange(s string) bool {
	return redact.MayHoldFormat(s) || r.mayHoldDeclared(s)
}

// mayHoldDeclared reports whether a declared value occurs in s.
func (r *redactor) mayHoldDeclared(s string) bool {
	if r.few != nil {
		for _, l := range r.few {
			if strings.Contains(s, l) {
				return true
			}
		}
		return false
	}
	var h uint64
	for i := 0; i < len(s); i++ {
		h = (h<<5 ^ uint64(s[i])) & (1<<15 - 1) // tripleHash of s[i-2:i+1]
		if i >= 2 && r.keys[h>>6]&(1<<(h&63)) != 0 {
			for _, l := range r.lits[h] {
				if start := i - 2 - l.key; start >= 0 && strings.HasPrefix(s[start:], l.s) {
					return true
				}
			}
		}
	}
	return false
}

// A declared value is looked for by three bytes of it (its key, at offset
// key): those least likely in ordinary text, so that the prefilter rarely
// sends a text on to be searched.
type literal struct {
	s   string
	key int
}

// keyOf returns the offset of l's key: its three bytes in a row with the
// most bytes that are not lowercase letters, the first of those.
func keyOf(l string) int {
	best, bestScore := 0, -1
	for at := 0; at+3 <= len(l); at++ {
		score := 0
		for _, c := range []byte(l[at : at+3]) {
			if c < 'a' || c > 'z' {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = at, score
		}
	}
	return best
}

// textFeatures returns featuresOf(s) and whether !r.mayChange(s), in one
// scan of s where none of its triples starts a declared value's key or a
// format's keyword (r.pre: most strings), and where one may, the
// prefilters' own scans after it.
func (r *redactor) textFeatures(s string) (f features, clean bool) {
	f, hit := scanText(s, r.prefilter())
	return f, r.clean(s, hit)
}

// clean is !r.mayChange(s), given whether scanText of s against
// r.prefilter() hit.
func (r *redactor) clean(s string, hit bool) bool {
	if !r.preFormats {
		return !redact.MayHoldFormat(s) && (!hit || !r.mayHoldDeclared(s))
	}
	return !hit || !redact.MayHoldFormat(s) && !r.mayHoldDeclared(s)
}

// strings redacts the string values of a document; a value found clean,
// or that redaction left as it was, is not redacted again until it
// changes (Redact gives the same answer for the same text: the last
// redaction of a pipeline then skips every value the first one read and
// no normalizer rewrote).
func (r *redactor) strings(root *jsonNode) {
	one := func(v *jsonNode) {
		if s := r.text(v.str); s != v.str {
			v.setString(s)
		} else {
			v.feat |= fClean
		}
	}
	if root.doc == nil {
		root.eachString(func(v *jsonNode) {
			if v.feat&fClean == 0 {
				one(v)
			}
		})
		return
	}
	for _, chunk := range root.doc.nodes { // eachString, without a call a clean node
		for i := range chunk {
			if v := &chunk[i]; v.kind == '"' && !v.gone && v.feat&fClean == 0 {
				one(v)
			}
		}
	}
}

const maxNames = 4096

func (r *redactor) isCredentialName(k string) bool {
	if v, ok := r.names.Load(k); ok {
		return v.(bool)
	}
	c := r.rules.IsCredentialField(k) // a JSON key: "key" alone is data there
	if r.nameCount.Add(1) <= maxNames {
		r.names.Store(strings.Clone(k), c) // not a slice of a whole document
	}
	return c
}

// text is redact.RedactString(s, r.creds). Where no declared value
// occurs in s, scrubbing them changes nothing, and only the formats are
// looked for (RedactString with no values: no search for each value in
// each of its forms, no copy of s a value).
func (r *redactor) text(s string) string {
	formats, declared := redact.MayHoldFormat(s), r.mayHoldDeclared(s)
	switch {
	case declared:
		return redact.RedactString(s, r.creds)
	case formats:
		return redact.RedactString(s, nil)
	}
	return s
}

// A stage is one step of a pipeline's pass over a JSON document: either a
// normalizer's JSON part, or the text parts of consecutive normalizers,
// applied to each string value in turn in one walk.
type stage struct {
	json    func(root *jsonNode, st *State)
	texts   []textPart
	settles bool // every text part settles (see Normalizer.settles)
	// parts tells, per set of features (their low featureBits), which
	// text parts may change a string that has them (bit i: texts[i]): a
	// string meets only those, not a test of every part's needs. Set on
	// the stage's first string; nil for a stage of more than 16 parts.
	parts *partSet
	// red, when set, is the redactor of the pipeline's last redaction: a
	// string a part rewrote is scanned against its prefilter (rescan).
	red *redactor
}

// rescan returns the features of a string a text part rewrote, and
// whether the pipeline's last redaction (s.red) has nothing to do in it:
// the scan that finds its features then also hashes its triples against
// the redactor's prefilter, and where it finds none of them, no declared
// value and no format's keyword occurs in it (redactor.pre): the
// placeholders the normalizers write are most of such strings, and were
// each a search for every keyword and value in the last redaction. last is
// the run's last answer: a string equal to it is not scanned again (the
// answer is a function of the text alone).
func (s stage) rescan(str string, last *rescanned) (features, bool) {
	if str == last.s && last.ok {
		return last.f, last.clean // a part writes the same placeholder again and again
	}
	var f features
	var hit bool
	if s.red != nil && s.red.preFormatsSet() {
		f, hit = scanText(str, s.red.pre)
	} else {
		f, hit = featuresOf(str), true
	}
	clean := !hit
	*last = rescanned{str, f, clean, true}
	return f, clean
}

// rescanned is the last string a stage's run rescanned, and what it found.
type rescanned struct {
	s     string
	f     features
	clean bool
	ok    bool
}

// A partSet is stage.parts, made once.
type partSet struct {
	once sync.Once
	t    *[1 << featureBits]uint16
}

// partTable returns s.parts' table, made first if it is not; nil when the
// stage has more parts than its bits, or a part needs what no text's
// features say.
func (s stage) partTable() *[1 << featureBits]uint16 {
	if s.parts == nil {
		return nil
	}
	s.parts.once.Do(func() {
		if len(s.texts) > 16 {
			return
		}
		for _, t := range s.texts {
			if t.needs>>featureBits != 0 {
				return
			}
		}
		tab := new([1 << featureBits]uint16)
		for f := range tab {
			for i, t := range s.texts {
				if features(f)&t.needs == t.needs {
					tab[f] |= 1 << i
				}
			}
		}
		s.parts.t = tab
	})
	return s.parts.t
}

type textPart struct {
	fn    func(s string, st *State) string
	needs features
}

// plan groups steps into stages. Applying a group of text parts string by
// string gives what applying each to every string in turn gives, as long as
// no two of them number values of one kind (the numbers follow the order of
// first appearance): a normalizer whose kinds are unknown is alone in its
// group, and a group ends before a normalizer with a JSON part.
func plan(steps []Normalizer) []stage {
	var out []stage
	var kinds map[string]bool // kinds numbered by the open group; nil: none open
	closeGroup := func() { kinds = nil }
	for _, n := range steps {
		if n.json != nil {
			out = append(out, stage{json: n.json})
			closeGroup()
		}
		if n.Text == nil {
			continue
		}
		fits := kinds != nil && n.kindsKnown
		for _, k := range n.kinds {
			fits = fits && !kinds[k]
		}
		if !fits {
			out = append(out, stage{settles: true, parts: new(partSet)})
			kinds = map[string]bool{}
		}
		last := &out[len(out)-1]
		last.settles = last.settles && n.settles
		last.texts = append(last.texts, textPart{n.Text, n.needs})
		for _, k := range n.kinds {
			kinds[k] = true
		}
		if !n.kindsKnown {
			closeGroup()
		}
	}
	return out
}

// run applies the stage to a document.
func (s stage) run(root *jsonNode, st *State) {
	if s.json != nil {
		s.json(root, st)
	}
	if len(s.texts) == 0 {
		return
	}
	tab := s.partTable()
	if root.doc == nil {
		var last rescanned
		root.eachString(func(v *jsonNode) { s.string(v, st, tab, &last) })
		return
	}
	var last rescanned
	for _, chunk := range root.doc.nodes { // eachString, without a call a node
		for i := range chunk {
			v := &chunk[i]
			if v.kind != '"' || v.gone || s.settles && v.feat&fSettled != 0 {
				continue
			}
			if tab != nil && v.feat&fKnown != 0 && tab[v.feat&(1<<featureBits-1)] == 0 {
				continue // no part of the stage may change it (as string finds)
			}
			s.string(v, st, tab, &last)
		}
	}
}

// string applies the stage's text parts to a string value: those whose
// needs its features meet (tab, s.partTable(), where it is not nil),
// in order, the features found again after a part changes it.
func (s stage) string(v *jsonNode, st *State, tab *[1 << featureBits]uint16, last *rescanned) {
	if s.settles && v.feat&fSettled != 0 {
		return // unchanged by this stage last pass, and since
	}
	str, changed, clean := v.str, false, false
	if v.feat&fKnown == 0 {
		v.feat |= featuresOf(str) | fKnown
	}
	has := v.feat
	if tab != nil {
		for m := tab[has&(1<<featureBits-1)]; m != 0; {
			i := bits.TrailingZeros16(m)
			if out := s.texts[i].fn(str, st); out != str {
				str, changed = out, true
				has, clean = s.rescan(str, last)
				m = tab[has&(1<<featureBits-1)]
			}
			m &^= 1<<(i+1) - 1 // the parts after it
		}
	} else {
		for _, t := range s.texts {
			if has&t.needs != t.needs {
				continue // t.fn would return str as it is
			}
			if out := t.fn(str, st); out != str {
				str, changed = out, true
				has, clean = s.rescan(str, last)
			}
		}
	}
	if changed {
		// Marked rewritten even when the last part undid the first, as
		// normalizer-by-normalizer application did.
		v.str, v.dirty, v.feat = str, true, has|fKnown|fTouched // not fClean unless rescan found it clean
		if clean {
			v.feat |= fClean
		}
	}
}

// settle ends a pass: it reports whether a value was changed in it, and
// marks the values that were not as settled for the next.
func (n *jsonNode) settle() (changed bool) {
	for _, chunk := range n.doc.nodes {
		for i := range chunk {
			d := &chunk[i]
			if d.gone {
				continue
			}
			if d.feat&fTouched != 0 {
				changed = true
				d.feat &^= fTouched | fSettled
			} else {
				d.feat |= fSettled
			}
		}
	}
	return changed
}

// eachString calls fn on every string value, in document order.
func (n *jsonNode) eachString(fn func(*jsonNode)) {
	if n.doc != nil { // the root of a parsed document
		for _, chunk := range n.doc.nodes {
			for i := range chunk {
				if d := &chunk[i]; d.kind == '"' && !d.gone {
					fn(d)
				}
			}
		}
		return
	}
	switch n.kind {
	case '"':
		fn(n)
	case '{', '[':
		for _, k := range n.kids() {
			k.eachString(fn)
		}
	}
}

// isUnixKey is unixKeyRE.MatchString(k) without the expression for ASCII
// keys (all but a few): (?i) folds more than ASCII letters ('K' U+212A is k).
// The alternatives are told apart by their last letter.
func isUnixKey(k string) bool {
	if !isASCII(k) {
		return unixKeyRE().MatchString(k)
	}
	if k == "" {
		return false
	}
	is := strings.EqualFold
	// suffix: k ends with suf, and has no newline (`.` stops at one).
	suffix := func(suf string) bool {
		return len(k) >= len(suf) && is(k[len(k)-len(suf):], suf) && strings.IndexByte(k, '\n') < 0
	}
	switch k[len(k)-1] | 0x20 {
	case 't':
		return suffix("_at") || is(k, "iat") || is(k, "reset")
	case 'n':
		return suffix("_on")
	case 'e':
		return suffix("time") || is(k, "date") || is(k, "since") // auth_time ends with time
	case 'p':
		return suffix("timestamp") || is(k, "exp")
	case 's':
		return suffix("_ts") || is(k, "ts") || is(k, "expires")
	case 'f':
		return is(k, "nbf")
	case 'd':
		return is(k, "created") || is(k, "updated") || is(k, "modified") || is(k, "last_modified")
	case 'l':
		return is(k, "until")
	}
	return false
}

// eachNode calls fn on every value, parents before their children, in
// document order (walk without the path).
func (n *jsonNode) eachNode(fn func(*jsonNode)) {
	if n.doc != nil { // the root of a parsed document: its nodes are in that order
		for _, chunk := range n.doc.nodes {
			for i := range chunk {
				if d := &chunk[i]; !d.gone {
					fn(d)
				}
			}
		}
		return
	}
	fn(n)
	for _, k := range n.kids() {
		k.eachNode(fn)
	}
}

// writeDoc is write for the root of a parsed document: only a leaf (a
// string or number) is ever rewritten, and the leaves are in document order
// in its nodes, so the output is the source with each rewritten leaf in
// place of its span: one scan, no recursion.
func (n *jsonNode) writeDoc(dst, src []byte) []byte {
	pos := n.start
	for _, chunk := range n.doc.nodes {
		for i := range chunk {
			d := &chunk[i]
			if !d.dirty || d.gone {
				continue
			}
			dst = append(dst, src[pos:d.start]...)
			if d.kind == '"' {
				dst = appendJSONString(dst, d.str)
			} else {
				dst = append(dst, d.str...)
			}
			pos = d.end
		}
	}
	return append(dst, src[pos:n.end]...)
}
