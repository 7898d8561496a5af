package cfgschema

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Duration is a recorded latency. It reads every form real go-vcr cassettes
// carry (`601.9ms`, `"0ms"`, `""`, `2s`, a bare number of nanoseconds, absent)
// and writes Go's duration syntax.
type Duration time.Duration

// MarshalYAML writes the duration as Go duration syntax.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// ValueError is the error of a value a custom type cannot take, at its
// line. It is a *yaml.TypeError, which the decoder collects and goes on
// after (any other error stops it): the rest of the file is still decoded,
// so that its other problems are reported in the same run and nothing left
// undecoded is reported as missing.
func ValueError(n *yaml.Node, format string, args ...any) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: ", n.Line) + fmt.Sprintf(format, args...)}}
}

// UnmarshalYAML reads a duration string, an integer of nanoseconds, or "".
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return ValueError(n, "expected a duration like 120ms, got a %s", KindName(n.Kind))
	}
	v := strings.TrimSpace(n.Value)
	if v == "" || n.Tag == "!!null" {
		*d = 0
		return nil
	}
	if n.Tag == "!!int" {
		var ns int64
		if _, err := fmt.Sscan(v, &ns); err != nil {
			return ValueError(n, "expected a duration like 120ms, got %q", v)
		}
		*d = Duration(ns)
		return nil
	}
	p, err := time.ParseDuration(v)
	if err != nil {
		return ValueError(n, "expected a duration like 120ms, got %q", v)
	}
	*d = Duration(p)
	return nil
}

// KindName names a YAML node kind in messages (a mapping, a list …).
func KindName(k yaml.Kind) string {
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

// ResolvePath resolves a path from cassette.yaml (real.dir, fake.dir, the
// cassettes directory) against the project directory base: an absolute
// path stays, a relative one joins base, and "" is base itself.
func ResolvePath(base, p string) string {
	if filepath.IsAbs(p) || base == "" {
		return p
	}
	return filepath.Join(base, p)
}
