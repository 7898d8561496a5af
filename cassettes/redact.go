package cassettes

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
)

// Redaction of the cassette types. What a credential is, its encodings,
// the learned values and the decoders are package redact's; this file
// walks the fields of an interaction and a cassette through one
// redact.Redactor, so that every door (the proxy, the recorder, the go-vcr
// Transport, import) redacts the same fields the same way.

// DecodeBodies replaces each body of in whose Content-Encoding redact can
// undo (redact.Open: gzip, x-gzip, deflate, br, zstd, and layers of them,
// "gzip, br") with its decoded bytes, removes the Content-Encoding header,
// makes Content-Length and content_length agree with the decoded length,
// and sets the response's Uncompressed (go-vcr's field for "the transport
// decoded it"). It runs before redaction, so that a credential inside a
// compressed body is seen by redaction, the leak scan and the normalizers;
// replay then serves the plain body, which every HTTP client accepts. A
// body that does not decode is kept as it came, and CheckLeaks refuses it.
// A body compressed without saying so (gzip or zstd magic, no header: an
// npm tarball, an image layer) is kept as it came, never rewritten
// (redact.Integral); CheckLeaks reads inside it.
func (in *Interaction) DecodeBodies() {
	if b, ok := decodeBody(in.Request.Headers, in.Request.Body); ok {
		in.Request.Body = Body(b)
		if in.Request.ContentLength != 0 {
			in.Request.ContentLength = int64(len(b))
		}
	}
	if b, ok := decodeBody(in.Response.Headers, in.Response.Body); ok {
		in.Response.Body = Body(b)
		in.Response.ContentLength = int64(len(b))
		in.Response.Uncompressed = true
	}
}

// decodeBody decodes body as h's Content-Encoding says and, when it did,
// fixes h.
func decodeBody(h http.Header, body Body) ([]byte, bool) {
	codings := redact.Codings(h)
	if len(codings) == 0 {
		return nil, false
	}
	out, err := redact.Open(codings, []byte(body))
	if err != nil {
		return nil, false
	}
	h.Del("Content-Encoding")
	if h.Get("Content-Length") != "" {
		h.Set("Content-Length", strconv.Itoa(len(out)))
	}
	return out, true
}

// Redact removes the credentials from a captured interaction, in place,
// before it is stored. Bodies are decoded first (DecodeBodies); then every
// value hidden because of its name is learned — request side before
// response side, all before anything is scrubbed, so that a value learned
// anywhere in the interaction is scrubbed everywhere in it: credential
// headers, a URL's password and credential-named query parameters, form
// fields, JSON keys and multipart fields of the bodies, the Location the
// response points to. Then headers, URLs, host, form, bodies and status are
// redacted (see redact.Redactor), and a body whose length changed keeps a
// consistent content_length and Content-Length, so that replay serves
// well-formed messages. The client's address is dropped: it is noise that
// breaks matching.
//
// Redact is idempotent: a second pass changes nothing unless r learned
// values in between, which it then scrubs (a token a later response set).
func (in *Interaction) Redact(r *redact.Redactor) {
	in.DecodeBodies()
	in.learn(r)
	q := &in.Request
	q.Headers = r.Headers(q.Headers)
	q.Trailer = r.Headers(q.Trailer)
	q.URL = r.URL(q.URL)
	q.RequestURI = r.URL(q.RequestURI)
	q.Host = r.String(q.Host)
	q.RemoteAddr = ""
	q.Form = r.Form(q.Form)
	redactBody(r, q.Headers, &q.Body, &q.ContentLength)
	p := &in.Response
	p.Headers = r.Headers(p.Headers)
	if loc := p.Headers.Get("Location"); loc != "" {
		p.Headers.Set("Location", r.URL(loc))
	}
	p.Trailer = r.Headers(p.Trailer)
	p.Status = r.String(p.Status)
	redactBody(r, p.Headers, &p.Body, &p.ContentLength)
	in.WebSocket.redact(r) // websocket.go
}

// learn teaches r every value of in that redaction hides by its name.
func (in *Interaction) learn(r *redact.Redactor) {
	q := &in.Request
	r.LearnHeaders(q.Headers)
	r.LearnHeaders(q.Trailer)
	r.LearnURL(q.URL)
	r.LearnURL(q.RequestURI)
	r.LearnForm(q.Form)
	learnBody(r, q.Headers, q.Body)
	p := &in.Response
	r.LearnHeaders(p.Headers)
	r.LearnHeaders(p.Trailer)
	learnBody(r, p.Headers, p.Body)
	if loc := p.Headers.Get("Location"); loc != "" {
		r.LearnURL(loc)
	}
	in.WebSocket.learn(r)
}

// learnBody learns what a body hides by name, unless it is integral
// (redact.Integral: kept as it came, nothing learned from it).
func learnBody(r *redact.Redactor, h http.Header, b Body) {
	if !redact.Integral(h, []byte(b)) {
		r.LearnBody(h.Get("Content-Type"), []byte(b))
	}
}

// redactBody redacts one body and, when that changed its length, the
// lengths that announce it. An integral body (an archive, octet-stream, a
// body the client checks by digest: redact.Integral) is kept as it came;
// CheckLeaks refuses it when a credential is inside.
func redactBody(r *redact.Redactor, h http.Header, b *Body, length *int64) {
	if redact.Integral(h, []byte(*b)) {
		return
	}
	nb := Body(r.Body(h.Get("Content-Type"), []byte(*b)))
	if nb == *b {
		return
	}
	*b = nb
	if *length > 0 {
		*length = int64(len(nb))
	}
	if h.Get("Content-Length") != "" {
		h.Set("Content-Length", strconv.Itoa(len(nb)))
	}
}

// Redact removes the credentials from a whole cassette, in place: every
// interaction (Interaction.Redact), the CLI command, arguments and
// standard input, and the CLI output. The values under credential names in
// the arguments (--token=X, --password X, -H "Authorization: …"), in the
// standard input and in the output (JSON keys) are learned first, so that
// they are scrubbed from every part of the cassette, the HTTP calls
// included; the output is redacted by name too. (A recorder refuses a
// command line or standard input that holds one before it gets here: they
// are run again by refresh, and cannot be kept redacted.)
func (c *Cassette) Redact(r *redact.Redactor) {
	if c.Input != nil {
		r.LearnArgs(append([]string{c.Input.Command}, c.Input.Args...))
		r.LearnBody("", []byte(c.Input.Stdin))
	}
	if c.Output != nil {
		r.LearnBody("", []byte(c.Output.Stdout))
		r.LearnBody("", []byte(c.Output.Stderr))
	}
	for i := range c.Interactions {
		c.Interactions[i].Redact(r)
	}
	if c.Input != nil {
		c.Input.Command = r.String(c.Input.Command)
		for i, a := range c.Input.Args {
			c.Input.Args[i] = r.String(a)
		}
		c.Input.Stdin = Body(r.Body("", []byte(c.Input.Stdin)))
	}
	if c.Output != nil {
		c.Output.Stdout = Body(r.Body("", []byte(c.Output.Stdout)))
		c.Output.Stderr = Body(r.Body("", []byte(c.Output.Stderr)))
	}
}

// CheckLeaks marshals the cassette as it would be written and scans it for
// anything secret left: a known key format, or a value r declares or
// learned, in any of its encodings; and every body the file does not show
// as text (compressed, binary), decoded. A body that cannot be decoded is
// refused: it would be kept unread (see bodyLeaks). It returns nil when the
// cassette is clean, otherwise an E_SECRET_LEAK *Error whose problems name
// the line and the kind of secret — never the value.
func (c *Cassette) CheckLeaks(r *redact.Redactor) error {
	data, err := Marshal(c)
	if err != nil {
		return &outcome.Error{Reason: outcome.EIO, Message: "cannot encode the cassette to scan it", Err: err, NextStep: outcome.Command("cassette", "validate")}
	}
	var probs []outcome.Problem
	kinds := map[string]bool{}
	for _, f := range r.Scan(data) {
		kind := f.Kind
		if i := strings.Index(kind, "("); i > 0 {
			kind = kind[:i] // "declared:X(encoded)" -> "declared:X"
		}
		kinds[kind] = true
		probs = append(probs, outcome.Problem{
			File: c.Path, Line: f.Line, Column: f.Column,
			Message:    fmt.Sprintf("a secret (%s) would be written", kind),
			Expected:   redact.Redacted,
			Suggestion: "refusing to save; the value is not shown",
		})
	}
	for _, p := range append(bodyLeaks(c, r.Scan), webSocketLeaks(c, r.Scan)...) {
		kinds[p.Field] = true
		probs = append(probs, p)
	}
	if len(probs) == 0 {
		return nil
	}
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	// The caller knows the command that records it again: the next step.
	return &outcome.Error{
		Reason: outcome.ESecretLeak,
		Message: fmt.Sprintf("refusing to save: %d secret(s) or unreadable bodies left after redaction (%s); declare the variable under `credentials:` "+
			"of the adapter in cassette.yaml, or remove the secret from the scenario, then record again", len(probs), strings.Join(names, ", ")),
		Problems: probs,
	}
}

// SaveOptionsFor returns the options with which Save runs its own final
// scan for every value r declares or learned, in all their encodings.
func SaveOptionsFor(r *redact.Redactor) SaveOptions {
	return SaveOptions{Credentials: r.Values()}
}
