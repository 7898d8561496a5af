package normalize

import (
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/cassette-dev/cassette/redact"
)

// This file holds what makes normalizing cheap where nothing is volatile
// (most of any body): matchers that find a rule's candidates with a byte
// search before any expression runs, a prefilter for credential redaction,
// and the grouping of text normalizers so that a JSON document is walked
// once per group rather than once per normalizer.

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
	re *regexp.Regexp // the pattern (FuzzMatchersAgreeWithRegexp holds them equal)
	// next returns the first candidate start ≥ from, or -1. Every match
	// of re starting at or after from starts at a candidate.
	next func(s string, from int) int
	// at returns the end of the match re prefers at c, or -1.
	at func(s string, c int) int
}

// lineAt tries re at a position, on the rest of the line after its first
// skip bytes: no match of re has a newline after them.
func lineAt(re *regexp.Regexp, skip int) func(string, int) int {
	anchored := regexp.MustCompile(`^(?:` + re.String() + `)`)
	return func(s string, c int) int {
		end := len(s)
		if from := c + skip; from < len(s) {
			if k := strings.IndexByte(s[from:], '\n'); k >= 0 {
				end = from + k
			}
		}
		if loc := anchored.FindStringIndex(s[c:end]); loc != nil {
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

type regexMatcher struct{ re *regexp.Regexp }

func (m regexMatcher) findAll(s string) [][]int { return m.re.FindAllStringIndex(s, -1) }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// sepCandidate returns the candidates of a pattern that starts with pre
// bytes satisfying ok followed by sep: each sep found at least pre bytes
// after from, with ok bytes before it.
func sepCandidate(sep byte, pre int, ok func(byte) bool) func(string, int) int {
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
				if !ok(s[j]) {
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
	var first [256]bool
	for _, p := range prefixes {
		if !first[p[0]] {
			first[p[0]] = true
			firsts = append(firsts, p[0])
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
	for k := range 36 {
		c := s[i+k]
		if k == 8 || k == 13 || k == 18 || k == 23 {
			if c != '-' {
				return -1
			}
		} else if !isHex(c) {
			return -1
		}
	}
	return i + 36
}

// redactor is redact.RedactString with a prefilter: a text in which no
// declared value occurs (one scan of its byte pairs) and no keyword of a
// key format (redact.MayHoldFormat) is returned as it is: Redact would
// change nothing in it.
type redactor struct {
	creds map[string]string
	rules *redact.Rules    // the credential names
	lits  []string         // declared values (long enough to be scrubbed) and format literals
	pairs *[1 << 10]uint64 // bit set of the first two bytes of each of lits (8 KiB: stays in cache)
	all   bool             // a format without literals: always redact

	// names remembers Rules.IsCredentialField for the first maxNames
	// keys seen: the records of a stream repeat theirs.
	names     sync.Map // string → bool
	nameCount atomic.Int64
	one       [256]bool // first bytes of one-byte literals
}

func newRedactor(creds map[string]string, rules *redact.Rules) *redactor {
	r := &redactor{creds: creds, rules: rules, pairs: new([1 << 10]uint64)}
	for _, v := range creds {
		if v != "" { // secrets skips short values: listing them only costs a call
			r.lits = append(r.lits, v)
		}
	}
	for _, l := range r.lits {
		switch len(l) {
		case 0:
			r.all = true
		case 1:
			r.one[l[0]] = true
		default:
			pair := uint16(l[0])<<8 | uint16(l[1])
			r.pairs[pair>>6] |= 1 << (pair & 63)
		}
	}
	return r
}

// mayChange reports whether a declared value or a format's keyword occurs in s.
func (r *redactor) mayChange(s string) bool {
	if r.all || redact.MayHoldFormat(s) {
		return true
	}
	for i := 0; i < len(s); i++ {
		if r.one[s[i]] {
			return true
		}
		if pair := uint16(s[i])<<8 | uint16(byteAt(s, i+1)); r.pairs[pair>>6]&(1<<(pair&63)) != 0 && i+1 < len(s) {
			for _, l := range r.lits {
				if strings.HasPrefix(s[i:], l) {
					return true
				}
			}
		}
	}
	return false
}

// strings redacts the string values of a document; a value found clean is
// not scanned again until it changes.
func (r *redactor) strings(root *jsonNode) {
	root.eachString(func(v *jsonNode) {
		if v.feat&fClean != 0 {
			return
		}
		if !r.mayChange(v.str) {
			v.feat |= fClean
			return
		}
		if s := redact.RedactString(v.str, r.creds); s != v.str {
			v.setString(s)
		}
	})
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

func (r *redactor) text(s string) string {
	if !r.mayChange(s) {
		return s
	}
	return redact.RedactString(s, r.creds)
}

// A stage is one step of a pipeline's pass over a JSON document: either a
// normalizer's JSON part, or the text parts of consecutive normalizers,
// applied to each string value in turn in one walk.
type stage struct {
	json    func(root *jsonNode, st *State)
	texts   []textPart
	settles bool // every text part settles (see Normalizer.settles)
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
			out = append(out, stage{settles: true})
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
	root.eachString(func(v *jsonNode) {
		if s.settles && v.feat&fSettled != 0 {
			return // unchanged by this stage last pass, and since
		}
		str, changed := v.str, false
		if v.feat&fKnown == 0 {
			v.feat |= featuresOf(str) | fKnown
		}
		has := v.feat
		for _, t := range s.texts {
			if has&t.needs != t.needs {
				continue // t.fn would return str as it is
			}
			if out := t.fn(str, st); out != str {
				str, changed = out, true
				has = featuresOf(str)
			}
		}
		if changed {
			// Marked rewritten even when the last part undid the first, as
			// normalizer-by-normalizer application did.
			v.str, v.dirty, v.feat = str, true, has|fKnown|fTouched // not fClean: not checked yet
		}
	})
}

// settle ends a pass: it reports whether a value was changed in it, and
// marks the values that were not as settled for the next.
func (n *jsonNode) settle() (changed bool) {
	for _, chunk := range *n.nodes {
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
	if n.nodes != nil { // the root of a parsed document
		for _, chunk := range *n.nodes {
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
		for _, k := range n.kids {
			k.eachString(fn)
		}
	}
}

// isUnixKey is unixKeyRE.MatchString(k) without the expression for ASCII
// keys (all but a few): (?i) folds more than ASCII letters ('K' U+212A is k).
// The alternatives are told apart by their last letter.
func isUnixKey(k string) bool {
	if !isASCII(k) {
		return unixKeyRE.MatchString(k)
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
	if n.nodes != nil { // the root of a parsed document: its nodes are in that order
		for _, chunk := range *n.nodes {
			for i := range chunk {
				if d := &chunk[i]; !d.gone {
					fn(d)
				}
			}
		}
		return
	}
	fn(n)
	for _, k := range n.kids {
		k.eachNode(fn)
	}
}

// features are what a text holds that some built-in needs before it can
// rewrite anything: one scan of a string tells which built-ins to skip.
type features uint16

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
	// Bits about a jsonNode rather than its text:
	fKnown   features = 1 << 15 // its features are computed
	fClean   features = 1 << 14 // redaction has nothing to do in it
	fSettled features = 1 << 13 // no normalizer changed it in the last pass
	fTouched features = 1 << 12 // changed in this pass
)

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

// runMasks are, per byte, all ones where it continues a run: of digits
// (digitRun), of lowercase hex digits (hexRun), and a comma (comma).
var digitRun, hexRun, comma = func() (d, h, c [256]int) {
	for i := range 256 {
		b := byte(i)
		if isDigit(b) {
			d[i] = -1
		}
		if isDigit(b) || b >= 'a' && b <= 'f' {
			h[i] = -1
		}
		if b == ',' {
			c[i] = -1
		}
	}
	return d, h, c
}()

// featuresOf scans s once for its features, without a branch per byte. A
// hex word needs a run of as many hex digits, which is what is measured
// (a feature may hold where its built-in then finds nothing: never the
// reverse).
func featuresOf(s string) features {
	var f features
	dRun, dMax, hRun, hMax, afterComma, commaSpace := 0, 0, 0, 0, 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		f |= byteClass[c]
		dRun = (dRun + 1) & digitRun[c]
		dMax = max(dMax, dRun)
		hRun = (hRun + 1) & hexRun[c]
		hMax = max(hMax, hRun)
		if c == ' ' {
			commaSpace |= afterComma
		}
		afterComma = comma[c]
	}
	if dMax >= 10 {
		f |= fDigits10
	}
	if hMax >= 7 {
		f |= fHex7
	}
	if hMax >= 40 {
		f |= fHex40
	}
	if commaSpace != 0 {
		f |= fCommaSpace
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

// writeDoc is write for the root of a parsed document: only a leaf (a
// string or number) is ever rewritten, and the leaves are in document order
// in its nodes, so the output is the source with each rewritten leaf in
// place of its span: one scan, no recursion.
func (n *jsonNode) writeDoc(dst, src []byte) []byte {
	pos := n.start
	for _, chunk := range *n.nodes {
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
