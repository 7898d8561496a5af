package gendocs

import (
	"fmt"
	"strings"

	"github.com/cassette-dev/cassette/internal/matching"
)

// Presets renders the match presets of matching.PresetNames, each with the
// rules it holds: all of it from the registry.
func Presets() ([]byte, error) {
	var b strings.Builder
	b.WriteString(generated("cassette gendocs", "the match presets' registry (matching.PresetNames, matching.Preset)"))
	b.WriteString("# Match presets\n\n")
	b.WriteString("A preset is named by `preset:` in an adapter's `match:` of `cassette.yaml`, or by `cassette proxy --match-preset`. ")
	b.WriteString("It says how a replayed request's body is compared with the recorded one, and which JSON paths and query parameters are left out; ")
	b.WriteString("the rules that name it may leave out more.\n\n")
	b.WriteString("| preset | body compared as | JSON paths left out | query parameters left out |\n|---|---|---|---|\n")
	for _, n := range matching.PresetNames() {
		r, _ := matching.Preset(n)
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", n, code([]string{string(r.Body)}), code(r.IgnoreJSON), code(r.IgnoreParams))
	}
	return []byte(b.String()), nil
}

// code renders names as a list of code spans, or "none".
func code(xs []string) string {
	var out []string
	for _, x := range xs {
		if x != "" {
			out = append(out, "`"+x+"`")
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}
