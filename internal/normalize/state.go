package normalize

import (
	"encoding/binary"
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
	// Full SHAs not in shaPre yet, in order: they are indexed when an
	// abbreviation is first looked up, not each as it comes.
	shaPending []string
	shaShort   int // "sha" values of 12 bytes or fewer numbered
	// kept holds the bytes of the values numbered (see keep).
	kept []byte
}

// kindIDs are the numbers of one kind's values.
type kindIDs struct {
	ids   map[string]int // value → number
	count int            // numbers given
}

// NewState returns an empty identity state.
func NewState() *State {
	return &State{kinds: map[string]*kindIDs{}} // shaPre is made by the first SHA
}

func (s *State) kind(kind string) *kindIDs {
	k := s.kinds[kind]
	if k == nil {
		k = &kindIDs{ids: map[string]int{}}
		s.kinds[kind] = k
	}
	return k
}

// Number returns the number of value among the values of kind, assigning
// the next one (from 1) to a value not seen before.
func (s *State) Number(kind, value string) int {
	k := s.kind(kind)
	if n, ok := k.ids[value]; ok {
		return n
	}
	return s.add(kind, k, s.keep(value))
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
		shaPending: slices.Clone(s.shaPending), shaShort: s.shaShort}
	// The values kept so far are shared (never written over); c keeps new
	// ones in blocks of its own.
	for kind, k := range s.kinds {
		c.kinds[kind] = &kindIDs{ids: maps.Clone(k.ids), count: k.count}
	}
	return c
}

// add numbers a value of kind not seen before; the State keeps value.
func (s *State) add(kind string, k *kindIDs, value string) int {
	k.count++
	k.ids[value] = k.count
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
	m := k.ids
	if n, ok := m[v]; ok {
		return n
	}
	v = s.keep(v)
	if s.shaPre == nil {
		s.shaPre = map[string]string{}
	}
	if len(v) <= 12 { // an abbreviation: a full SHA seen before?
		for _, full := range s.shaPending {
			s.indexSHA(full)
		}
		s.shaPending = s.shaPending[:0]
		if full, ok := s.shaPre[v]; ok {
			m[v] = m[full]
			s.shaShort++
			return m[v]
		}
	} else if s.shaShort > 0 { // a full SHA: an abbreviation of it seen before?
		for l := 7; l <= 12 && l < len(v); l++ {
			if n, ok := m[v[:l]]; ok {
				m[v] = n
				s.shaPending = append(s.shaPending, v)
				return n
			}
		}
	}
	n := s.add("sha", k, v)
	if len(v) > 12 {
		s.shaPending = append(s.shaPending, v)
	}
	return n
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
		for v, n := range k.ids {
			if cur, ok := byNum[n]; !ok || len(v) > len(cur) || len(v) == len(cur) && v < cur {
				byNum[n] = v
			}
		}
		out[kind] = byNum
	}
	return out
}
