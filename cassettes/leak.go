package cassettes

import (
	"fmt"
	"net/http"
	"unicode/utf8"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
)

// The leak scan that runs before every write (Save, CheckLeaks) and on
// every load: the raw bytes of the file, then what they carry encoded. A
// problem names the file, line and kind of credential, never its value.

// leakProblems scans the raw bytes of a file for credentials.
func leakProblems(path string, data []byte, declared map[string]string) []outcome.Problem {
	var out []outcome.Problem
	for _, f := range redact.Scan(data, declared) {
		out = append(out, outcome.Problem{File: path, Line: f.Line, Column: f.Column, Message: "a credential (" + f.Kind + ") is stored in the file", Expected: redact.Redacted})
	}
	return out
}

// leakProblems and encodedLeaks are the package's for a load: nothing
// when the caller scans later (SkipLeakScan).
func (o LoadOptions) leakProblems(path string, data []byte) []outcome.Problem {
	if o.SkipLeakScan {
		return nil
	}
	return leakProblems(path, data, o.Credentials)
}

func (o LoadOptions) encodedLeaks(c *Cassette) []outcome.Problem {
	if o.SkipLeakScan {
		return nil
	}
	return encodedLeaks(c, o.Credentials)
}

// encodedLeaks scans the bodies and WebSocket messages the raw scan cannot
// read (bodyLeaks, webSocketLeaks) for the known formats and the declared
// values.
func encodedLeaks(c *Cassette, declared map[string]string) []outcome.Problem {
	scan := func(b []byte) []redact.Finding { return redact.Scan(b, declared) }
	return append(bodyLeaks(c, scan), webSocketLeaks(c, scan)...)
}

// bodyLeaks scans, with scan, the bodies whose text the file does not show:
// compressed ones (under a Content-Encoding, or recognised by their magic
// bytes: gzip, zstd), decoded first; binary ones, which the file holds in
// base64; and sidecar files. A body that says or looks compressed and
// cannot be decoded (corrupt, an unknown coding, a bomb) is a problem
// itself: what is inside was never redacted or scanned, so it is refused
// rather than kept unread. A body that is plain UTF-8 text is in the file,
// and scanned there.
func bodyLeaks(c *Cassette, scan func([]byte) []redact.Finding) []outcome.Problem {
	var out []outcome.Problem
	check := func(fieldOf func() string, h http.Header, body Body, sidecar bool) {
		if !sidecar && plainInFile(h, body) {
			return // in the file, scanned there
		}
		field := fieldOf()
		raw := []byte(body)
		plain, coding, err := redact.Readable(h, raw)
		if err != nil {
			out = append(out, outcome.Problem{File: c.Path, Line: c.Line(field), Field: field,
				Message:    "the body " + err.Error() + "; it cannot be scanned for credentials",
				Expected:   "a body redaction can read: plain, or gzip, deflate, br, zstd that decodes",
				Suggestion: "refusing to keep a body unread; record it again (a body cut short or corrupt), or remove it"})
			return
		}
		encoded := coding != "" || len(redact.Codings(h)) > 0
		if !encoded && !sidecar && utf8.Valid(raw) {
			return // in the file, scanned there
		}
		how := "found after decoding it"
		if !encoded {
			how = "a binary or sidecar body"
		}
		if redact.Integral(h, raw) {
			how += "; kept as it came, since an archive or a body checked by digest is never rewritten: remove the credential from it at the source"
		}
		for _, f := range scan(plain) {
			out = append(out, outcome.Problem{File: c.Path, Line: c.Line(field), Field: field,
				Message: "a credential (" + f.Kind + ") is stored in this body (" + how + ")", Expected: redact.Redacted})
		}
	}
	for i := range c.Interactions {
		in := &c.Interactions[i]
		check(func() string { return fmt.Sprintf("interactions[%d].request.body", i) }, in.Request.Headers, in.Request.Body, in.Request.BodyFile != "")
		check(func() string { return fmt.Sprintf("interactions[%d].response.body", i) }, in.Response.Headers, in.Response.Body, in.Response.BodyFile != "")
	}
	named := func(s string) func() string { return func() string { return s } }
	if c.Input != nil {
		check(named("input.stdin"), nil, c.Input.Stdin, false)
	}
	if c.Output != nil {
		check(named("output.stdout"), nil, c.Output.Stdout, false)
		check(named("output.stderr"), nil, c.Output.Stderr, false)
	}
	return out
}

// plainInFile reports whether a body kept in the file is plain UTF-8 text
// that neither says (Content-Encoding) nor looks (magic bytes) compressed:
// the raw scan of the file read it, and bodyLeaks has nothing to add. It
// is what redact.Readable concludes of such a body, without copying it.
func plainInFile(h http.Header, body Body) bool {
	head := []byte(body[:min(len(body), 8)]) // the magic bytes are shorter
	return len(redact.Codings(h)) == 0 && redact.Sniff(head) == "" && utf8.ValidString(string(body))
}
