package normalize

import (
	"strings"
	"unicode/utf8"
)

// features are what a text holds that some built-in needs before it can
// rewrite anything: one scan of a string tells which built-ins to skip.
type features uint32

const (
	fDash       features = 1 << iota // '-'
	fColon                           // ':'
	fSpace                           // ' '
	fBlank                           // ' ' or '\t'
	fSlash                           // '/'
	fDigit                           // an ASCII digit
	fCommaSpace                      // ", "
	fDigits10                        // 10 digits in a row
	fHex7                            // 7 or more lowercase hex digits in a row
	fHex40                           // 40 or more lowercase hex digits in a row
	fAssign                          // ':' or '='
	fColonDigit                      // ':' then a digit (in every clock and every port)
	fTrailBlank                      // ' ' or '\t' before '\n', '\r' or the end
	fHostColon                       // ':' after '1', 't', '0' or ']' (the ends of loopback hosts)
	// Bits about a jsonNode rather than its text:
	fKnown   features = 1 << 31 // its features are computed
	fClean   features = 1 << 30 // redaction has nothing to do in it
	fSettled features = 1 << 29 // no normalizer changed it in the last pass
	fTouched features = 1 << 28 // changed in this pass
)

// pairEQ and pairS are, past the features (bits 14 and 15), two pairs of
// bytes that byteBits tells as it tells ", ": e or q then y or ~, s then .
// or k, in any case. They are no feature of a text: scanText reports them
// as a hit (a two-byte keyword of a format may start there).
const (
	pairEQ features = 1 << 14
	pairS  features = 1 << 15
)

// featureBits are the bits of features that are a text's (fDash …
// fHostColon); the others are a node's.
const featureBits = 14

// byteClass is, per byte, the features it gives alone.
var byteClass = func() (t [256]features) {
	for c := range 256 {
		b := byte(c)
		var f features
		switch b {
		case '-':
			f = fDash
		case ':':
			f = fColon | fAssign
		case '=':
			f = fAssign
		case ' ':
			f = fSpace | fBlank
		case '\t':
			f = fBlank
		case '/':
			f = fSlash
		}
		if isDigit(b) {
			f |= fDigit
		}
		t[c] = f
	}
	return t
}()

// byteBits are, per byte, what featuresOf needs to know of it, in one
// word: bits 0–15 the features it gives alone (byteClass); bits 16–31
// those it gives as the first of two bytes in a row (',' of ", ", ':' of
// ":1", a blank before a line end) and bits 32–47 as the second, at the
// same places, so that (before>>16)&(byte>>32) is what the two give;
// bit 48 a digit, bit 49 a lowercase hex digit.
var byteBits = func() (t [256]uint64) {
	for c := range 256 {
		b := byte(c)
		var first, second features
		switch {
		case b == ',':
			first = fCommaSpace
		case b == ':':
			first = fColonDigit
		case b == ' ' || b == '\t':
			first = fTrailBlank
		case b == '1' || b == 't' || b == '0' || b == ']':
			first = fHostColon
		}
		switch {
		case b == ':':
			second = fHostColon
		case b == ' ':
			second = fCommaSpace
		case isDigit(b):
			second = fColonDigit
		case b == '\n' || b == '\r':
			second = fTrailBlank
		}
		// The two-byte keywords of the formats redaction knows (ey, q~,
		// s., sk), without case, in two more pairs (pairKeywords).
		switch b | 0x20 {
		case 'e', 'q':
			first |= pairEQ
		case 's':
			first |= pairS
		}
		switch {
		case b|0x20 == 'y' || b == '~':
			second |= pairEQ
		case b == '.' || b|0x20 == 'k':
			second |= pairS
		}
		e := uint64(byteClass[c]) | uint64(first)<<16 | uint64(second)<<32
		if isDigit(b) {
			e |= 1 << 48
		}
		if isDigit(b) || b >= 'a' && b <= 'f' {
			e |= 1 << 49
		}
		t[c] = e
	}
	return t
}()

// featuresOf scans s once for its features, without a branch per byte. A
// hex word needs a run of as many hex digits, which is what is measured
// (a feature may hold where its built-in then finds nothing: never the
// reverse).
func featuresOf(s string) features {
	// scanText without the hash of each three bytes: this is what a
	// string a normalizer rewrote is scanned with again.
	var f, prev uint64
	runs := uint64(runBias)
	for i := 0; i < len(s); i++ {
		t := &byteTab[s[i]]
		e := t[0]
		runs = runBias ^ ((runs+runInc)^runBias)&t[1]
		f |= e | prev&(e>>32) | runs
		prev = e >> 16
	}
	return textEnd(s, f)
}

var noTriples byteSet

// A byteSet is a set of three bytes in a row, by their tripleHash, a byte
// each (32 KiB): testing one is a load and an OR, without the variable
// shift of a bit set, which costs the scan of every string registers and
// a tenth of its instructions.
type byteSet [1 << 15]uint8

func (t *byteSet) add(a, b, c byte) { t[tripleHash(a, b, c)] = 1 }

// A tripleSet is a set of three bytes in a row, by their tripleHash: 4 KiB,
// small enough to stay in cache.
type tripleSet [1 << 15 / 64]uint64

// tripleHash is the hash of three bytes that scanText rolls: the low 5
// bits of the first, and the other two whole, in 15 bits.
func tripleHash(a, b, c byte) uint64 { return (uint64(a)<<10 ^ uint64(b)<<5 ^ uint64(c)) & (1<<15 - 1) }

func (t *tripleSet) add(a, b, c byte) {
	h := tripleHash(a, b, c)
	t[h>>6] |= 1 << (h & 63)
}

// The runs of digits and of hex digits are counted in the high bits of
// the word scanText ORs its features into: the digits' run in bits 17–26,
// the hex digits' in 27–42 and again in 43–63, each field set back to a
// bias where its run breaks, from which the run's threshold (10 digits, 7
// and 40 hex digits) sets the field's top bit (26, 42, 63: bits byteBits
// never sets, nor the pairs it gives), so that OR-ing the word at each
// byte keeps that bit (no max kept per run). A field that overflows (past
// 522 digits or 32,768 hex digits in a row) carries into the next, whose
// run (hex digits are a superset of digits, and the last field is the
// same run as the one below it) is past its threshold then too. The low
// 16 bits are the features and the pairs, which no field reaches.
const (
	runInc  = 1<<17 | 1<<27 | 1<<43
	runBias = (1<<9-10)<<17 | (1<<15-7)<<27 | (1<<20-40)<<43
)

// byteTab is, per byte, byteBits and the run fields it keeps (those of the
// runs it continues) with, in their low 8 bits, the byte in lower case (A–Z
// folded as redaction folds keywords): one table, one index.
var byteTab = func() (t [256][2]uint64) {
	for c := range 256 {
		t[c][0] = byteBits[c]
		t[c][1] = uint64(foldASCII(byte(c)))
		if !plainStringByte[c] {
			t[c][0] |= stopBit
		}
		if byteBits[c]>>48&1 != 0 {
			t[c][1] |= (1<<10 - 1) << 17
		}
		if byteBits[c]>>49&1 != 0 {
			t[c][1] |= 1<<64 - 1<<27
		}
	}
	return t
}()

// stopBit marks, in byteTab's first word, the bytes that end the plain
// run of a JSON string (plainStringByte): the quote, the backslash,
// control characters, bytes of 0x80 or more. Bit 50 is no feature, pair
// or run's top: scanText, which ORs it in, reads nothing of it.
const stopBit = 1 << 50

// scanPlain is scanText of the JSON string of doc whose first byte (after
// its opening quote) is at start, in the scan that finds its end: it
// returns the offset of the first byte from start that is not plain (the
// closing quote, if the string is plain: otherwise the caller parses it
// again, escapes and all) and scanText's results for doc[start:end].
func scanPlain(doc string, start int, set *byteSet) (end int, f features, hit bool) {
	var acc, prev, h, hits uint64
	runs := uint64(runBias)
	rest, i := doc[start:], 0
	tab := set[:] // (one nil check, not one a byte)
	for ; i < len(rest); i++ {
		t := &byteTab[rest[i]]
		e := t[0]
		if e&stopBit != 0 {
			break
		}
		k := t[1]
		h = (h<<5 ^ k&0xff) & (1<<15 - 1)
		hits |= uint64(tab[h])
		runs = runBias ^ ((runs+runInc)^runBias)&k
		acc |= e | prev&(e>>32) | runs
		prev = e >> 16
	}
	return start + i, textEnd(rest[:i], acc), hits&1 != 0 || acc&uint64(pairEQ|pairS) != 0
}

func foldASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// scanText returns the features of s and, in the same scan, whether three
// bytes in a row of s, in lower case (foldASCII), are in set, or one of
// the pairs pairEQ and pairS is in s: the redaction's literals and the
// formats' keywords start with them (redactor.pre): where it finds none,
// redaction has nothing to do.
func scanText(s string, set *byteSet) (features, bool) {
	var f, prev, h, hit uint64
	runs := uint64(runBias)
	tab := set[:] // (one nil check, not one a byte)
	for i := 0; i < len(s); i++ {
		t := &byteTab[s[i]]
		k := t[1]
		h = (h<<5 ^ k&0xff) & (1<<15 - 1) // tripleHash of s[i-2:i+1], folded (from i = 2)
		hit |= uint64(tab[h])
		e := t[0]
		runs = runBias ^ ((runs+runInc)^runBias)&k
		f |= e | prev&(e>>32) | runs
		prev = e >> 16
	}
	// (Go keeps fewer values in registers through the loop when nothing
	// but its results is used after it; in this order, it spills the
	// fewest: 16% fewer instructions than keeping the runs' maxima.)
	return textEnd(s, f), hit&1 != 0 || f&uint64(pairEQ|pairS) != 0
}

// textEnd adds to what scanText found the features it knows at the end.
func textEnd(s string, acc uint64) features {
	f := features(acc & (1<<featureBits - 1))
	if s != "" && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		f |= fTrailBlank
	}
	if acc&(1<<26) != 0 {
		f |= fDigits10
	}
	if acc&(1<<42) != 0 {
		f |= fHex7
	}
	if acc&(1<<63) != 0 {
		f |= fHex40
	}
	return f
}

// hasTrailingBlank reports whether a line of s (without its "\n" and one
// "\r") ends with a space or a tab: where trimTrailing changes nothing.
func hasTrailingBlank(s string) bool {
	end := func(line string) bool {
		line = strings.TrimSuffix(line, "\r")
		return line != "" && (line[len(line)-1] == ' ' || line[len(line)-1] == '\t')
	}
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return end(s)
		}
		if end(s[:i]) {
			return true
		}
		s = s[i+1:]
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
