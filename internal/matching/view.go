package matching

import (
	"bytes"
	"crypto/sha256"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/gowebpki/jcs"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/match"
)

// Request is a request as matching sees it: what came in at a door (the
// proxy's, a go-vcr Transport's), or a recorded one.
type Request struct {
	Method string
	URL    string // absolute: scheme://host/path?query
	Header http.Header
	Body   []byte
}

// String is "METHOD URL", as a miss names the request.
func (r Request) String() string { return r.Method + " " + r.URL }

// view is the normalized form of a request under a set of rules: both
// sides are brought to it before they are compared or indexed.
type view struct {
	method  string
	origin  string // scheme://host[:port], default port removed
	path    string
	query   string // sorted, encoded
	headers []string
	body    []byte // as compared (JSON canonical form in json mode)
	bodyKey string
	isJSON  bool
	// boundary is a multipart body's boundary (its Content-Type's), and
	// multipart whether the body is compared part by part (multipart.go).
	boundary  string
	multipart bool
}

// view normalizes r under the compiled rules: URL patterns, ignored
// parameters, chosen headers, the body as compared.
func (c *compiled) view(r Request) view {
	v := view{method: strings.ToUpper(r.Method)}
	v.origin, v.path, v.query = normalizeURL(r.URL)
	if c.params != nil && v.query != "" {
		v.query = dropParams(v.query, c.params)
	}
	if len(c.urls) > 0 {
		full := v.origin + v.path
		if v.query != "" {
			full += "?" + v.query
		}
		for _, p := range c.urls {
			if p.Match(full) {
				v.origin, v.path, v.query = "", "<"+p.String()+">", ""
				break
			}
		}
	}
	for _, name := range c.headers {
		v.headers = append(v.headers, strings.Join(r.Header.Values(name), ", "))
	}
	body := r.Body
	var form []byte
	if c.Body != match.BodyIgnore && len(body) > 0 {
		if ct := r.Header.Get("Content-Type"); strings.HasPrefix(ct, "multipart/") || strings.HasPrefix(ct, "Multipart/") {
			form, v.boundary, v.multipart = multipartForm(ct, body)
			if !v.multipart {
				v.boundary = boundaryOf(ct)
			}
		}
	}
	switch {
	case c.Body == match.BodyIgnore:
		return v
	case v.multipart:
		body, v.isJSON = form, true
	case !c.json.empty() && len(bytes.TrimSpace(body)) > 0:
		if out, ok := c.json.apply(body); ok {
			body, v.isJSON = out, true
		}
	case c.Body == match.BodyJSON:
		if canon, err := jcs.Transform(body); err == nil && len(bytes.TrimSpace(body)) > 0 {
			body, v.isJSON = canon, true
		}
	}
	v.body = body
	if len(body) > 0 {
		sum := sha256.Sum256(body)
		v.bodyKey = string(sum[:])
	}
	return v
}

// key is the index key of a view: the fields the rules compare, joined.
func (c *compiled) key(v view) string {
	n := len(v.method) + len(v.origin) + len(v.path) + len(v.query) + len(v.bodyKey) + 4
	for _, h := range v.headers {
		n += len(h) + 1
	}
	var b strings.Builder
	b.Grow(n) // exactly: an index holds a key for every recorded request
	if !c.IgnoreMethod {
		b.WriteString(v.method)
	}
	b.WriteByte(0)
	if !c.IgnoreHost {
		b.WriteString(v.origin)
	}
	b.WriteByte(0)
	b.WriteString(v.path)
	b.WriteByte(0)
	if !c.IgnoreQuery {
		b.WriteString(v.query)
	}
	for _, h := range v.headers {
		b.WriteByte(0)
		b.WriteString(h)
	}
	b.WriteByte(0)
	b.WriteString(v.bodyKey)
	return b.String()
}

// dropParams removes the named parameters from an encoded query.
func dropParams(query string, names map[string]bool) string {
	q, err := url.ParseQuery(query)
	if err != nil {
		return query
	}
	for n := range names {
		q.Del(n)
	}
	return q.Encode()
}

// normalizeURL splits a URL into origin (lower-case scheme and host, default
// port dropped), escaped path ("/" when empty) and query (parameters sorted
// by name, values in their order, re-encoded). The fragment is dropped.
func normalizeURL(raw string) (origin, path, query string) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", raw, ""
	}
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Host)
	if (scheme == "https" && strings.HasSuffix(host, ":443")) || (scheme == "http" && strings.HasSuffix(host, ":80")) {
		host = host[:strings.LastIndexByte(host, ':')]
	}
	switch {
	case scheme != "":
		origin = scheme + "://" + host
	case host != "":
		origin = "//" + host // scheme-relative
	}
	path = u.EscapedPath()
	if path == "" {
		path = "/"
	}
	if u.RawQuery != "" {
		if q, err := url.ParseQuery(u.RawQuery); err == nil {
			query = q.Encode()
		} else {
			parts := strings.Split(u.RawQuery, "&")
			sort.Strings(parts)
			query = strings.Join(parts, "&")
		}
	}
	return origin, path, query
}

// Matcher compares requests one pair at a time under a set of rules, for
// a door that keeps its own list of recorded requests (go-vcr's recorder
// while it records). An Index is the many-at-once form, and the only one
// that explains a miss.
type Matcher struct {
	c       *compiled
	prepare func(*cassettes.Interaction)
}

// NewMatcher compiles r; the error is the first rule that does not
// compile. prepare, when set, is the door's redaction, as an Index's
// Options.Prepare.
func NewMatcher(r match.Rules, prepare func(*cassettes.Interaction)) (*Matcher, error) {
	c, err := compile(r)
	if err != nil {
		return nil, err
	}
	return &Matcher{c, prepare}, nil
}

// Match reports whether got matches the recorded request rec, already in
// prepared form: whether an Index holding rec would serve got. got is
// compared as it came, then prepared (on a copy) if that does not match.
func (m *Matcher) Match(got, rec Request) bool {
	want := m.c.key(m.c.view(rec))
	if m.c.key(m.c.view(got)) == want {
		return true
	}
	return m.prepare != nil && m.c.key(m.c.view(prepared(got, m.prepare))) == want
}
