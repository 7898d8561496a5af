package coverage

import (
	"strings"
	"unicode/utf8"

	"github.com/cassette-dev/cassette/internal/redact"
)

// Redact hides the credentials of a call before it is written or shown,
// with the session's redaction r (the project's credential names, the
// declared values; nil: the built-in names alone): first r learns the
// values the call hides by their names — credential-named flags
// (`--token=x`, `--password x`) and NAME=value words, query parameters,
// JSON keys and form fields of the body and the standard input — then
// every declared and learned value, in each of its encodings, and every
// known key format is replaced by [REDACTED] in every part of the call. A
// body or input that is not UTF-8 is dropped (its size kept): an
// observation holds text only.
func Redact(c Call, r *redact.Redactor) Call {
	if r == nil {
		r = redact.New(nil, nil)
	}
	out := c
	if c.Argv != nil {
		out.Argv = redactArgv(c.Argv, r)
	}
	r.LearnURL(c.URL)
	if c.Body != "" { // most calls have none: no conversion
		r.LearnBody(c.ContentType, []byte(c.Body))
	}
	if c.Input != "" {
		r.LearnBody("", []byte(c.Input))
	}
	for i, a := range out.Argv {
		out.Argv[i] = r.String(a)
	}
	out.URL = r.URL(c.URL)
	if c.Body != "" {
		out.Body = textOnly(string(r.Body(c.ContentType, []byte(c.Body))), &out.BodyBytes)
	}
	if c.Input != "" {
		var dropped int
		out.Input = textOnly(string(r.Body("", []byte(c.Input))), &dropped)
	}
	return out
}

// textOnly keeps s when it is UTF-8, else records its size in *size.
func textOnly(s string, size *int) string {
	if utf8.ValidString(s) {
		return s
	}
	*size = len(s)
	return ""
}

// redactArgv hides the values of credential-named flags and NAME=value
// words, and teaches them to r.
func redactArgv(argv []string, r *redact.Redactor) []string {
	out := append([]string(nil), argv...)
	for i := 1; i < len(out); i++ {
		a := out[i]
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !r.Rules().IsCredentialName(name) {
			continue
		}
		switch {
		case hasValue && value != "":
			r.Learn(value)
			out[i] = a[:len(a)-len(value)] + redact.Redacted
		case !hasValue && strings.HasPrefix(a, "-") && i+1 < len(out) && !strings.HasPrefix(out[i+1], "-"):
			r.Learn(out[i+1])
			out[i+1] = redact.Redacted
			i++
		}
	}
	return out
}
