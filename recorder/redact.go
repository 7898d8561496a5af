package recorder

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/proxy"
	"github.com/cassette-dev/cassette/redact"
)

// Redactor removes credentials from everything the recorder captures, before
// it is stored: credential headers are forced to redact.Redacted, the values
// of the declared credential variables (and their URL-, JSON- and
// base64-encoded forms) are scrubbed from URLs, query strings, forms, bodies,
// arguments and CLI output, query parameters named like a credential are
// blanked, and known key formats (redact.Patterns) are replaced.
//
// A Redactor is one recording session: every value it hides because of its
// name rather than because it was declared (credential header values, the
// token of `Authorization: Bearer X` and the password of Basic auth, cookie
// values, query and form parameters named like a credential, a URL's
// password) is learned, when it is 6 bytes or longer, and from then on
// scrubbed, in all its encodings, from everything the Redactor redacts —
// the rest of the same interaction and every later one (Cassette redacts
// again, so a whole cassette is scrubbed of everything learned while
// recording it).
//
// A Redactor is safe for concurrent use; it never logs or returns a value.
type Redactor struct {
	declared map[string]string // name -> value, as given

	mu       sync.RWMutex
	variants map[string]string // every encoded form of every value -> its name
	nlearned int
}

// learnedName names the values a Redactor learned in scan findings.
const learnedName = "hidden-by-name"

// NewRedactor returns a Redactor for the declared credentials (variable name
// to live value, as redact.FromEnv returns them).
func NewRedactor(declared map[string]string) *Redactor {
	r := &Redactor{declared: map[string]string{}, variants: map[string]string{}}
	for name, v := range declared {
		if v == "" {
			continue
		}
		r.declared[name] = v
		for _, enc := range encodings(v) {
			r.variants[enc] = name
		}
	}
	return r
}

// encodings lists the forms in which a credential value may appear on the
// wire: as is, percent-encoded for a query or a path, JSON-escaped, and
// base64 (Basic auth, tokens wrapped in other tokens).
func encodings(v string) []string {
	out := []string{v, url.QueryEscape(v), url.PathEscape(v)}
	if j, err := json.Marshal(v); err == nil {
		esc := string(j[1 : len(j)-1])
		out = append(out, esc, strings.ReplaceAll(esc, "/", `\/`)) // some encoders escape "/"
	}
	out = append(out,
		base64.StdEncoding.EncodeToString([]byte(v)),
		base64.RawStdEncoding.EncodeToString([]byte(v)),
		base64.RawURLEncoding.EncodeToString([]byte(v)))
	return out
}

// Declared returns the declared credentials for redact.Scan, including
// their encoded forms (named after the variable they come from), and the
// values learned so far (named hidden-by-name).
func (r *Redactor) Declared() map[string]string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make(map[string]string, len(r.variants))
	encs := make([]string, 0, len(r.variants))
	for enc := range r.variants {
		encs = append(encs, enc)
	}
	sort.Strings(encs) // stable names
	for _, enc := range encs {
		name := r.variants[enc]
		key := name
		if enc != r.declared[name] {
			key = name + "(encoded)"
			// keep every form: suffix until unique
			for i := 2; ; i++ {
				if _, dup := out[key]; !dup {
					break
				}
				key = name + "(encoded " + strconv.Itoa(i) + ")"
			}
		}
		out[key] = enc
	}
	return out
}

// learn adds a value hidden because of its name to the session's scrub
// list, in all its encodings. Short values, and values already redacted
// (a second pass over a redacted interaction), in any encoding, are not
// learned.
func (r *Redactor) learn(v string) {
	v = strings.TrimSpace(v)
	// "REDACTED" also catches the marker's encoded forms (%5BREDACTED%5D).
	if len(v) < minLearned || strings.Contains(v, "REDACTED") {
		return
	}
	r.mu.RLock()
	_, known := r.variants[v]
	r.mu.RUnlock()
	if known {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, known := r.variants[v]; known {
		return
	}
	r.nlearned++
	for _, enc := range encodings(v) {
		if _, dup := r.variants[enc]; !dup && len(enc) >= minLearned {
			r.variants[enc] = learnedName
		}
	}
	r.variants[v] = learnedName
}

// minLearned is the shortest value learned (and scrubbed): the length from
// which package redact scrubs declared values.
const minLearned = 6

// learnHeaders learns the secret parts of h's credential headers.
func (r *Redactor) learnHeaders(h http.Header) {
	for k, vs := range h {
		for _, v := range vs {
			for _, s := range proxy.HiddenHeaderValues(k, v) {
				r.learn(s)
			}
		}
	}
}

// learnURL learns a URL's password and its query parameters named like a
// credential.
func (r *Redactor) learnURL(raw string) {
	if raw == "" {
		return
	}
	u, err := url.Parse(raw)
	if err != nil {
		return
	}
	if u.User != nil {
		if pw, ok := u.User.Password(); ok {
			r.learn(pw)
		}
	}
	r.learnQuery(u.RawQuery)
}

// learnQuery learns the values of the credential-named parameters of a
// query string or a form-urlencoded body.
func (r *Redactor) learnQuery(raw string) {
	for _, p := range strings.Split(raw, "&") {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			continue
		}
		name, err := url.QueryUnescape(k)
		if err != nil {
			name = k
		}
		if !redact.IsCredentialName(name) {
			continue
		}
		if dv, err := url.QueryUnescape(v); err == nil {
			r.learn(dv)
		}
		r.learn(v)
	}
}

// learnInteraction learns every value of in that redaction hides by name:
// the request side first, then the response side, before anything is
// scrubbed, so that a value learned anywhere in the interaction is scrubbed
// everywhere in it.
func (r *Redactor) learnInteraction(in *cassettes.Interaction) {
	q := &in.Request
	r.learnHeaders(q.Headers)
	r.learnHeaders(q.Trailer)
	r.learnURL(q.URL)
	r.learnURL(q.RequestURI)
	for k, vs := range q.Form { // query and form body: a query's ?key= was learned from the URL
		if redact.IsCredentialField(k) {
			for _, v := range vs {
				r.learn(v)
			}
		}
	}
	r.learnBody(q.Headers, q.Body)
	p := &in.Response
	r.learnHeaders(p.Headers)
	r.learnHeaders(p.Trailer)
	r.learnBody(p.Headers, p.Body)
	if loc := p.Headers.Get("Location"); loc != "" {
		r.learnURL(loc)
	}
}

// learnBody learns the values of a body's credential-named fields (JSON
// keys, form parameters, multipart fields: redact.RedactByName).
func (r *Redactor) learnBody(h http.Header, b cassettes.Body) {
	if len(b) == 0 || b.IsBinary() {
		return
	}
	_, hidden := redact.RedactByName(h.Get("Content-Type"), []byte(b))
	for _, v := range hidden {
		r.learn(v)
	}
}

// byName replaces the values of a body's credential-named fields.
func byName(h http.Header, b cassettes.Body) cassettes.Body {
	if len(b) == 0 || b.IsBinary() {
		return b
	}
	out, _ := redact.RedactByName(h.Get("Content-Type"), []byte(b))
	return cassettes.Body(out)
}

// Bytes returns data with every declared value (in any of its encodings)
// and every known key format replaced by redact.Redacted.
func (r *Redactor) Bytes(data []byte) []byte {
	if len(data) == 0 {
		return data
	}
	return redact.Redact(data, r.byValue())
}

// String is Bytes for a string.
func (r *Redactor) String(s string) string {
	if s == "" {
		return s
	}
	return string(r.Bytes([]byte(s)))
}

// byValue maps each variant to itself under a unique key, the shape
// redact.Redact wants.
func (r *Redactor) byValue() map[string]string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	m := make(map[string]string, len(r.variants))
	for enc := range r.variants {
		m[enc] = enc
	}
	return m
}

// Headers returns a copy of h with credential headers forced to
// redact.Redacted and declared values scrubbed from the others.
func (r *Redactor) Headers(h http.Header) http.Header {
	return redact.RedactHeaders(h, r.byValue())
}

// URL scrubs a URL: the values of query parameters named like a credential
// (access_token, api_key, secret, …) become redact.Redacted, and declared
// values are scrubbed from the rest. A URL that does not parse is scrubbed as
// plain text.
func (r *Redactor) URL(raw string) string {
	if raw == "" {
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return r.String(raw)
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), redact.Redacted)
		}
	}
	if u.RawQuery != "" {
		u.RawQuery = r.query(u.RawQuery)
	}
	return r.String(u.String())
}

// query redacts credential-named parameters while keeping the order and
// encoding of the others byte for byte.
func (r *Redactor) query(raw string) string {
	q, _ := redact.RedactQuery(raw)
	return q
}

// Interaction redacts one captured interaction in place. It is the function
// to hand to the proxy's Redact hook. A body whose length changes keeps a
// consistent content_length, so that replay serves well-formed responses.
//
// First, bodies with a Content-Encoding of gzip or deflate are decoded (see
// proxy.DecodeBodies: the decoded body is stored, Content-Encoding removed,
// the lengths fixed and the response marked uncompressed, so that replay
// serves the plain body; brotli is kept as it came, the standard library
// cannot decode it). Then the values hidden by name are learned, request
// side before response side, and only then is anything scrubbed.
// Interaction is idempotent: a second pass over its result changes nothing
// unless values were learned in between.
func (r *Redactor) Interaction(in *cassettes.Interaction) {
	proxy.DecodeBodies(in)
	r.learnInteraction(in)
	q := &in.Request
	q.Headers = r.Headers(q.Headers)
	q.Trailer = r.Headers(q.Trailer)
	q.URL = r.URL(q.URL)
	q.RequestURI = r.URL(q.RequestURI)
	q.Host = r.String(q.Host)
	q.RemoteAddr = "" // the client's ephemeral address is noise, and breaks matching
	if len(q.Form) > 0 {
		form := make(url.Values, len(q.Form))
		for k, vs := range q.Form {
			nv := make([]string, len(vs))
			for i, v := range vs {
				if redact.IsCredentialField(k) {
					nv[i] = redact.Redacted
				} else {
					nv[i] = r.String(v)
				}
			}
			form[k] = nv
		}
		q.Form = form
	}
	if nb := cassettes.Body(r.Bytes(byName(q.Headers, q.Body).Bytes())); nb != q.Body {
		q.Body = nb
		if q.ContentLength > 0 {
			q.ContentLength = int64(len(nb))
		}
	}
	p := &in.Response
	p.Headers = r.Headers(p.Headers)
	if loc := p.Headers.Get("Location"); loc != "" {
		p.Headers.Set("Location", r.URL(loc))
	}
	p.Trailer = r.Headers(p.Trailer)
	p.Status = r.String(p.Status)
	if nb := cassettes.Body(r.Bytes(byName(p.Headers, p.Body).Bytes())); nb != p.Body {
		p.Body = nb
		if p.ContentLength > 0 {
			p.ContentLength = int64(len(nb))
		}
		if p.Headers.Get("Content-Length") != "" {
			p.Headers.Set("Content-Length", strconv.Itoa(len(nb)))
		}
	}
	in.WebSocket.Redact(r.learnMessage, r.scrubMessage) // websocket.go
}

// Cassette redacts a whole cassette in place: every interaction, the CLI
// arguments and standard input, and the CLI output.
func (r *Redactor) Cassette(c *cassettes.Cassette) {
	for i := range c.Interactions {
		r.Interaction(&c.Interactions[i])
	}
	if c.Input != nil {
		c.Input.Command = r.String(c.Input.Command)
		for i, a := range c.Input.Args {
			c.Input.Args[i] = r.String(a)
		}
		c.Input.Stdin = cassettes.Body(r.Bytes(c.Input.Stdin.Bytes()))
	}
	if c.Output != nil {
		c.Output.Stdout = cassettes.Body(r.Bytes(c.Output.Stdout.Bytes()))
		c.Output.Stderr = cassettes.Body(r.Bytes(c.Output.Stderr.Bytes()))
	}
}

// Check marshals the cassette as it would be written and scans it for
// anything secret left: a known key format or a declared value in any of its
// encodings. It returns nil when the cassette is clean, otherwise an
// E_SECRET_LEAK *cassettes.Error whose problems name the line and the kind
// of secret found — never the value.
func (r *Redactor) Check(c *cassettes.Cassette) error {
	data, err := cassettes.Marshal(c)
	if err != nil {
		return &cassettes.Error{Reason: cassettes.EIO, Message: "cannot encode the cassette to scan it", Err: err,
			NextStep: "cassette validate"}
	}
	return r.CheckBytes(c.Path, data)
}

// SaveOptions returns the options with which cassettes.Save runs its own
// final scan for the declared credentials (all their encodings).
func (r *Redactor) SaveOptions() cassettes.SaveOptions {
	return cassettes.SaveOptions{Credentials: r.Declared()}
}

// CheckBytes scans data that is about to be written to file (a cassette, a
// report) like Check does.
func (r *Redactor) CheckBytes(file string, data []byte) error {
	findings := redact.Scan(data, r.Declared())
	if len(findings) == 0 {
		return nil
	}
	kinds := map[string]bool{}
	e := &cassettes.Error{
		Reason: cassettes.ESecretLeak,
		NextStep: "declare the variable under `credentials:` of the adapter in cassette.yaml, " +
			"or remove the secret from the scenario, then run `cassette record` again",
	}
	for _, f := range findings {
		kind := f.Kind
		if i := strings.Index(kind, "("); i > 0 {
			kind = kind[:i] // "declared:X(encoded)" -> "declared:X"
		}
		kinds[kind] = true
		e.Problems = append(e.Problems, cassettes.Problem{
			File: file, Line: f.Line, Column: f.Column,
			Message:    fmt.Sprintf("a secret (%s) would be written", kind),
			Expected:   redact.Redacted,
			Suggestion: "refusing to save; the value is not shown",
		})
	}
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	e.Message = fmt.Sprintf("refusing to save: %d secret(s) left after redaction (%s)", len(findings), strings.Join(names, ", "))
	return e
}

// namesIn returns, sorted, the names of the values (declared variables, or
// hidden-by-name for learned ones) that s holds in any of their encodings.
func (r *Redactor) namesIn(s string) []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	seen := map[string]bool{}
	for enc, name := range r.variants {
		if len(enc) >= minLearned && strings.Contains(s, enc) {
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

// replaceValues replaces in s every value (longest form first) with what
// repl returns for the name of its variable.
func (r *Redactor) replaceValues(s string, repl func(name string) string) string {
	r.mu.RLock()
	encs := make([]string, 0, len(r.variants))
	for enc := range r.variants {
		if len(enc) >= minLearned {
			encs = append(encs, enc)
		}
	}
	names := make(map[string]string, len(encs))
	for _, e := range encs {
		names[e] = r.variants[e]
	}
	r.mu.RUnlock()
	sort.Slice(encs, func(i, j int) bool {
		if len(encs[i]) != len(encs[j]) {
			return len(encs[i]) > len(encs[j])
		}
		return encs[i] < encs[j]
	})
	for _, e := range encs {
		if strings.Contains(s, e) {
			s = strings.ReplaceAll(s, e, repl(names[e]))
		}
	}
	return s
}
