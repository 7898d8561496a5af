package normalize

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/cassette-dev/cassette/internal/redact"
)

// Builtins returns a registry holding every built-in normalizer:
//
//	timestamps.ISO8601    2026-11-22T14:00:00Z, with or without zone, fraction → <ISO8601>
//	timestamps.RFC1123    HTTP dates (Sat, 22 Nov 2026 14:00:00 GMT) → <RFC1123>
//	timestamps.ANSIC      git's default date (Sat Nov 22 14:00:00 2026 +0000) → <ANSIC>
//	timestamps.unix       10/13-digit epochs in time-like fields (created_at, ts, exp…);
//	                      JSON numbers keep their type (→ 1000000000 / 1000000000000),
//	                      strings and text become <unix>
//	sha:full              40 and 64 hex digits → <sha:N>, <sha256:N>
//	sha:short             7–12 hex digits with a digit and a letter → <sha:N:short>;
//	                      an abbreviation shares N with the full SHA it abbreviates
//	uuid                  RFC 4122 UUIDs, any case → <uuid:N>
//	headers.volatile      Date, Age, ETag, request ids, rate-limit counters, trace
//	                      and timing headers → <volatile> (the header stays present)
//	ports                 loopback ports (127.0.0.1:54321, localhost:8080, [::1]:9) → <port:N>
//	paths.tmp             the working directory → <cwd>; a directory under a temp root → <tmp:N>
//	json.canonical        JSON written in RFC 8785 form (sorted keys, no spacing)
//	whitespace.trailing   blanks at the end of each line removed
//	redact.credentials    declared credential values and known key formats → [REDACTED];
//	                      credential headers forced to [REDACTED]
//	header:<Name>         the named header's values → <volatile>
//	json.path:<JSONPath>  the selected JSON values → <name:N>, name being the last
//	                      member name of the path ($.items[*].id → <id:N>)
//
// Placeholders numbered N are identity-preserving: within one cassette (one
// State) the same value always gets the same number.
func Builtins() *Registry {
	r := NewRegistry()
	must := func(err error) {
		if err != nil {
			panic(err) // a duplicate here is a programming error caught by every test
		}
	}
	must(r.registerOwn("timestamps.ISO8601", textRule(isoMatcher, nil, fDash|fColonDigit, hasAll('-', ':'), func(string, *State) string { return "<ISO8601>" })))
	must(r.registerOwn("timestamps.RFC1123", textRule(rfc1123Matcher, nil, fCommaSpace|fColonDigit, hasAny(", "), func(string, *State) string { return "<RFC1123>" })))
	must(r.registerOwn("timestamps.ANSIC", textRule(ansicMatcher, nil, fSpace|fColonDigit, hasAll(':', ' '), func(string, *State) string { return "<ANSIC>" })))
	must(r.registerOwn("timestamps.unix", func(string, Options) (Normalizer, error) { return unixTimestamps(), nil }))
	must(r.registerOwn("sha:full", func(string, Options) (Normalizer, error) { return fullSHA(), nil }))
	must(r.registerOwn("sha:short", func(string, Options) (Normalizer, error) { return shortSHA(), nil }))
	must(r.registerOwn("uuid", textRule(uuidMatcher, []string{"uuid"}, fDash, hasAll('-'), func(m string, st *State) string {
		return st.Placeholder("uuid", toLower(m))
	})))
	must(r.registerOwn("headers.volatile", func(string, Options) (Normalizer, error) {
		return Normalizer{Headers: func(h http.Header, _ *State) {
			for k, vs := range h {
				if IsVolatileHeader(k) {
					for i := range vs {
						vs[i] = "<volatile>"
					}
				}
			}
		}}, nil
	}))
	must(r.registerOwn("header:<Name>", func(arg string, _ Options) (Normalizer, error) {
		if strings.ContainsAny(arg, " :\t") {
			return Normalizer{}, fmt.Errorf("%q is not a header name", arg)
		}
		want := http.CanonicalHeaderKey(arg)
		return Normalizer{Headers: func(h http.Header, _ *State) {
			for k, vs := range h {
				if canonicalHeaderKey(k) == want {
					for i := range vs {
						vs[i] = "<volatile>"
					}
				}
			}
		}}, nil
	}))
	must(r.registerOwn("json.path:<JSONPath>", func(arg string, _ Options) (Normalizer, error) {
		p, err := ParseJSONPath(arg)
		if err != nil {
			return Normalizer{}, err
		}
		kind := p.lastName()
		return Normalizer{json: func(root *jsonNode, st *State) {
			for _, v := range p.selectNodes(root) {
				s := v.str // a string, or the text of a number or literal
				if v.kind == '{' || v.kind == '[' {
					s = string(v.writeCanonical(nil))
				} else if v.kind == '"' && isPlaceholder(s) {
					continue
				}
				v.setString(st.Placeholder(kind, s))
			}
		}, jsonPaths: []*JSONPath{p}}, nil
	}))
	must(r.registerOwn("ports", textRule(regexMatcher{portRE}, []string{"port"}, fHostColon|fColonDigit, hasAny("127.0.0.1", "localhost", "0.0.0.0", "[::1]"), func(m string, st *State) string {
		i := strings.LastIndexByte(m, ':')
		return m[:i+1] + st.Placeholder("port", m[i+1:])
	})))
	must(r.registerOwn("paths.tmp", func(_ string, o Options) (Normalizer, error) { return tmpPaths(o), nil }))
	must(r.registerOwn("json.canonical", func(string, Options) (Normalizer, error) {
		return Normalizer{canonical: true}, nil
	}))
	must(r.registerOwn("whitespace.trailing", func(string, Options) (Normalizer, error) {
		return Normalizer{Text: func(s string, _ *State) string { return trimTrailing(s) }, kindsKnown: true, settles: true, needs: fTrailBlank}, nil
	}))
	must(r.registerOwn("redact.credentials", redactCredentials))
	return r
}

// The built-in patterns carry no \b: matchBounded checks the word
// boundaries itself, counting a placeholder as a word, so that rewriting a
// neighbour never makes a second pass match what the first did not. Each
// is compiled when first used (most are the reference their byte search
// is tested against, and never run): every command starts without them.
const (
	isoExpr     = `\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?`
	rfc1123Expr = `(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{1,2}[ -](?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[ -]\d{4} \d{2}:\d{2}:\d{2} (?:GMT|UTC|[+-]\d{4})`
	ansicExpr   = `(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) {1,2}\d{1,2} \d{2}:\d{2}:\d{2} \d{4}(?: [+-]\d{4})?`
	uuidExpr    = `[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`
	portExpr    = `(?:127\.0\.0\.1|localhost|0\.0\.0\.0|\[::1\]):\d{1,5}`
)

// BuiltinExpr is the regular expression (without \b) of what the built-in
// normalizer of that name rewrites, for the text-pattern built-ins
// (timestamps.ISO8601, timestamps.RFC1123, timestamps.ANSIC, uuid, ports);
// "" for the others. cassette learn classifies values by them, so that it
// proposes a built-in for exactly what the built-in rewrites.
func BuiltinExpr(name string) string {
	switch name {
	case "timestamps.ISO8601":
		return isoExpr
	case "timestamps.RFC1123":
		return rfc1123Expr
	case "timestamps.ANSIC":
		return ansicExpr
	case "uuid":
		return uuidExpr
	case "ports":
		return portExpr
	}
	return ""
}

var (
	isoRE     = lazyRE(isoExpr)
	rfc1123RE = lazyRE(rfc1123Expr)
	ansicRE   = lazyRE(ansicExpr)
	uuidRE    = lazyRE(uuidExpr)
	portRE    = lazyRE(portExpr)
	// unixKeyRE names the fields whose 10/13-digit numbers are epoch times.
	unixKeyRE  = lazyRE(`(?i)^(?:.*_at|.*_on|.*time|.*timestamp|.*_ts|ts|iat|exp|nbf|auth_time|date|created|updated|modified|expires|reset|since|until|last_modified)$`)
	unixTextRE = lazyRE(`(?i)[a-z_-]*(?:_at|time|timestamp|_ts|ts|iat|exp|nbf|reset|expires)["']?[ \t]*[:=][ \t]*["']?(?:\d{13}|\d{10})`)
	digitsRE   = lazyRE(`\d+$`)
)

// textRule builds a normalizer replacing every match of re in text. None of
// the built-in patterns spans a line, so the text is handled line by line and
// re only runs on lines for which the cheap trigger holds: Go's regexp has no
// fast path for patterns without a literal prefix, and most lines hold
// nothing to rewrite.
func textRule(mt matcher, kinds []string, needs features, trigger func(string) bool, repl func(m string, st *State) string) Factory {
	return func(string, Options) (Normalizer, error) {
		return Normalizer{Text: func(s string, st *State) string {
			if cm, ok := mt.(*candidateMatcher); ok {
				// Its search is already cheap, and no match spans a line:
				// the whole text at once finds what line by line does.
				if !trigger(s) {
					return s
				}
				if s != "" && cm.at(s, 0) == len(s) {
					// The text is one match (a JSON value that is a date, a
					// UUID): what replaceBounded would find first, and alone.
					return repl(s, st)
				}
				return replaceBounded(mt, s, func(m string) string { return repl(m, st) })
			}
			return byLine(s, trigger, func(line string) string {
				return replaceBounded(mt, line, func(m string) string { return repl(m, st) })
			})
		}, kinds: kinds, kindsKnown: true, settles: true, needs: needs}, nil
	}
}

// byLine applies fn to the lines of s for which trigger holds.
func byLine(s string, trigger func(string) bool, fn func(string) string) string {
	if !trigger(s) {
		return s
	}
	if len(s) < 512 || strings.IndexByte(s, '\n') < 0 {
		return fn(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for s != "" {
		line, rest, nl := strings.Cut(s, "\n")
		if trigger(line) {
			line = fn(line)
		}
		b.WriteString(line)
		if nl {
			b.WriteByte('\n')
		}
		s = rest
	}
	return b.String()
}

func hasAll(bs ...byte) func(string) bool {
	return func(s string) bool {
		for _, c := range bs {
			if strings.IndexByte(s, c) < 0 {
				return false
			}
		}
		return true
	}
}

var hasEpochDigits = hasDigitRun(10)

// epochTrigger holds on a text where unixTextRE can match: 10 digits in a
// row, and a ':' or '=' before them.
func epochTrigger(s string) bool {
	return strings.ContainsAny(s, ":=") && hasEpochDigits(s)
}

// hasDigitRun reports whether s holds n ASCII digits in a row (an epoch
// needs 10): most lines have none, and the expression never runs on them.
func hasDigitRun(n int) func(string) bool {
	return func(s string) bool {
		run := 0
		for i := 0; i < len(s); i++ {
			if s[i] >= '0' && s[i] <= '9' {
				if run++; run >= n {
					return true
				}
			} else {
				run = 0
			}
		}
		return false
	}
}

func hasAny(subs ...string) func(string) bool {
	return func(s string) bool {
		for _, sub := range subs {
			if strings.Contains(s, sub) {
				return true
			}
		}
		return false
	}
}

// hexWords replaces the words of s (maximal runs of [A-Za-z0-9_]) made of
// lowercase hex digits with repl's answer; a word touching a glue byte or a
// placeholder is left alone, as replaceBounded would.
func hexWords(s string, glue byte, repl func(w string) string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if wordClass[s[i]] == 0 {
			i++
			continue
		}
		j, all := i, byte(wordHex) // wordHex while every byte is one (wordOther&wordHex == 0)
		for j < len(s) {
			c := wordClass[s[j]]
			if c == 0 {
				break
			}
			all &= c
			j++
		}
		if all == wordHex && j-i >= 7 &&
			!(i > 0 && (s[i-1] == glue || endsWithPlaceholder(s[:i]))) &&
			!(j < len(s) && (s[j] == glue || startsWithPlaceholder(s[j:]))) {
			if r := repl(s[i:j]); r != s[i:j] {
				if i == 0 && j == len(s) {
					return r // the text is one word
				}
				b.Grow(len(s))
				b.WriteString(s[last:i])
				b.WriteString(r)
				last = j
			}
		}
		i = j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func shortSHA() Normalizer {
	return Normalizer{Text: func(s string, st *State) string {
		return hexWords(s, '-', func(w string) string {
			// 7–12 digits, not a UUID group, and not a word or a number: a digit and a letter.
			if len(w) > 12 || !strings.ContainsAny(w, "0123456789") || !strings.ContainsAny(w, "abcdef") {
				return w
			}
			return st.placeholder("sha", st.sha(w), ":short")
		})
	}, kinds: []string{"sha"}, kindsKnown: true, settles: true, needs: fHex7}
}

func fullSHA() Normalizer {
	return Normalizer{Text: func(s string, st *State) string {
		return hexWords(s, 0, func(w string) string {
			switch len(w) {
			case 64:
				return st.Placeholder("sha256", w)
			case 40:
				return st.placeholder("sha", st.sha(w), "")
			}
			return w
		})
	}, kinds: []string{"sha", "sha256"}, kindsKnown: true, settles: true, needs: fHex40}
}

// replaceBounded replaces the matches of re that stand alone: where a match
// begins (ends) with a word character, the character before (after) it must
// not be a word character, a placeholder or one of the extra glue bytes.
func replaceBounded(m matcher, s string, repl func(string) string, glue ...byte) string {
	var buf [4]loc
	locs := appendMatches(buf[:0], m, s)
	if len(locs) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, l := range locs {
		i, j := l[0], l[1]
		if (isWordByte(s[i]) && i > 0 && (isWordByte(s[i-1]) || bytesHas(glue, s[i-1]) || endsWithPlaceholder(s[:i]))) ||
			(isWordByte(s[j-1]) && j < len(s) && (isWordByte(s[j]) || bytesHas(glue, s[j]) || startsWithPlaceholder(s[j:]))) {
			continue
		}
		r := repl(s[i:j])
		if i == 0 && j == len(s) {
			return r // the text is one match
		}
		b.Grow(len(s))
		b.WriteString(s[last:i])
		b.WriteString(r)
		last = j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// wordClass tells, per byte, whether it is a word byte and whether a
// lowercase hex digit.
var wordClass = func() (t [256]byte) {
	for c := range 256 {
		switch b := byte(c); {
		case b >= '0' && b <= '9' || b >= 'a' && b <= 'f':
			t[c] = wordHex
		case isWordByte(b):
			t[c] = wordOther
		}
	}
	return t
}()

const (
	wordOther = 1
	wordHex   = 2
)

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func bytesHas(set []byte, c byte) bool {
	for _, x := range set {
		if x == c {
			return true
		}
	}
	return false
}

func unixTimestamps() Normalizer {
	return Normalizer{
		Text: func(s string, _ *State) string {
			return byLine(s, epochTrigger, func(line string) string {
				return replaceBounded(regexMatcher{unixTextRE}, line, func(m string) string { return digitsRE().ReplaceAllString(m, "<unix>") })
			})
		},
		jsonEpochs: true,
		json: func(root *jsonNode, _ *State) {
			if root.flat() != nil { // the leaves under time-like names are known
				for _, v := range root.doc.epochs {
					setEpoch(v)
				}
				return
			}
			root.eachNode(func(n *jsonNode) {
				if n.kind != '{' {
					return
				}
				for i, k := range n.keys() {
					if !isUnixKey(k) {
						continue
					}
					setEpoch(n.kids()[i])
				}
			})
		},
		kindsKnown: true, settles: true,
		needs: fDigits10 | fAssign,
	}
}

// setEpoch rewrites a value under a time-like name that is an epoch.
func setEpoch(v *jsonNode) {
	if d := epochDigits(v.str); d > 0 {
		switch v.kind {
		case '0':
			v.setNumber("1" + strings.Repeat("0", d-1))
		case '"':
			v.setString("<unix>")
		}
	}
}

// epochDigits returns 10 or 13 when s is an unsigned integer of that many digits.
func epochDigits(s string) int {
	if len(s) != 10 && len(s) != 13 {
		return 0
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0
		}
	}
	return len(s)
}

// volatileHeaders change on every response without meaning anything to a client.
var volatileHeaders = map[string]bool{
	"Date": true, "Age": true, "Etag": true, "Expires": true, "Last-Modified": true,
	"X-Request-Id": true, "X-Github-Request-Id": true, "Request-Id": true, "X-Amz-Request-Id": true,
	"X-Amz-Id-2": true, "X-Amzn-Requestid": true, "X-Amzn-Trace-Id": true, "X-Correlation-Id": true,
	"Cf-Ray": true, "X-Cloud-Trace-Context": true, "Traceparent": true, "Tracestate": true,
	"Server-Timing": true, "X-Runtime": true, "X-Response-Time": true, "X-Served-By": true,
	"X-Timer": true, "X-Cache": true, "X-Cache-Hits": true, "X-Fastly-Request-Id": true,
	"Retry-After": true, "Nel": true, "Report-To": true, "Alt-Svc": true, "Anthropic-Organization-Id": true,
	"Openai-Processing-Ms": true, "X-Envoy-Upstream-Service-Time": true, "Via": true,
}

// volatilePrefixes are header families whose every member is volatile.
var volatilePrefixes = []string{"X-Ratelimit-", "Ratelimit-", "X-Rate-Limit-", "Anthropic-Ratelimit-", "X-B3-", "X-Datadog-", "Uber-Trace-"}

// IsVolatileHeader reports whether headers.volatile rewrites the header.
func IsVolatileHeader(name string) bool {
	c := canonicalHeaderKey(name)
	if volatileHeaders[c] || c == "Ratelimit" {
		return true
	}
	for _, p := range volatilePrefixes {
		if strings.HasPrefix(c, p) {
			return true
		}
	}
	return false
}

// canonicalHeaderKey is http.CanonicalHeaderKey(k), answered without it
// for a name already in canonical form (letters, digits and '-', each
// letter upper case at the start and after a '-', lower case elsewhere):
// how recordings, fakes and net/http spell headers, and what it returns
// unchanged.
func canonicalHeaderKey(k string) string {
	upper := true
	for i := 0; i < len(k); i++ {
		switch c := k[i]; {
		case c >= 'A' && c <= 'Z' && upper, c >= 'a' && c <= 'z' && !upper, c >= '0' && c <= '9':
			upper = false
		case c == '-':
			upper = true
		default:
			return http.CanonicalHeaderKey(k)
		}
	}
	return k
}

func redactCredentials(_ string, o Options) (Normalizer, error) {
	creds := o.Credentials
	red := newRedactor(creds, o.Rules)
	return Normalizer{
		ByteSafe:   true,
		kindsKnown: true, settles: true,
		redactor:  red,
		jsonCreds: true,
		// secrets skips every key format none of whose literals occurs in
		// the text, so a clean text costs a few substring searches.
		Text: func(s string, _ *State) string { return red.text(s) },
		// String values under a credential-named key, as recording
		// redacts them (redact.RedactByName): the fake's side then
		// compares equal to the recorded [REDACTED].
		json: func(root *jsonNode, _ *State) {
			if root.doc != nil && root.doc.credKnown { // where the credential names are is known: no key is judged again
				for _, chunk := range root.doc.nodes { // eachString, without a call a node
					for i := range chunk {
						if v := &chunk[i]; v.kind == '"' && !v.gone && v.cred {
							v.setString(redact.Redacted)
						}
					}
				}
				return
			}
			redactByName(root, false, red, map[string]bool{})
			if root.doc != nil { // its nodes are what a later walk visits
				root.doc.credKnown = true
			}
		},
		// A credential-named header's value is [REDACTED] (as
		// redact.Rules.RedactHeaders has it); any other is scrubbed as text
		// is, through the redactor's prefilter: a clean value costs a scan,
		// not a pass of every token rule. h is the pipeline's own copy.
		Headers: func(h http.Header, _ *State) {
			for k, vs := range h {
				cred := o.Rules.IsCredentialHeader(k)
				for i, v := range vs {
					if cred && v != "" { // an empty value hides nothing: kept
						vs[i] = redact.Redacted
					} else {
						vs[i] = red.text(v)
					}
				}
			}
		},
	}, nil
}

// redactByName redacts the string values under a credential-named key,
// directly or as elements of an array there; cred says whether n is under
// one, and judged memoizes Rules.IsCredentialField (keys repeat) before
// the redactor's cache.
func redactByName(n *jsonNode, cred bool, red *redactor, judged map[string]bool) {
	n.cred = cred
	switch n.kind {
	case '"':
		if cred {
			n.setString(redact.Redacted)
		}
	case '[':
		for _, k := range n.kids() {
			redactByName(k, cred, red, judged)
		}
	case '{':
		keys := n.keys()
		for i, k := range n.kids() {
			c, ok := judged[keys[i]]
			if !ok {
				c = red.isCredentialName(keys[i])
				judged[keys[i]] = c
			}
			redactByName(k, c, red, judged)
		}
	}
}

// trimTrailing removes blanks before each line end and at the end.
func trimTrailing(s string) string {
	if !hasTrailingBlank(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for {
		i := strings.IndexByte(s, '\n')
		line, rest, nl := s, "", false
		if i >= 0 {
			line, rest, nl = s[:i], s[i+1:], true
		}
		cr := strings.HasSuffix(line, "\r")
		line = strings.TrimRight(strings.TrimSuffix(line, "\r"), " \t")
		b.WriteString(line)
		if cr {
			b.WriteByte('\r')
		}
		if !nl {
			return b.String()
		}
		b.WriteByte('\n')
		s = rest
	}
}
