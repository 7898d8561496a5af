package coverage

import (
	"maps"
	"strings"
	"unicode/utf8"

	"github.com/cassette-dev/cassette/redact"
)

// Redact hides the credentials of a call before it is written: the values
// of declared credential variables (name → value) and of the values learned
// from credential-named fields, credential-named query parameters, flags
// (`--token=x`, `--password x`) and NAME=value words, JSON keys and form
// fields, and every known key format. A body or input that is not UTF-8 is
// dropped (its size kept): an observation holds text only.
func Redact(c Call, declared map[string]string) Call {
	learned := maps.Clone(declared)
	if learned == nil {
		learned = map[string]string{}
	}
	learn := func(vals []string) {
		for _, v := range vals {
			learned["learned:"+v] = v
		}
	}
	out := c
	if c.Argv != nil {
		out.Argv = redactArgv(c.Argv, learn)
	}
	if c.URL != "" {
		out.URL = redactURL(c.URL, learn)
	}
	if c.Body != "" {
		b, hidden := redact.RedactByName(c.ContentType, []byte(c.Body))
		learn(hidden)
		out.Body = string(b)
	}
	if c.Input != "" {
		b, hidden := redact.RedactByName("", []byte(c.Input))
		learn(hidden)
		out.Input = string(b)
	}
	for i, a := range out.Argv {
		out.Argv[i] = redact.RedactString(a, learned)
	}
	out.URL = redact.RedactString(out.URL, learned)
	out.Body = textOnly(redact.RedactString(out.Body, learned), &out.BodyBytes)
	var dropped int
	out.Input = textOnly(redact.RedactString(out.Input, learned), &dropped)
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

// redactArgv redacts the values of credential-named flags and NAME=value
// words.
func redactArgv(argv []string, learn func([]string)) []string {
	out := append([]string(nil), argv...)
	for i := 1; i < len(out); i++ {
		a := out[i]
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !redact.IsCredentialName(name) {
			continue
		}
		switch {
		case hasValue && value != "":
			learn([]string{value})
			out[i] = a[:len(a)-len(value)] + redact.Redacted
		case !hasValue && strings.HasPrefix(a, "-") && i+1 < len(out) && !strings.HasPrefix(out[i+1], "-"):
			learn([]string{out[i+1]})
			out[i+1] = redact.Redacted
			i++
		}
	}
	return out
}

// redactURL redacts credential-named query parameters.
func redactURL(raw string, learn func([]string)) string {
	p, q, ok := strings.Cut(raw, "?")
	if !ok {
		return raw
	}
	q2, hidden := redact.RedactQuery(q)
	learn(hidden)
	return p + "?" + q2
}
