package normalize

import (
	"regexp"
	"strings"
	"sync"
)

// The built-in patterns' matchers: each finds a rule's candidates with a
// byte search before any expression runs (FuzzMatchersAgreeWithRegexp
// holds each equal to its expression).

// A matcher finds the matches of one built-in pattern, exactly as
// regexp.FindAllStringIndex(s, -1) does.
type matcher interface {
	findAll(s string) [][]int
}

// loc is the span of a match.
type loc [2]int

// appendMatches appends the matches of m in s to dst, without an
// allocation per match where m is a candidateMatcher.
func appendMatches(dst []loc, m matcher, s string) []loc {
	if c, ok := m.(*candidateMatcher); ok {
		return c.appendAll(dst, s)
	}
	for _, l := range m.findAll(s) {
		dst = append(dst, loc{l[0], l[1]})
	}
	return dst
}

// candidateMatcher is a pattern whose every match starts at a candidate
// position a byte search finds: the pattern is only tried there. Go's
// regexp has no fast path for a pattern without a literal prefix, and tries
// every position of every string otherwise.
type candidateMatcher struct {
	re func() *regexp.Regexp // the pattern (FuzzMatchersAgreeWithRegexp holds them equal)
	// next returns the first candidate start ≥ from, or -1. Every match
	// of re starting at or after from starts at a candidate.
	next func(s string, from int) int
	// at returns the end of the match re prefers at c, or -1.
	at func(s string, c int) int
}

// lineAt tries re at a position, on the rest of the line after its first
// skip bytes: no match of re has a newline after them.
func lineAt(re func() *regexp.Regexp, skip int) func(string, int) int {
	anchored := sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:` + re().String() + `)`) })
	return func(s string, c int) int {
		end := len(s)
		if from := c + skip; from < len(s) {
			if k := strings.IndexByte(s[from:], '\n'); k >= 0 {
				end = from + k
			}
		}
		if loc := anchored().FindStringIndex(s[c:end]); loc != nil {
			return c + loc[1]
		}
		return -1
	}
}

func (m *candidateMatcher) findAll(s string) [][]int {
	var locs [][]int
	for _, l := range m.appendAll(nil, s) {
		locs = append(locs, []int{l[0], l[1]})
	}
	return locs
}

func (m *candidateMatcher) appendAll(dst []loc, s string) []loc {
	for from := 0; from < len(s); {
		c := m.next(s, from)
		if c < 0 {
			break
		}
		if end := m.at(s, c); end >= 0 {
			dst = append(dst, loc{c, end})
			from = end
			continue
		}
		from = c + 1
	}
	return dst
}

type regexMatcher struct{ re func() *regexp.Regexp }

func (m regexMatcher) findAll(s string) [][]int { return m.re().FindAllStringIndex(s, -1) }

// lazyRE returns expr compiled when first asked for: a package-level
// expression compiled at start-up costs every command, also those that
// normalize nothing (cassette version, a shim).
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// sepCandidate returns the candidates of a pattern that starts with pre
// bytes satisfying ok followed by sep: each sep found at least pre bytes
// after from, with ok bytes before it.
func sepCandidate(sep byte, pre int, isOK func(byte) bool) func(string, int) int {
	var ok [256]bool // isOK, without a call a byte
	for c := range ok {
		ok[c] = isOK(byte(c))
	}
	return func(s string, from int) int {
		for i := from + pre; i < len(s); {
			k := strings.IndexByte(s[i:], sep)
			if k < 0 {
				return -1
			}
			i += k
			c := i - pre
			good := true
			for j := c; j < i; j++ {
				if !ok[s[j]] {
					good = false
					break
				}
			}
			if good {
				return c
			}
			i++
		}
		return -1
	}
}

// dayCandidate returns the positions of a day name (Mon … Sun) followed by
// sep: where RFC 1123 and ANSIC dates start.
func dayCandidate(sep string) func(string, int) int {
	return func(s string, from int) int {
		for i := from + 3; i < len(s); {
			k := strings.Index(s[i:], sep)
			if k < 0 {
				return -1
			}
			i += k
			switch s[i-3 : i] {
			case "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun":
				return i - 3
			}
			i++
		}
		return -1
	}
}

// prefixCandidate returns the positions where one of prefixes starts: one
// scan over their first bytes (a '/' but for Windows roots), however many
// prefixes.
func prefixCandidate(prefixes []string) func(string, int) int {
	var firsts []byte
	var first, second [256]bool // second: the bytes after a first byte
	for _, p := range prefixes {
		if !first[p[0]] {
			first[p[0]] = true
			firsts = append(firsts, p[0])
		}
		if len(p) == 1 { // any byte may follow
			for c := range second {
				second[c] = true
			}
		} else {
			second[p[1]] = true
		}
	}
	index := func(s string) int {
		for i := 0; i < len(s); i++ {
			if first[s[i]] {
				return i
			}
		}
		return -1
	}
	if len(firsts) == 1 {
		index = func(s string) int { return strings.IndexByte(s, firsts[0]) }
	}
	return func(s string, from int) int {
		for i := from; i < len(s); {
			k := index(s[i:])
			if k < 0 {
				return -1
			}
			i += k
			// Most first bytes ('/' of every URL) are followed by a byte
			// no prefix has second: one test, not a compare of each.
			if i+1 < len(s) && !second[s[i+1]] {
				i++
				continue
			}
			for _, p := range prefixes {
				if strings.HasPrefix(s[i:], p) {
					return i
				}
			}
			i++
		}
		return -1
	}
}

// macTempCandidate returns where macTempRE can match: at "/var/folders/",
// or at the "/private" before it.
func macTempCandidate(s string, from int) int {
	k := strings.Index(s[from:], "/var/folders/")
	if k < 0 {
		return -1
	}
	i := from + k
	if i-len("/private") >= from && s[i-len("/private"):i] == "/private" {
		return i - len("/private")
	}
	return i
}

var macTempMatcher = &candidateMatcher{macTempRE, macTempCandidate, lineAt(macTempRE, 0)}

// replaceAll is regexp's ReplaceAllStringFunc for a candidateMatcher.
func replaceAll(m *candidateMatcher, s string, repl func(string) string) string {
	var buf [4]loc
	locs := m.appendAll(buf[:0], s)
	if len(locs) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, l := range locs {
		b.WriteString(s[last:l[0]])
		b.WriteString(repl(s[l[0]:l[1]]))
		last = l[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// The built-in patterns' matchers.
var (
	isoMatcher     = &candidateMatcher{isoRE, sepCandidate('-', 4, isDigit), isoAt}
	uuidMatcher    = &candidateMatcher{uuidRE, sepCandidate('-', 8, isHex), uuidAt}
	rfc1123Matcher = &candidateMatcher{rfc1123RE, dayCandidate(", "), rfc1123At}
	ansicMatcher   = &candidateMatcher{ansicRE, dayCandidate(" "), ansicAt}
)

func isDay(s string) bool {
	switch s {
	case "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun":
		return true
	}
	return false
}

func isMonth(s string) bool {
	switch s {
	case "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec":
		return true
	}
	return false
}

func sub(s string, i, n int) string {
	if i+n > len(s) {
		return ""
	}
	return s[i : i+n]
}

// clockAt reports whether s holds dd:dd:dd at i.
func clockAt(s string, i int) bool {
	return digitsAt(s, i, 2) && byteAt(s, i+2) == ':' && digitsAt(s, i+3, 2) && byteAt(s, i+5) == ':' && digitsAt(s, i+6, 2)
}

// digits12 returns the end of one or two digits at i (as many as there
// are), or -1.
func digits12(s string, i int) int {
	if !isDigit(byteAt(s, i)) {
		return -1
	}
	if isDigit(byteAt(s, i+1)) {
		return i + 2
	}
	return i + 1
}

// rfc1123At is rfc1123RE tried at i: (?:Mon|…), \d{1,2}[ -](?:Jan|…)[ -]\d{4} \d{2}:\d{2}:\d{2} (?:GMT|UTC|[+-]\d{4}).
// Where two digits are there, one digit never leads to a match (a digit
// is not [ -]), so taking as many as there are gives the match.
func rfc1123At(s string, i int) int {
	if !isDay(sub(s, i, 3)) || sub(s, i+3, 2) != ", " {
		return -1
	}
	j := digits12(s, i+5)
	if j < 0 || (byteAt(s, j) != ' ' && byteAt(s, j) != '-') || !isMonth(sub(s, j+1, 3)) ||
		(byteAt(s, j+4) != ' ' && byteAt(s, j+4) != '-') || !digitsAt(s, j+5, 4) || byteAt(s, j+9) != ' ' ||
		!clockAt(s, j+10) || byteAt(s, j+18) != ' ' {
		return -1
	}
	j += 19
	switch z := sub(s, j, 3); {
	case z == "GMT" || z == "UTC":
		return j + 3
	case (byteAt(s, j) == '+' || byteAt(s, j) == '-') && digitsAt(s, j+1, 4):
		return j + 5
	}
	return -1
}

// ansicAt is ansicRE tried at i: (?:Mon|…) (?:Jan|…) {1,2}\d{1,2} \d{2}:\d{2}:\d{2} \d{4}(?: [+-]\d{4})?.
// As in rfc1123At, taking as many spaces and digits as there are is the
// only way to a match.
func ansicAt(s string, i int) int {
	if !isDay(sub(s, i, 3)) || byteAt(s, i+3) != ' ' || !isMonth(sub(s, i+4, 3)) || byteAt(s, i+7) != ' ' {
		return -1
	}
	j := i + 8
	if byteAt(s, j) == ' ' {
		j++
	}
	if j = digits12(s, j); j < 0 || byteAt(s, j) != ' ' || !clockAt(s, j+1) || byteAt(s, j+9) != ' ' || !digitsAt(s, j+10, 4) {
		return -1
	}
	j += 14
	if byteAt(s, j) == ' ' && (byteAt(s, j+1) == '+' || byteAt(s, j+1) == '-') && digitsAt(s, j+2, 4) {
		j += 6
	}
	return j
}

// digitsAt reports whether s holds n digits at i.
func digitsAt(s string, i, n int) bool {
	if i+n > len(s) {
		return false
	}
	for _, c := range []byte(s[i : i+n]) {
		if !isDigit(c) {
			return false
		}
	}
	return true
}

func byteAt(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// isoAt is isoRE tried at i:
// \d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?
// Each optional part is taken when it matches (the expression prefers it)
// and what follows it is optional too, so nothing is ever given back.
func isoAt(s string, i int) int {
	if !digitsAt(s, i, 4) || byteAt(s, i+4) != '-' || !digitsAt(s, i+5, 2) || byteAt(s, i+7) != '-' ||
		!digitsAt(s, i+8, 2) || (byteAt(s, i+10) != 'T' && byteAt(s, i+10) != ' ') ||
		!digitsAt(s, i+11, 2) || byteAt(s, i+13) != ':' || !digitsAt(s, i+14, 2) {
		return -1
	}
	j := i + 16
	if byteAt(s, j) == ':' && digitsAt(s, j+1, 2) {
		j += 3
		if c := byteAt(s, j); (c == '.' || c == ',') && digitsAt(s, j+1, 1) {
			j += 2
			for k := 1; k < 9 && isDigit(byteAt(s, j)); k++ {
				j++
			}
		}
	}
	switch c := byteAt(s, j); {
	case c == 'Z':
		j++
	case (c == '+' || c == '-') && digitsAt(s, j+1, 2):
		j += 3
		if byteAt(s, j) == ':' && digitsAt(s, j+1, 2) {
			j += 3
		} else if digitsAt(s, j, 2) {
			j += 2
		}
	}
	return j
}

// uuidAt is uuidRE tried at i.
func uuidAt(s string, i int) int {
	if i+36 > len(s) {
		return -1
	}
	u := s[i : i+36]
	if u[8] != '-' || u[13] != '-' || u[18] != '-' || u[23] != '-' {
		return -1
	}
	// With those four dashes, the classes of the 36 bytes add up to 4
	// only where every other byte is a hex digit: no branch a byte.
	sum := 0
	for k := range len(u) {
		sum += int(uuidClass[u[k]])
	}
	if sum != 4 {
		return -1
	}
	return i + 36
}

// uuidClass is, per byte, 0 for a hex digit (isHex), 1 for '-', 37 (more
// than the dashes of any 36 bytes) for any other.
var uuidClass = func() (t [256]byte) {
	for c := range t {
		switch {
		case isHex(byte(c)):
		case c == '-':
			t[c] = 1
		default:
			t[c] = 37
		}
	}
	return t
}()
