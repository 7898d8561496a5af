package cassettes

import (
	"encoding/base64"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

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
		return fmt.Errorf("line %d: expected a string body, got a %s", n.Line, kindName(n.Kind))
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

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.AliasNode:
		return "alias"
	case yaml.DocumentNode:
		return "document"
	}
	return "scalar"
}

// Duration is a recorded latency. It reads every form real go-vcr cassettes
// carry (`601.9ms`, `"0ms"`, `""`, `2s`, a bare number of nanoseconds, absent)
// and writes Go's duration syntax.
type Duration time.Duration

// MarshalYAML writes the duration as Go duration syntax.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// valueError is the error of a value a custom type cannot take, at its
// line. It is a *yaml.TypeError, which the decoder collects and goes on
// after (any other error stops it): the rest of the file is still decoded,
// so that its other problems are reported in the same run and nothing left
// undecoded is reported as missing.
func valueError(n *yaml.Node, format string, args ...any) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: ", n.Line) + fmt.Sprintf(format, args...)}}
}

// UnmarshalYAML reads a duration string, an integer of nanoseconds, or "".
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return valueError(n, "expected a duration like 120ms, got a %s", kindName(n.Kind))
	}
	v := strings.TrimSpace(n.Value)
	if v == "" || n.Tag == "!!null" {
		*d = 0
		return nil
	}
	if n.Tag == "!!int" {
		var ns int64
		if _, err := fmt.Sscan(v, &ns); err != nil {
			return valueError(n, "expected a duration like 120ms, got %q", v)
		}
		*d = Duration(ns)
		return nil
	}
	p, err := time.ParseDuration(v)
	if err != nil {
		return valueError(n, "expected a duration like 120ms, got %q", v)
	}
	*d = Duration(p)
	return nil
}
