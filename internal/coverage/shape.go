package coverage

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/cassette-dev/cassette/internal/redact"
)

// Shape is a call shape: one line of text naming what a call is without its
// values (see the package documentation for the rules).
type Shape string

// Placeholder stands for a value in a shape.
const Placeholder = "{}"

// MaxBody is the largest request body whose JSON key paths or form names
// are part of a shape; a larger body is `<body>` whatever it holds, on the
// observed side and the cassette side alike.
const MaxBody = 1 << 20

// maxKeyDepth bounds how deep key paths go into a JSON body.
const maxKeyDepth = 16

var (
	numberRe = regexp.MustCompile(`^[+-]?[0-9]+(?:\.[0-9]+)?$`)
	uuidRe   = regexp.MustCompile(`^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$`)
	hexRe    = regexp.MustCompile(`^[0-9a-fA-F]{7,128}$`)
	dateRe   = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T _][0-9:.]+(?:Z|[+-][0-9:]+)?)?$`)
	wordRe   = regexp.MustCompile(`^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*$`)
	nameRe   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.:-]*$`)
	methodRe = regexp.MustCompile(`^[A-Za-z]{1,16}$`)
)

// IsValue reports whether a word of a call (a path segment, a query
// parameter's name, a JSON key, a flag's name) is a value by its form: a
// number, a UUID, a hex SHA (7 to 128 hex digits with a digit among them, or
// exactly 40 or 64), a date, anything with an @, a credential of a known
// format, or a long mix of letters and digits (20 characters or more, 3
// digits and 3 letters at least: generated ids and tokens).
func IsValue(s string) bool {
	switch {
	case s == "":
		return false
	case numberRe.MatchString(s), uuidRe.MatchString(s), dateRe.MatchString(s), strings.Contains(s, "@"):
		return true
	case hexRe.MatchString(s) && (strings.ContainsAny(s, "0123456789") || len(s) == 40 || len(s) == 64):
		return true
	case tokenLike(s):
		return true
	}
	return len(redact.Scan([]byte(s), nil)) > 0
}

// tokenLike: 20 characters or more with at least 3 digits and 3 letters.
func tokenLike(s string) bool {
	if len(s) < 20 {
		return false
	}
	digits, letters := 0, 0
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case unicode.IsLetter(r):
			letters++
		}
	}
	return digits >= 3 && letters >= 3
}

// word is a name as code writes it (a subcommand, a JSON key, a flag, a
// path word) rather than data: what it keeps is shown as it is, anything
// else becomes {}.
func word(s string) string {
	if IsValue(s) || !nameRe.MatchString(s) || len(s) > 64 {
		return Placeholder
	}
	return s
}

// HTTPShape is the shape of one HTTP call: method, the URL (path and query;
// a scheme and host are ignored), the body's Content-Type and the body.
// bodyBytes is the body's size when body is not given (it was too large or
// binary to keep); 0 means len(body).
func (r *Rules) HTTPShape(method, rawURL, contentType string, body []byte, bodyBytes int) Shape {
	return Shape(r.appendHTTPShape(nil, method, rawURL, contentType, body, bodyBytes))
}

// appendHTTPShape appends HTTPShape's text to b.
func (r *Rules) appendHTTPShape(b []byte, method, rawURL, contentType string, body []byte, bodyBytes int) []byte {
	if isMethod(method) {
		for i := 0; i < len(method); i++ {
			c := method[i]
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			b = append(b, c)
		}
	} else {
		b = append(b, Placeholder...)
	}
	b = append(b, ' ')
	escaped, query, plain := plainURL(rawURL)
	if !plain {
		u, err := url.Parse(rawURL)
		if err != nil {
			u = &url.URL{Path: rawURL}
			if p, q, ok := strings.Cut(rawURL, "?"); ok {
				u.Path, u.RawQuery = p, q
			}
		}
		escaped, query = u.EscapedPath(), u.RawQuery
	}
	b = append(b, r.pathTemplate(escaped)...)
	var words []string
	if r.memo != nil {
		words = r.memo.scratch
	}
	words = r.queryWords(words, query)
	for i, w := range words {
		if i == 0 {
			b = append(b, '?')
		} else {
			b = append(b, '&')
		}
		b = append(b, w...)
	}
	if r.memo != nil {
		r.memo.scratch = words[:0]
	}
	if bodyBytes == 0 {
		bodyBytes = len(body)
	}
	if s := bodyShape(contentType, body, bodyBytes); s != "" {
		b = append(b, ' ')
		b = append(b, s...)
	}
	return b
}

// isMethod: 1 to 16 ASCII letters (methodRe, without the regexp: it was a
// fifth of an observed call's shape).
func isMethod(s string) bool {
	if len(s) == 0 || len(s) > 16 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// plainURL splits a URL that is a path of letters, digits, -._~ and /
// (no escape, no host, no fragment) and its query, as url.Parse and
// EscapedPath would give them, without parsing (plain is false for any
// other URL).
func plainURL(raw string) (path, query string, plain bool) {
	if raw == "" || raw[0] != '/' || strings.HasPrefix(raw, "//") || strings.Contains(raw, "#") {
		return "", "", false
	}
	path, query, _ = strings.Cut(raw, "?")
	for i := 0; i < len(path); i++ {
		switch c := path[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '.', c == '_', c == '~', c == '/':
		default:
			return "", "", false
		}
	}
	return path, query, true
}

// pathTemplate replaces the value segments of an escaped path by {}.
func (r *Rules) pathTemplate(p string) string {
	if r.memo == nil {
		return r.pathTemplateOf(p)
	}
	t, ok := r.memo.paths[p]
	if !ok {
		t = r.pathTemplateOf(p)
		r.memo.paths[p] = t
	}
	return t
}

func (r *Rules) pathTemplateOf(p string) string {
	if p == "" {
		return "/"
	}
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	plain := make([]string, len(segs))
	for i, s := range segs {
		if u, err := url.PathUnescape(s); err == nil {
			plain[i] = u
		} else {
			plain[i] = s
		}
	}
	params := r.params(plain)
	for i, s := range plain {
		switch {
		case params[i], IsValue(s):
			segs[i] = Placeholder
		case strings.ContainsAny(segs[i], "{}"):
			segs[i] = url.PathEscape(s) // a literal brace is never read as a placeholder
		}
	}
	lead := ""
	if strings.HasPrefix(p, "/") {
		lead = "/"
	}
	return lead + strings.Join(segs, "/")
}

// params marks the segments that a declared path template names as
// parameters: a template applies to every path that starts with its
// segments.
func (r *Rules) params(segs []string) map[int]bool {
	out := map[int]bool{}
	for _, t := range r.paths {
		if len(t) > len(segs) {
			continue
		}
		ok := true
		for i, lit := range t {
			if lit != "" && lit != segs[i] {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		for i, lit := range t {
			if lit == "" {
				out[i] = true
			}
		}
	}
	return out
}

// queryNames are the sorted, distinct names of a raw query's parameters,
// without the ignored ones; a name that is a value becomes {}.
func (r *Rules) queryNames(raw string) []string { return r.queryWords(nil, raw) }

// queryWords is queryNames in buf's room.
func (r *Rules) queryWords(buf []string, raw string) []string {
	words := buf[:0]
	if raw == "" {
		return words
	}
	for pair := range strings.SplitSeq(raw, "&") {
		if pair == "" {
			continue
		}
		name, _, _ := strings.Cut(pair, "=")
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if r.ignoreQuery[name] {
			continue
		}
		if r.memo == nil {
			words = append(words, queryWord(name))
			continue
		}
		w, ok := r.memo.words[name]
		if !ok {
			w = queryWord(name)
			r.memo.words[name] = w
		}
		words = append(words, w)
	}
	slices.Sort(words)
	return slices.Compact(words)
}

// queryWord is a query parameter's name as a shape shows it: names such as
// `filter[state]` keep their brackets.
func queryWord(name string) string {
	base, rest, _ := strings.Cut(name, "[")
	if word(base) == Placeholder {
		return Placeholder
	}
	if rest == "" {
		return base
	}
	var parts []string
	for p := range strings.SplitSeq(strings.TrimSuffix(rest, "]"), "][") {
		if p == "" {
			parts = append(parts, "")
		} else {
			parts = append(parts, word(p))
		}
	}
	return base + "[" + strings.Join(parts, "][") + "]"
}

// bodyShape is the body part of an HTTP shape: JSON key paths in braces,
// form names in form{…}, <body> for any other body, "" for none.
func bodyShape(contentType string, body []byte, size int) string {
	if size == 0 {
		return ""
	}
	if size > MaxBody || len(body) != size {
		return "<body>"
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	trimmed := bytes.TrimSpace(body)
	switch {
	case mt == "application/x-www-form-urlencoded":
		seen := map[string]bool{}
		q, err := url.ParseQuery(string(body))
		if err != nil {
			return "<body>"
		}
		for name := range q {
			seen[queryWord(name)] = true
		}
		return "form{" + strings.Join(sortedSet(seen), ",") + "}"
	case (strings.Contains(mt, "json") || len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[')) && json.Valid(trimmed):
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return "<body>"
		}
		seen := map[string]bool{}
		keyPaths(v, "", seen, 0)
		return "{" + strings.Join(sortedSet(seen), ",") + "}"
	}
	return "<body>"
}

// keyPaths adds the leaf key paths of a JSON value: a key whose value is an
// object with keys is shown by its children, an array of objects by
// `key[].child`, anything else by the key itself.
func keyPaths(v any, prefix string, out map[string]bool, depth int) {
	switch x := v.(type) {
	case map[string]any:
		if depth >= maxKeyDepth {
			if prefix != "" {
				out[prefix] = true
			}
			return
		}
		for k, val := range x {
			p := jsonKey(k)
			if prefix != "" {
				p = prefix + "." + p
			}
			if !hasKeys(val) {
				out[p] = true
				continue
			}
			keyPaths(val, p, out, depth+1)
		}
	case []any:
		for _, el := range x {
			if hasKeys(el) && depth < maxKeyDepth {
				keyPaths(el, prefix+"[]", out, depth+1)
			}
		}
	}
	delete(out, "")
}

// hasKeys: an object with keys, or an array holding one.
func hasKeys(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		return len(x) > 0
	case []any:
		return slices.ContainsFunc(x, hasKeys)
	}
	return false
}

// jsonKey is a JSON key as a key path shows it: a name as it is, a value
// {}, anything else quoted.
func jsonKey(k string) string {
	if IsValue(k) {
		return Placeholder
	}
	if nameRe.MatchString(k) && !strings.Contains(k, ".") && len(k) <= 64 {
		return k
	}
	if len(k) > 64 {
		return Placeholder
	}
	return strconv.Quote(k)
}

// CLIShape is the shape of one CLI call: argv as the program ran it
// (argv[0] is the command) and whether standard input was given.
func (r *Rules) CLIShape(argv []string, stdin bool) Shape {
	if len(argv) == 0 {
		return ""
	}
	cmd := path.Base(strings.ReplaceAll(argv[0], `\`, "/"))
	if IsValue(cmd) || !nameRe.MatchString(cmd) {
		cmd = Placeholder
	}
	c := cliReader{r: r, parts: []string{cmd}, flags: map[string]bool{}, fields: map[string][]string{}}
	c.ruleAt()
	args := argv[1:]
	for i := 0; i < len(args); i++ {
		i = c.arg(args, i)
	}
	if c.rule != nil && c.rule.Kind == "path" && c.first != nil {
		c.parts = append(c.parts, c.endpoint(*c.first))
	}
	parts := append(c.parts, sortedSet(c.flags)...)
	if stdin {
		parts = append(parts, "<stdin>")
	}
	return Shape(strings.Join(parts, " "))
}

// cliReader is a CLI call being read into its shape.
type cliReader struct {
	r          *Rules
	parts      []string // the command and its subcommand words
	flags      map[string]bool
	subs       int
	positional bool
	rule       *ArgsRule           // the args rule of the command words so far, if any
	first      *string             // the first positional argument, for the rule
	fields     map[string][]string // the values of the rule's value flags
}

// ruleAt finds the args rule of the command words read so far.
func (c *cliReader) ruleAt() {
	if rule, ok := c.r.args[strings.Join(c.parts, " ")]; ok {
		c.rule = &rule
	}
}

// valueFlag says whether a flag takes the next word as its value.
func (c *cliReader) valueFlag(f string) bool {
	return c.r.valueFlags[f] || (c.rule != nil && slices.Contains(c.rule.ValueFlags, f))
}

// arg reads args[i] (and its value, when it is a value flag) and returns
// the index of the last word it read.
func (c *cliReader) arg(args []string, i int) int {
	a := args[i]
	switch {
	case a == "--":
		c.positional = true
		if c.rule != nil && c.first == nil && i+1 < len(args) {
			c.first = &args[i+1]
		}
		return len(args)
	case strings.HasPrefix(a, "--") && len(a) > 2:
		name, value, hasValue := strings.Cut(a[2:], "=")
		f := "--" + word(name)
		if !hasValue && c.valueFlag("--"+name) && i+1 < len(args) {
			i++
			value, hasValue = args[i], true
		}
		c.flag(f, "--"+name, value, hasValue)
	case strings.HasPrefix(a, "-") && len(a) > 1:
		f := c.r.shortFlag(a)
		value, hasValue := "", false
		switch {
		case len(a) == 2 && c.valueFlag(a):
			if i+1 < len(args) {
				i++
				value, hasValue = args[i], true
			}
		case len(a) > 2 && c.rule != nil && slices.Contains(c.rule.ValueFlags, a[:2]):
			f, value, hasValue = a[:2], a[2:], true // -fquery=…
		}
		c.flag(f, a[:min(len(a), 2)], value, hasValue)
	default:
		if !c.positional && c.rule == nil && c.subs < c.r.depth && wordRe.MatchString(a) && len(a) <= 40 && !IsValue(a) {
			c.parts = append(c.parts, a)
			c.subs++
			c.ruleAt()
			return i
		}
		if c.rule != nil && c.first == nil {
			c.first = &args[i]
		}
		c.positional = true // a value ends the subcommand words
	}
	return i
}

// flag notes a flag of the call (and its value, for the rule).
func (c *cliReader) flag(shown, name, value string, hasValue bool) {
	if !c.r.ignoreFlags[shown] {
		c.flags[shown] = true
	}
	if hasValue && c.rule != nil {
		c.fields[name] = append(c.fields[name], value)
	}
}

// endpoint is the shape of an endpoint argument: a GraphQL call's
// operation (graphql query:Name), else its path and query as an HTTP
// path's template, without a leading slash (repos/{}/{}/issues?state).
func (c *cliReader) endpoint(ep string) string {
	if ep == "graphql" {
		return "graphql " + c.operation()
	}
	if u, err := url.Parse(ep); err == nil && u.Scheme != "" && u.Host != "" {
		ep = u.RequestURI()
	}
	p, q, _ := strings.Cut(ep, "?")
	rules := *c.r
	rules.paths = append(slices.Clip(rules.paths), c.rule.templates...)
	rules.memo = nil // its templates are not the adapter's
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, s := range segs {
		if paramRe.MatchString(s) { // gh's own {owner}, {repo}, {branch}
			segs[i] = "0" // a value by its form: it becomes {}
		}
	}
	out := strings.TrimPrefix(rules.pathTemplate("/"+strings.Join(segs, "/")), "/")
	if names := rules.queryNames(q); len(names) > 0 {
		out += "?" + strings.Join(names, "&")
	}
	return out
}

var operationRe = regexp.MustCompile(`^\s*(query|mutation|subscription)\s+([A-Za-z_][A-Za-z0-9_]*)`)

// operation names a GraphQL call's operation from its query field
// (query:Name, mutation:Name), query:{} for an anonymous one or a query
// read from a file.
func (c *cliReader) operation() string {
	for _, f := range c.rule.QueryFields {
		for _, v := range c.fields[f] {
			name, q, ok := strings.Cut(v, "=")
			if !ok || name != "query" {
				continue
			}
			var lines []string
			for l := range strings.SplitSeq(q, "\n") {
				if l, _, _ = strings.Cut(l, "#"); strings.TrimSpace(l) != "" {
					lines = append(lines, l)
				}
			}
			if m := operationRe.FindStringSubmatch(strings.Join(lines, "\n")); m != nil && !IsValue(m[2]) && len(m[2]) <= 64 {
				return m[1] + ":" + m[2]
			}
			return "query:" + Placeholder
		}
	}
	return "query:" + Placeholder
}

// shortFlag is a short flag's name: a declared value flag's two characters
// (its value may follow attached), a cluster of at most four letters as it
// is (-xvzf), else the first letter (-n3, -pSECRET); -{} for a number (-5).
func (r *Rules) shortFlag(a string) string {
	body := a[1:]
	first := rune(body[0])
	switch {
	case r.valueFlags[a[:2]] && unicode.IsLetter(first):
		return a[:2]
	case first < 0x80 && unicode.IsLetter(first):
		if len(body) <= 4 && strings.IndexFunc(body, func(c rune) bool { return c >= 0x80 || !unicode.IsLetter(c) }) < 0 {
			return a
		}
		return a[:2]
	}
	return "-" + Placeholder
}

// sortedSet returns the keys of a set in order.
func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k, ok := range m {
		if ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
