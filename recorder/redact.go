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

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/secrets"
)

// Redactor removes credentials from everything the recorder captures, before
// it is stored: credential headers are forced to secrets.Redacted, the values
// of the declared credential variables (and their URL-, JSON- and
// base64-encoded forms) are scrubbed from URLs, query strings, forms, bodies,
// arguments and CLI output, query parameters named like a credential are
// blanked, and known key formats (secrets.Patterns) are replaced.
//
// A Redactor is safe for concurrent use; it never logs or returns a value.
type Redactor struct {
	declared map[string]string // name -> value, as given
	variants map[string]string // every encoded form of every value -> its name
}

// NewRedactor returns a Redactor for the declared credentials (variable name
// to live value, as secrets.FromEnv returns them).
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

// Declared returns the declared credentials for secrets.Scan, including
// their encoded forms (named after the variable they come from).
func (r *Redactor) Declared() map[string]string {
	out := make(map[string]string, len(r.variants))
	for enc, name := range r.variants {
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

// Bytes returns data with every declared value (in any of its encodings)
// and every known key format replaced by secrets.Redacted.
func (r *Redactor) Bytes(data []byte) []byte {
	if len(data) == 0 {
		return data
	}
	return secrets.Redact(data, r.byValue())
}

// String is Bytes for a string.
func (r *Redactor) String(s string) string {
	if s == "" {
		return s
	}
	return string(r.Bytes([]byte(s)))
}

// byValue maps each variant to itself under a unique key, the shape
// secrets.Redact wants.
func (r *Redactor) byValue() map[string]string {
	m := make(map[string]string, len(r.variants))
	for enc := range r.variants {
		m[enc] = enc
	}
	return m
}

// Headers returns a copy of h with credential headers forced to
// secrets.Redacted and declared values scrubbed from the others.
func (r *Redactor) Headers(h http.Header) http.Header {
	return secrets.RedactHeaders(h, r.byValue())
}

// URL scrubs a URL: the values of query parameters named like a credential
// (access_token, api_key, secret, …) become secrets.Redacted, and declared
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
			u.User = url.UserPassword(u.User.Username(), secrets.Redacted)
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
	parts := strings.Split(raw, "&")
	for i, p := range parts {
		k, _, hasValue := strings.Cut(p, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			name = k
		}
		if hasValue && credentialParam(name) {
			parts[i] = k + "=" + url.QueryEscape(secrets.Redacted)
		}
	}
	return strings.Join(parts, "&")
}

// credentialParam reports whether a query or form parameter is named like a
// credential.
func credentialParam(name string) bool {
	n := strings.ToLower(strings.ReplaceAll(name, "_", "-"))
	switch n {
	case "key", "code", "sig", "auth", "client-secret":
		return true
	}
	return secrets.IsCredentialHeader(n) || strings.Contains(n, "access-token") || strings.HasSuffix(n, "-key")
}

// Interaction redacts one captured interaction in place. It is the function
// to hand to the proxy's Redact hook. A body whose length changes keeps a
// consistent content_length, so that replay serves well-formed responses.
func (r *Redactor) Interaction(in *cassettes.Interaction) {
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
				if credentialParam(k) {
					nv[i] = secrets.Redacted
				} else {
					nv[i] = r.String(v)
				}
			}
			form[k] = nv
		}
		q.Form = form
	}
	if nb := cassettes.Body(r.Bytes(q.Body.Bytes())); nb != q.Body {
		q.Body = nb
		if q.ContentLength > 0 {
			q.ContentLength = int64(len(nb))
		}
	}
	p := &in.Response
	p.Headers = r.Headers(p.Headers)
	p.Trailer = r.Headers(p.Trailer)
	p.Status = r.String(p.Status)
	if nb := cassettes.Body(r.Bytes(p.Body.Bytes())); nb != p.Body {
		p.Body = nb
		if p.ContentLength > 0 {
			p.ContentLength = int64(len(nb))
		}
		if p.Headers.Get("Content-Length") != "" {
			p.Headers.Set("Content-Length", strconv.Itoa(len(nb)))
		}
	}
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
	findings := secrets.Scan(data, r.Declared())
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
			Expected:   secrets.Redacted,
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
