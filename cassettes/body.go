package cassettes

import (
	"encoding/base64"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cassette-dev/cassette/internal/cfgschema"

	"go.yaml.in/yaml/v3"
)

// Body holds the exact wire bytes of a body, a stdin, a stdout or a stderr.
//
// It is written so that go-vcr (and any YAML reader) gets the same bytes back:
//   - UTF-8 text of several lines whose lines carry no trailing blanks and no
//     control characters is a literal block (`|`, `|-` or `|+`), readable in review;
//   - other UTF-8 text (CRLF line ends, trailing spaces, tabs before a newline,
//     control characters) is a double-quoted scalar with escapes, so `\r` and
//     trailing blanks are visible and preserved;
//   - bytes that are not UTF-8 are `!!binary` (base64), the explicit marker
//     every YAML 1.1/1.2 reader understands.
type Body string

// Bytes returns the body's bytes.
func (b Body) Bytes() []byte { return []byte(b) }

// IsBinary reports whether the body is not valid UTF-8 text.
func (b Body) IsBinary() bool { return !utf8.ValidString(string(b)) }

// MarshalYAML picks the representation described on Body.
func (b Body) MarshalYAML() (any, error) {
	s := string(b)
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	switch {
	case !utf8.ValidString(s):
		n.Tag = "!!binary"
		n.Value = base64.StdEncoding.EncodeToString([]byte(s))
	case strings.Contains(s, "\n") && literalSafe(s):
		n.Style = yaml.LiteralStyle
	case !plainSafe(s):
		n.Style = yaml.DoubleQuotedStyle
	}
	return n, nil
}

// UnmarshalYAML accepts any scalar, including `!!binary`, and null as "".
func (b *Body) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: expected a string body, got a %s", n.Line, cfgschema.KindName(n.Kind))
	}
	if n.Tag == "!!null" {
		*b = ""
		return nil
	}
	if n.Tag == "!!binary" {
		raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(n.Value), ""))
		if err != nil {
			return fmt.Errorf("line %d: !!binary body is not valid base64: %v", n.Line, err)
		}
		*b = Body(raw)
		return nil
	}
	*b = Body(n.Value)
	return nil
}

// literalSafe reports whether s survives a YAML literal block unchanged.
func literalSafe(s string) bool {
	if strings.HasPrefix(s, " ") || strings.HasPrefix(s, "\n") {
		return false // leading blanks or blank first line need an indentation indicator
	}
	for _, line := range strings.Split(s, "\n") {
		if strings.HasSuffix(line, " ") || strings.HasSuffix(line, "\t") {
			return false
		}
		for _, r := range line {
			if r != '\t' && (unicode.IsControl(r) || r == '\uFEFF' || r == '\u2028' || r == '\u2029' || r == '\u0085') {
				return false
			}
		}
	}
	return true
}

// plainSafe reports whether a single-line string can be left to the encoder's
// own choice of plain or single-quoted style without losing bytes.
func plainSafe(s string) bool {
	for _, r := range s {
		if unicode.IsControl(r) || r == '\uFEFF' || r == '\u2028' || r == '\u2029' || r == '\u0085' {
			return false
		}
	}
	return !strings.HasSuffix(s, " ") && !strings.HasPrefix(s, " ")
}

// Duration is a recorded latency (cfgschema.Duration: cassette.yaml's
// fake.timeout reads the same forms). It reads every form real go-vcr
// cassettes carry (`601.9ms`, `"0ms"`, `""`, `2s`, a bare number of
// nanoseconds, absent) and writes Go's duration syntax.
type Duration = cfgschema.Duration
