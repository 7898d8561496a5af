package redact

import "unsafe"

// keywordIndex finds, in one pass over a text, where the keywords of the
// patterns occur, compared without case (gitleaks' prefilter: a rule is
// run only where one of its keywords is). The pass hashes each three
// adjacent bytes into a bit set of the keywords' first three bytes (in
// every case; a two-byte keyword with any third), and compares keywords
// only where the bit is set: a text holding no keyword costs a multiply
// and a bit test per byte. (Pairs of bytes were a third slower: one
// position in six of real bodies starts a keyword's first pair, "co",
// "te", "in".)
type keywordIndex struct {
	fold  [256]byte
	bits  [1 << 10]uint64 // bit set of triHash of the first three bytes of each keyword, in each case
	heads [1 << 16]uint16 // pair → 1 + index in lists of the keywords that start with it
	lists [][]int32       // keyword ids starting with one pair
	kws   []keyword
}

// keyword is one lower-case keyword and the patterns that list it.
type keyword struct {
	text     string
	patterns []int32
}

// occurrence is a keyword found at pos.
type occurrence struct {
	pos int
	kw  int32
}

func newKeywordIndex(patterns []Pattern) *keywordIndex {
	ix := &keywordIndex{}
	for i := range ix.fold {
		ix.fold[i] = byte(i)
		if i >= 'A' && i <= 'Z' {
			ix.fold[i] = byte(i) + 'a' - 'A'
		}
	}
	ids := map[string]int32{}
	for pi, p := range patterns {
		for _, k := range p.Keywords {
			id, ok := ids[k]
			if !ok {
				id = int32(len(ix.kws))
				ids[k] = id
				ix.kws = append(ix.kws, keyword{text: k})
			}
			ix.kws[id].patterns = append(ix.kws[id].patterns, int32(pi))
		}
	}
	for id, k := range ix.kws {
		a, b := k.text[0], k.text[1]
		thirds := []byte(nil)
		if len(k.text) > 2 {
			thirds = cases(k.text[2])
		} else {
			for c := range 256 {
				thirds = append(thirds, byte(c))
			}
		}
		for _, x := range cases(a) {
			for _, y := range cases(b) {
				for _, z := range thirds {
					h := triHash(uint32(x)<<16 | uint32(y)<<8 | uint32(z))
					ix.bits[h>>6] |= 1 << (h & 63)
				}
				pair := uint16(x)<<8 | uint16(y)
				if ix.heads[pair] == 0 {
					ix.lists = append(ix.lists, nil)
					ix.heads[pair] = uint16(len(ix.lists))
				}
				h := ix.heads[pair] - 1
				ix.lists[h] = append(ix.lists[h], int32(id))
			}
		}
	}
	return ix
}

// triHash hashes three bytes (the low 24 bits of v) to 16 bits.
func triHash(v uint32) uint16 { return uint16((v * 2654435761) >> 16) }

// cases returns a lower-case byte and, for a letter, its upper case.
func cases(c byte) []byte {
	if c >= 'a' && c <= 'z' {
		return []byte{c, c - 'a' + 'A'}
	}
	return []byte{c}
}

// find returns every occurrence of a keyword in data, in order of position.
func (ix *keywordIndex) find(data []byte) []occurrence {
	var out []occurrence
	scanKeywords(ix, data, func(o occurrence) bool {
		out = append(out, o)
		return true
	})
	return out
}

// scanKeywords calls found with each keyword occurrence in data, in order,
// until it returns false.
func scanKeywords[T ~string | ~[]byte](ix *keywordIndex, data T, found func(occurrence) bool) {
	if len(data) < 2 {
		return
	}
	v := uint32(data[0])<<8 | uint32(data[1])
	for i := 2; i < len(data); i++ {
		v = (v<<8 | uint32(data[i])) & 0xffffff
		if h := triHash(v); ix.bits[h>>6]&(1<<(h&63)) != 0 && !keywordsAt(ix, data, v, i-2, found) {
			return
		}
	}
	v = (v << 8) & 0xffffff // a two-byte keyword at the very end
	if h := triHash(v); ix.bits[h>>6]&(1<<(h&63)) != 0 {
		keywordsAt(ix, data, v, len(data)-2, found)
	}
}

// keywordsAt calls found with each keyword at start, where the three bytes
// v begin (a bit of their hash is set), until it returns false; it reports
// whether found never did.
func keywordsAt[T ~string | ~[]byte](ix *keywordIndex, data T, v uint32, start int, found func(occurrence) bool) bool {
	head := ix.heads[uint16(v>>8)]
	if head == 0 {
		return true // a hash collision
	}
	for _, id := range ix.lists[head-1] {
		if hasAt(ix, data, start, ix.kws[id].text) && !found(occurrence{start, id}) {
			return false
		}
	}
	return true
}

// MayHoldFormat reports whether s holds a keyword of a known format where
// a match may start: when it does not, Redact and Scan find no format in
// it (a caller that redacts many small strings, the normalizers, skips
// those). A keyword whose every pattern is anchored on it is judged by
// those patterns' cheap tests where it occurs, as the search itself
// judges it (searchAnchored): the "://" of a URL with no user in it, the
// "s." inside a word ("details.") start nothing.
func MayHoldFormat(s string) bool {
	rs := rules()
	if len(rs.always) > 0 {
		return true
	}
	// The tests read s as bytes, in place: they keep nothing.
	data := unsafe.Slice(unsafe.StringData(s), len(s))
	any := false
	scanKeywords(rs.index, s, func(o occurrence) bool {
		any = rs.mayStart(data, o)
		return !any
	})
	return any
}

// HoldsKeyword reports whether some keyword of a known format occurs in
// s (compared without ASCII case), or some format has no keyword. When it
// is false, Bytes and Scan find no format in s, nor in a text made of
// such pieces and of bytes that no keyword holds (FormatKeywords): a
// caller that writes many texts of one template (check's answers) tests
// only the pieces it fills in. It is stricter than MayHoldFormat, whose
// tests read the bytes around a keyword.
func HoldsKeyword(s string) bool {
	rs := rules()
	if len(rs.always) > 0 {
		return true
	}
	any := false
	scanKeywords(rs.index, s, func(occurrence) bool {
		any = true
		return false
	})
	return any
}

// FormatKeywords returns the keywords of the known formats (lower case, 2
// bytes or more; MayHoldFormat finds them without ASCII case), and false
// when some format has none (MayHoldFormat is then true of every text):
// a caller scanning its texts for something else can tell in the same
// scan, by their first bytes, that MayHoldFormat is false of most.
func FormatKeywords() ([]string, bool) {
	rs := rules()
	out := make([]string, len(rs.index.kws))
	for i, k := range rs.index.kws {
		out[i] = k.text
	}
	return out, len(rs.always) == 0
}

// mayStart reports whether some pattern of a keyword found at o may match
// there: one not anchored on its keywords may match anywhere around it;
// an anchored one only where its \b and its near test hold (the
// patterns are analyzed here if they were not yet).
func (rs *ruleSet) mayStart(data []byte, o occurrence) bool {
	for _, pi := range rs.index.kws[o.kw].patterns {
		p := &rs.patterns[pi]
		pr := p.prep.get()
		if !pr.shape.anchored {
			return true
		}
		if (pr.shape.wordStart && !boundary(data, o.pos)) || (p.near != nil && !p.near(data, o.pos)) {
			continue
		}
		return true
	}
	return false
}

// hasAt reports whether data holds the lower-case keyword k at pos,
// compared without case (its first two bytes are known to match).
func hasAt[T ~string | ~[]byte](ix *keywordIndex, data T, pos int, k string) bool {
	if pos+len(k) > len(data) {
		return false
	}
	for j := 2; j < len(k); j++ {
		if ix.fold[data[pos+j]] != k[j] {
			return false
		}
	}
	return true
}
