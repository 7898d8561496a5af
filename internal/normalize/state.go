package normalize

import (
	"encoding/binary"
	"hash/maphash"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// State is the identity state of one cassette: it numbers volatile values of
// each kind in order of first appearance, so that within a cassette the same
// value always gets the same placeholder. Use one State per cassette, shared
// by all its interactions, request and response, in interaction order.
// A State is not safe for concurrent use.
type State struct {
	kinds  map[string]*kindIDs // kind → its values' numbers
	shaPre map[string]string   // 7–12-digit prefix → the first full SHA with it
	// shaIndexed: the "sha" entries (see kindIDs) before it are in shaPre
	// (those of full SHAs); the ones after it are indexed when an
	// abbreviation is next looked up, not each as it comes.
	shaIndexed int
	shaShort   int // "sha" values of 12 bytes or fewer numbered
	// kept holds the bytes of the values numbered (see keep).
	kept []byte
}

// kindIDs are the numbers of one kind's values: a table of its own, not a
// map[string]int, so that what a page numbers (thousands of values of a
// kind) is one array of values and one pointer-free index, not map groups
// that hold a pointer each and are scanned, copied and rehashed as they
// grow (TestIDTableIsAMap holds it to a map).
type kindIDs struct {
	// index is open addressing with linear probing, its length a power of
	// two at most half full: 0 is an empty slot, i+1 is entries[i].
	index   []uint32
	entries []idEntry // in the order numbered
	count   int       // numbers given
}

// An idEntry is a value, the low bits of its hash, and its number.
type idEntry struct {
	v string
	h uint32
	n int32
}

var idSeed = maphash.MakeSeed()

// find returns the number of v, or the hash of v and the slot to add it
// in (see put) when it has none.
func (k *kindIDs) find(v string) (n int, ok bool, h uint32, slot int) {
	h = uint32(maphash.String(idSeed, v))
	if len(k.index) == 0 {
		return 0, false, h, -1
	}
	mask := len(k.index) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		e := k.index[i]
		if e == 0 {
			return 0, false, h, i
		}
		if en := &k.entries[e-1]; en.h == h && en.v == v {
			return int(en.n), true, h, i
		}
	}
}

// get returns the number of v.
func (k *kindIDs) get(v string) (int, bool) {
	n, ok, _, _ := k.find(v)
	return n, ok
}

// put gives v, which has no number, the number n, in the slot find
// returned for it (nothing was put in between).
func (k *kindIDs) put(v string, h uint32, slot, n int) {
	if 2*len(k.entries)+2 > len(k.index) { // grow: index every entry again
		k.index = make([]uint32, max(16, 2*len(k.index)))
		// The entries the index will hold before it grows again: one copy
		// of them a doubling, not append's many of a large slice.
		k.entries = slices.Grow(k.entries, len(k.index)/2-len(k.entries))
		k.entries = append(k.entries, idEntry{v: v, h: h, n: int32(n)})
		mask := len(k.index) - 1
		for j := range k.entries {
			i := int(k.entries[j].h) & mask
			for k.index[i] != 0 {
				i = (i + 1) & mask
			}
			k.index[i] = uint32(j + 1)
		}
		return
	}
	k.entries = append(k.entries, idEntry{v: v, h: h, n: int32(n)})
	k.index[slot] = uint32(len(k.entries))
}

// NewState returns an empty identity state.
func NewState() *State {
	return &State{kinds: map[string]*kindIDs{}} // shaPre is made by the first SHA
}

func (s *State) kind(kind string) *kindIDs {
	k := s.kinds[kind]
	if k == nil {
		k = &kindIDs{}
		s.kinds[kind] = k
	}
	return k
}

// Number returns the number of value among the values of kind, assigning
// the next one (from 1) to a value not seen before.
func (s *State) Number(kind, value string) int {
	k := s.kind(kind)
	n, ok, h, slot := k.find(value)
	if ok {
		return n
	}
	return s.add(kind, k, s.keep(value), h, slot)
}

// keep returns a copy of a value the State keeps: value may be a slice of
// a whole document, which the State would otherwise keep alive for the
// cassette, or of a body read in place, which its caller may reuse. The
// copies are slices of a few blocks of the State's, which grow with it
// (not an allocation a value: a page numbers thousands); nothing is ever
// written over a byte handed out.
func (s *State) keep(v string) string {
	const most = 64 << 10
	if v == "" || len(v) > most/4 {
		return strings.Clone(v)
	}
	if cap(s.kept)-len(s.kept) < len(v) {
		s.kept = make([]byte, 0, min(most, max(256, 2*cap(s.kept), len(v))))
	}
	at := len(s.kept)
	s.kept = append(s.kept, v...)
	return unsafe.String(&s.kept[at], len(v))
}

// Clone returns a State that numbers what s numbered so far as s does, and
// goes its own way from there: what one numbers next, the other never sees.
func (s *State) Clone() *State {
	c := &State{kinds: make(map[string]*kindIDs, len(s.kinds)), shaPre: maps.Clone(s.shaPre),
		shaIndexed: s.shaIndexed, shaShort: s.shaShort}
	// The values kept so far are shared (never written over); c keeps new
	// ones in blocks of its own.
	for kind, k := range s.kinds {
		c.kinds[kind] = &kindIDs{index: slices.Clone(k.index), entries: slices.Clone(k.entries), count: k.count}
	}
	return c
}

// add numbers a value of kind not seen before, of hash h, in the slot
// find returned for it; the State keeps value.
func (s *State) add(kind string, k *kindIDs, value string, h uint32, slot int) int {
	k.count++
	k.put(value, h, slot, k.count)
	if kind == "sha" && len(value) <= 12 {
		s.shaShort++
	}
	return k.count
}

// Placeholder returns "<kind:N>" for value.
func (s *State) Placeholder(kind, value string) string {
	return s.placeholder(kind, s.Number(kind, value), "")
}

// placeholder returns "<kind:n" + suffix + ">", kept with the values (see
// keep): a page writes thousands, each an allocation of its own before.
func (s *State) placeholder(kind string, n int, suffix string) string {
	var buf [64]byte
	b := append(buf[:0], '<')
	b = append(b, kind...)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, suffix...)
	b = append(b, '>')
	return s.keep(unsafe.String(&b[0], len(b)))
}

// sha numbers a SHA so that an abbreviation (7–12 digits) and the full
// value it abbreviates share a number, whichever comes first. Every full SHA
// is indexed by its 7–12-digit prefixes (once an abbreviation is looked
// up: most cassettes have none), so both lookups are O(1).
func (s *State) sha(v string) int {
	v = toLower(v)
	k := s.kind("sha")
	n, ok, h, slot := k.find(v)
	if ok {
		return n
	}
	v = s.keep(v)
	if s.shaPre == nil {
		s.shaPre = map[string]string{}
	}
	if len(v) <= 12 { // an abbreviation: a full SHA seen before?
		for _, e := range k.entries[s.shaIndexed:] {
			if len(e.v) > 12 {
				s.indexSHA(e.v)
			}
		}
		s.shaIndexed = len(k.entries)
		if full, ok := s.shaPre[v]; ok {
			n, _ := k.get(full)
			k.put(v, h, slot, n)
			s.shaShort++
			return n
		}
	} else if s.shaShort > 0 { // a full SHA: an abbreviation of it seen before?
		for l := 7; l <= 12 && l < len(v); l++ {
			if n, ok := k.get(v[:l]); ok {
				k.put(v, h, slot, n)
				return n
			}
		}
	}
	return s.add("sha", k, v, h, slot)
}

func (s *State) indexSHA(v string) {
	for k := 7; k <= 12 && k < len(v); k++ {
		if _, ok := s.shaPre[v[:k]]; !ok {
			s.shaPre[v[:k]] = v
		}
	}
}

// toLower is strings.ToLower, without its scan of each byte for a text
// that is lower-case ASCII already (most ids and digests): eight bytes at
// a time, a word in which a byte is 0x80 or more or, below that, b+0x3f
// has its high bit (b ≥ 'A') and b+0x25 has not (b ≤ 'Z') goes to
// strings.ToLower.
func toLower(v string) string {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	b := unsafe.Slice(unsafe.StringData(v), len(v))
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		if (w|(w+0x3f*ones)&^(w+0x25*ones))&highs != 0 {
			return strings.ToLower(v)
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf {
			return strings.ToLower(v)
		}
	}
	return v
}

var placeholderRE = lazyRE(`^<[A-Za-z0-9_.:-]+>$`)

// isPlaceholder reports whether s is already a placeholder, so that
// normalizing twice changes nothing.
func isPlaceholder(s string) bool {
	if len(s) <= 2 || s[0] != '<' || s[len(s)-1] != '>' {
		return false
	}
	for i := 1; i < len(s)-1; i++ { // placeholderRE without the expression
		if c := s[i]; !isWordByte(c) && c != '.' && c != ':' && c != '-' {
			return false
		}
	}
	return true
}

// placeholderSpanRE finds the placeholders this package writes.
var placeholderSpanRE = lazyRE(`<[A-Za-z0-9_.-]+:\d+(?::short)?>|<(?:ISO8601|RFC1123|ANSIC|unix|volatile|cwd)>|\[REDACTED\]`)

// endsWithPlaceholder reports whether s ends with a placeholder (or [REDACTED]).
func endsWithPlaceholder(s string) bool {
	if s == "" || (s[len(s)-1] != '>' && s[len(s)-1] != ']') {
		return false
	}
	tail := s[max(0, len(s)-64):] // placeholders are short: never scan further back
	k := strings.LastIndexAny(tail, "<[")
	if k < 0 {
		return false
	}
	k += len(s) - len(tail)
	loc := placeholderSpanRE().FindStringIndex(s[k:])
	return loc != nil && loc[0] == 0 && loc[1] == len(s)-k
}

// startsWithPlaceholder reports whether s starts with a placeholder (or [REDACTED]).
func startsWithPlaceholder(s string) bool {
	if s == "" || (s[0] != '<' && s[0] != '[') {
		return false
	}
	loc := placeholderSpanRE().FindStringIndex(s[:min(len(s), 64)])
	return loc != nil && loc[0] == 0
}

// outsidePlaceholders applies fn to the text between placeholders only, so
// that a project regex never rewrites a placeholder an earlier normalizer
// wrote (which would break N(N(x)) == N(x)).
func outsidePlaceholders(s string, fn func(string) string) string {
	if !strings.Contains(s, "<") {
		return fn(s)
	}
	locs := placeholderSpanRE().FindAllStringIndex(s, -1)
	if locs == nil {
		return fn(s)
	}
	var b strings.Builder
	last := 0
	for _, l := range locs {
		b.WriteString(fn(s[last:l[0]]))
		b.WriteString(s[l[0]:l[1]])
		last = l[1]
	}
	b.WriteString(fn(s[last:]))
	return b.String()
}

// Values returns, for each kind, the values numbered so far by number (the
// inverse of Number). A SHA abbreviation and its full value share a number;
// the longest is returned. verify uses it to map the ids a real service
// returned to the ids a fake returned in the same places.
func (s *State) Values() map[string]map[int]string {
	out := map[string]map[int]string{}
	for kind, k := range s.kinds {
		byNum := map[int]string{}
		for _, e := range k.entries {
			v, n := e.v, int(e.n)
			if cur, ok := byNum[n]; !ok || len(v) > len(cur) || len(v) == len(cur) && v < cur {
				byNum[n] = v
			}
		}
		out[kind] = byNum
	}
	return out
}
