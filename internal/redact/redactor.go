package redact

import (
	"bytes"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"
)

// Learned names, in findings and in NamesIn, the values a Redactor learned
// because redaction hid them by their name, rather than was given.
const Learned = "hidden-by-name"

// Redactor is the redaction of one session (a recording, an import, a
// proxy run): the project's Rules, the declared credential values, and
// every value it hid because of its name — the token of `Authorization:
// Bearer X`, a Basic password, cookie values, credential-named query, form
// and multipart parameters and JSON keys, a URL's password — which it
// learns, when 6 bytes or longer, and from then on scrubs from everything
// it redacts. Each value, declared or learned, is matched in every form
// Encodings lists, so a token the upstream echoes JSON-escaped or in
// base64 is scrubbed as surely as the raw one.
//
// It is safe for concurrent use. It never logs or returns a value: what
// leaves it is redacted text, and findings that name the variable.
type Redactor struct {
	rules     *Rules
	noFormats bool // KeepFormats: known formats are left for the scan to refuse

	mu    sync.RWMutex
	forms map[string]string // every form of every value → the variable it comes from, or Learned
	given map[string]string // variable → its value as declared
	order [][]byte          // the forms, longest first (then by bytes); nil when stale

	// queryKeys remembers, for the first query parameter names (as
	// written) the session sees, whether they name a credential: every
	// call asks it twice (LearnURL, URL), for names that repeat across
	// calls. The names are the client's, so it is bounded.
	keysMu    sync.RWMutex
	queryKeys map[string]bool
}

// maxQueryKeyMemo bounds Redactor.queryKeys.
const maxQueryKeyMemo = 1024

// New returns the Redactor of one session: rules (nil: the built-in names)
// and the declared credentials (variable name → live value, as FromEnv
// returns them). Values shorter than 6 bytes are not scrubbed: they would
// redact ordinary text and are too weak to be credentials.
func New(rules *Rules, declared map[string]string) *Redactor {
	if rules == nil {
		rules = NewRules(nil)
	}
	r := &Redactor{rules: rules, forms: map[string]string{}, given: map[string]string{}}
	for _, name := range slices.Sorted(maps.Keys(declared)) {
		v := declared[name]
		if len(v) < minValueLen {
			continue
		}
		r.given[name] = v
		for _, f := range Encodings(v) {
			if _, dup := r.forms[f]; !dup {
				r.forms[f] = name
			}
		}
	}
	return r
}

// KeepFormats makes the Redactor leave the known key formats where they are
// (it still redacts by name and by value): a caller that refuses what the
// scan finds instead of redacting it (`cassette import` without --redact:
// a file someone else committed with a key in it is reported, not quietly
// changed) calls it before first use, and returns r.
func (r *Redactor) KeepFormats() *Redactor {
	r.noFormats = true
	return r
}

// Rules returns the names the Redactor judges credentials by.
func (r *Redactor) Rules() *Rules { return r.rules }

// learnable reports whether a value hidden by name is worth learning: long
// enough not to scrub ordinary text, no dictionary word (weak, learned.go),
// and not the marker itself in any encoding (a second pass over a redacted
// interaction: %5BREDACTED%5D).
func learnable(v string) bool {
	return len(v) >= minValueLen && !strings.Contains(v, "REDACTED") && !weak(v)
}

// Learn adds a value hidden because of its name to the session's scrub
// list, in all its encodings. A short value, or one already redacted, is
// not learned.
func (r *Redactor) Learn(v string) {
	v = strings.TrimSpace(v)
	if !learnable(v) {
		return
	}
	r.mu.RLock()
	_, known := r.forms[v]
	r.mu.RUnlock()
	if known { // every request of a session carries the same token
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, known := r.forms[v]; known {
		return
	}
	for _, f := range Encodings(v) {
		if _, dup := r.forms[f]; !dup {
			r.forms[f] = Learned
		}
	}
	r.order = nil
}

// LearnHeaders learns the secret parts of h's credential headers: the
// token after an Authorization scheme (and a Basic password), cookie
// values, the whole value of any other credential header.
func (r *Redactor) LearnHeaders(h http.Header) {
	for k, vs := range h {
		if !r.rules.IsCredentialHeader(k) {
			continue
		}
		for _, v := range vs {
			for _, s := range hiddenHeaderValues(k, v) {
				r.Learn(s)
			}
		}
	}
}

// LearnURL learns a URL's password (or its user when it has no password:
// https://TOKEN@host, which an HTTP client sends as Basic credentials) and
// the values of its credential-named query parameters (decoded and as
// written).
func (r *Redactor) LearnURL(raw string) {
	if raw == "" {
		return
	}
	query, plain := plainURLQuery(raw)
	if !plain {
		u, err := url.Parse(raw)
		if err != nil {
			return
		}
		if u.User != nil {
			if pw, ok := u.User.Password(); ok {
				r.Learn(pw)
			} else {
				r.Learn(u.User.Username())
			}
		}
		query = u.RawQuery
	}
	for rest := query; rest != ""; {
		var p string
		p, rest, _ = strings.Cut(rest, "&")
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			continue
		}
		if !r.credentialQueryKey(k) {
			continue
		}
		if dv, err := url.QueryUnescape(v); err == nil {
			r.Learn(dv)
		}
		r.Learn(v)
	}
}

// LearnForm learns the values of a parsed form's credential-named fields.
func (r *Redactor) LearnForm(f url.Values) {
	for k, vs := range f {
		if r.rules.isFormField(k) {
			for _, v := range vs {
				r.Learn(v)
			}
		}
	}
}

// LearnBody learns the values of a text body's credential-named fields
// (JSON keys, form parameters, multipart fields: RedactByName). It learns
// nothing from an integral body (an archive, octet-stream, a body
// compressed without saying so: integral.go), which is never rewritten:
// a package's test fixture holding {"password": …} is the package's.
func (r *Redactor) LearnBody(contentType string, body []byte) {
	if len(body) == 0 || IntegralType(contentType) || Sniff(body) != "" || !utf8.Valid(body) {
		return
	}
	_, hidden := r.rules.RedactByName(contentType, body)
	for _, v := range hidden {
		r.Learn(v)
	}
}

// ordered returns the forms to replace, longest first, so that a value
// that contains another is removed whole.
func (r *Redactor) ordered() [][]byte {
	r.mu.RLock()
	order, n := r.order, len(r.forms)
	r.mu.RUnlock()
	if order != nil || n == 0 {
		return order
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.order == nil {
		r.order = make([][]byte, 0, len(r.forms))
		for f := range r.forms {
			r.order = append(r.order, []byte(f))
		}
		slices.SortFunc(r.order, func(a, b []byte) int {
			if len(a) != len(b) {
				return len(b) - len(a)
			}
			return bytes.Compare(a, b)
		})
	}
	return r.order
}

// Bytes returns data with every declared and learned value, in each of its
// forms, and every known key format (unless KeepFormats) replaced by
// [REDACTED].
func (r *Redactor) Bytes(data []byte) []byte {
	if len(data) == 0 {
		return data
	}
	data = r.replaceForms(data, func(string) string { return Redacted })
	if r.noFormats {
		return data
	}
	return redactFormats(data)
}

// replaceForms replaces in data every form of every value, longest first:
// a declared value wherever it appears, a learned one where it stands
// whole (learned.go), with what repl returns for its name. A replacement
// can make a learned value that was glued to it stand whole: it runs
// again until nothing changes (a few rounds at most).
func (r *Redactor) replaceForms(data []byte, repl func(name string) string) []byte {
	order := r.ordered()
	for range 4 {
		changed := false
		for _, f := range order {
			if !bytes.Contains(data, f) {
				continue
			}
			r.mu.RLock()
			name := r.forms[string(f)]
			r.mu.RUnlock()
			var out []byte
			if name == Learned {
				out = replaceWhole(data, f, []byte(repl(name)))
			} else {
				out = bytes.ReplaceAll(data, f, []byte(repl(name)))
			}
			if len(out) != len(data) || !bytes.Equal(out, data) {
				data, changed = out, true
			}
		}
		if !changed {
			break
		}
	}
	return data
}

// String is Bytes for a string. A string that holds no form of a value
// and no keyword a known format may start at (MayHoldFormat) is returned
// as it is, without a copy.
func (r *Redactor) String(s string) string {
	if s == "" || (!r.holdsForm(s) && (r.noFormats || !MayHoldFormat(s))) {
		return s
	}
	return string(r.Bytes([]byte(s)))
}

// holdsForm reports whether s contains some form of a declared or learned
// value (where replaceForms would look further).
func (r *Redactor) holdsForm(s string) bool {
	data := unsafe.Slice(unsafe.StringData(s), len(s)) // read in place, kept nowhere
	for _, f := range r.ordered() {
		if bytes.Contains(data, f) {
			return true
		}
	}
	return false
}

// Headers returns a copy of h with credential headers forced to
// [REDACTED] and the values scrubbed from the others.
func (r *Redactor) Headers(h http.Header) http.Header {
	if h == nil {
		return nil
	}
	return byName(h, r.rules.IsCredentialHeader, r.String)
}

// byName returns a copy of m (a header set, a form) with the values under a
// credential name forced to [REDACTED] and scrub applied to the others.
func byName(m map[string][]string, credential func(string) bool, scrub func(string) string) map[string][]string {
	out := make(map[string][]string, len(m))
	for k, vs := range m {
		nv := make([]string, len(vs))
		cred := credential(k)
		for i, v := range vs {
			if cred && v != "" { // an empty value hides nothing: kept
				nv[i] = Redacted
			} else {
				nv[i] = scrub(v)
			}
		}
		out[k] = nv
	}
	return out
}

// URL scrubs a URL: a password becomes [REDACTED] (a user without one too:
// https://TOKEN@host), so do the values of credential-named query
// parameters (access_token, api_key, …; the others keep their order and
// encoding byte for byte), and the values are scrubbed from the rest. A
// URL that does not parse is scrubbed as text.
func (r *Redactor) URL(raw string) string {
	if raw == "" {
		return raw
	}
	if query, plain := plainURLQuery(raw); plain {
		if r.queryHidesByName(query) {
			redacted, _ := r.rules.RedactQuery(query)
			raw = raw[:len(raw)-len(query)] + redacted
		}
		return r.String(raw)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return r.String(raw)
	}
	if u.User != nil {
		if pw, has := u.User.Password(); has {
			if pw != "" { // an empty one hides nothing: kept
				u.User = url.UserPassword(u.User.Username(), Redacted)
			}
		} else if u.User.Username() != "" {
			u.User = url.User(Redacted)
		}
	}
	if r.queryHidesByName(u.RawQuery) {
		u.RawQuery, _ = r.rules.RedactQuery(u.RawQuery)
	}
	return r.String(u.String())
}

// queryHidesByName reports whether RedactQuery may change query: some
// parameter with a value is named like a credential.
func (r *Redactor) queryHidesByName(query string) bool {
	for rest := query; rest != ""; {
		var p string
		p, rest, _ = strings.Cut(rest, "&")
		if k, v, _ := strings.Cut(p, "="); v != "" && r.credentialQueryKey(k) {
			return true
		}
	}
	return false
}

// credentialQueryKey reports whether a query parameter's name, as written,
// names a credential (decoded first, as RedactQuery decodes it), and
// remembers it for the first names the session sees: the answer is a pure
// function of the name (the Rules do not change).
func (r *Redactor) credentialQueryKey(k string) bool {
	r.keysMu.RLock()
	c, known := r.queryKeys[k]
	r.keysMu.RUnlock()
	if known {
		return c
	}
	name, err := url.QueryUnescape(k)
	if err != nil {
		name = k
	}
	c = r.rules.IsCredentialName(name)
	r.keysMu.Lock()
	if r.queryKeys == nil {
		r.queryKeys = map[string]bool{}
	}
	if len(r.queryKeys) < maxQueryKeyMemo {
		r.queryKeys[strings.Clone(k)] = c
	}
	r.keysMu.Unlock()
	return c
}

// Form returns a copy of a parsed form with the values of credential-named
// fields replaced by [REDACTED] and the values scrubbed from the others.
func (r *Redactor) Form(f url.Values) url.Values {
	if len(f) == 0 {
		return f
	}
	return byName(f, r.rules.isFormField, r.String)
}

// Body redacts a body: in a text body, the values of credential-named
// fields (RedactByName; contentType picks the format, "" reads JSON
// wherever it starts), then the values and key formats (Bytes). An
// integral body (an archive, octet-stream, a body compressed without
// saying so: integral.go; a Content-Encoding is undone before, see
// cassettes.Interaction.Redact) is returned as it came: rewritten, it
// would fail the client's digest on replay; the leak scan reads inside it
// and refuses what a credential is in.
func (r *Redactor) Body(contentType string, body []byte) []byte {
	if len(body) == 0 || IntegralType(contentType) || Sniff(body) != "" {
		return body
	}
	out := body
	if utf8.Valid(out) {
		out, _ = r.rules.RedactByName(contentType, out)
	}
	return r.Bytes(out)
}

// Known is how many forms of values, declared and learned, the Redactor
// scrubs: it grows when Learn takes a new value, so that a caller that
// redacts many texts can tell which were redacted before the last value
// was learned.
func (r *Redactor) Known() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.forms)
}

// Values returns every form of every value, declared and learned, under a
// unique name for Scan (and cassettes.SaveOptions): a declared value under
// its variable, its other forms as "VAR(encoded)", "VAR(encoded 2)", …,
// the learned ones under Learned likewise.
func (r *Redactor) Values() map[string]string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	forms := make([]string, 0, len(r.forms))
	for f := range r.forms {
		forms = append(forms, f)
	}
	sort.Strings(forms) // stable names
	out := make(map[string]string, len(forms))
	encoded := map[string]int{} // forms named so far, by name
	for _, f := range forms {
		name := r.forms[f]
		key := name
		if f != r.given[name] {
			encoded[name]++
			key = name + "(encoded)"
			if n := encoded[name]; n > 1 {
				key = name + "(encoded " + strconv.Itoa(n) + ")"
			}
		}
		out[key] = f
	}
	return out
}

// Scan is the package's Scan with every declared and learned value, in
// each of its forms. A finding's Kind is "declared:VAR" (an encoded form:
// "declared:VAR(encoded)") or a key format's name.
func (r *Redactor) Scan(data []byte) []Finding { return Scan(data, r.Values()) }

// NamesIn returns, sorted, the names of the values (declared variables, or
// Learned) that s holds in any of their forms.
func (r *Redactor) NamesIn(s string) []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	seen := map[string]bool{}
	for f, name := range r.forms {
		if name == Learned && strings.Contains(s, f) {
			if wholeIndex([]byte(s), []byte(f), 0) >= 0 {
				seen[name] = true
			}
		} else if strings.Contains(s, f) {
			seen[name] = true
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// ReplaceValues replaces in s every value, in any of its forms (longest
// first; a learned one where it stands whole), with what repl returns for
// the name of its variable (or Learned).
func (r *Redactor) ReplaceValues(s string, repl func(name string) string) string {
	if s == "" {
		return s
	}
	return string(r.replaceForms([]byte(s), repl))
}

// plainURLQuery reports whether raw is a plain URL, one that url.Parse
// reads without error and URL.String writes back byte for byte: a path
// from the root ("/v1/items", not "//host"), or a lower-case scheme with a
// host of letters, digits, dots and dashes and an optional numeric port
// (no user, no IPv6 literal), then a path of unreserved characters and
// "/$&+,:;=@" (no percent-escape), then an optional query of printable
// ASCII without '#' (no fragment), which it returns (without the '?').
// LearnURL and URL take such a URL without parsing it: most of the URLs a
// session redacts are plain (FuzzPlainURL holds the two paths together).
func plainURLQuery(raw string) (query string, plain bool) {
	i := 0
	switch {
	case strings.HasPrefix(raw, "/"):
		if strings.HasPrefix(raw, "//") {
			return "", false
		}
	case raw != "" && 'a' <= raw[0] && raw[0] <= 'z':
		for i < len(raw) && (('a' <= raw[i] && raw[i] <= 'z') || ('0' <= raw[i] && raw[i] <= '9') || raw[i] == '+' || raw[i] == '-' || raw[i] == '.') {
			i++
		}
		if !strings.HasPrefix(raw[i:], "://") {
			return "", false
		}
		i += len("://")
		host := i
		for i < len(raw) && (isAlnum(raw[i]) || raw[i] == '.' || raw[i] == '-') {
			i++
		}
		if i == host {
			return "", false
		}
		if i < len(raw) && raw[i] == ':' {
			for i++; i < len(raw) && '0' <= raw[i] && raw[i] <= '9'; i++ {
			}
		}
		if i < len(raw) && raw[i] != '/' && raw[i] != '?' {
			return "", false
		}
	default:
		return "", false
	}
	for i < len(raw) && plainByte[raw[i]]&plainPath != 0 {
		i++
	}
	if i == len(raw) {
		return "", true
	}
	if raw[i] != '?' {
		return "", false
	}
	query = raw[i+1:]
	for j := 0; j < len(query); j++ {
		if plainByte[query[j]]&plainQuery == 0 {
			return "", false
		}
	}
	return query, true
}

// plainByte says of each byte whether a plain URL's path may hold it
// (plainPath: letters, digits and "-._~/$&+,:;=@") and whether its query
// may (plainQuery: printable ASCII but '#').
var plainByte = func() (t [256]uint8) {
	for c := range 256 {
		if isAlnum(byte(c)) || strings.IndexByte("-._~/$&+,:;=@", byte(c)) >= 0 {
			t[c] |= plainPath
		}
		if c > ' ' && c < 0x7f && c != '#' {
			t[c] |= plainQuery
		}
	}
	return t
}()

const (
	plainPath = 1 << iota
	plainQuery
)

// isAlnum reports whether c is an ASCII letter or digit.
func isAlnum(c byte) bool {
	return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}
