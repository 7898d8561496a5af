package cassettes

import (
	"errors"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// TestQuarantineInvalidReason: a config whose only problems are those of
// quarantine entries (specs/000: a window over 14 days, a required field
// missing, an unknown category) is refused with E_QUARANTINE_INVALID, the
// reason the README documents; one with another problem too stays
// E_CFG_PARSE.
func TestQuarantineInvalidReason(t *testing.T) {
	const head = "version: 1\nadapters:\n  tool:\n    kind: cli\n    real: {command: [tool]}\n    fake: {command: [fake]}\n"
	entry := func(category, expires, more string) string {
		return "quarantine:\n  tool/a: {category: " + category + ", owner: alice, quarantined: 2026-11-01, expires: " + expires +
			`, bead: "#1", evidence: ci/1, repro: x, reason: r` + more + "}\n"
	}
	for _, c := range []struct {
		name, config string
		want         outcome.Reason
		field        string
	}{
		{"a 15-day window", head + entry("FLAKE-ENV", "2026-11-16", ", remove_when: w"), outcome.EQuarantineInvalid, "quarantine.tool/a.expires"},
		{"no remove_when", head + entry("FLAKE-ENV", "2026-11-10", ""), outcome.EQuarantineInvalid, "quarantine[tool/a].remove_when"},
		{"an unknown category", head + entry("FLAKE-WHAT", "2026-11-10", ", remove_when: w"), outcome.EQuarantineInvalid, "quarantine[tool/a].category"},
		{"and an unknown field", strings.Replace(head, "version: 1\n", "version: 1\nbogus: 1\n", 1) + entry("FLAKE-ENV", "2026-11-16", ", remove_when: w"), outcome.ECfgParse, "quarantine.tool/a.expires"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseConfig("cassette.yaml", []byte(c.config), ConfigOptions{})
			var ce *outcome.Error
			if !errors.As(err, &ce) || ce.Reason != c.want {
				t.Fatalf("err = %v, want %s", err, c.want)
			}
			found := false
			for _, p := range ce.Problems {
				found = found || p.Field == c.field
			}
			if !found {
				t.Errorf("no problem at %s: %v", c.field, ce.Problems)
			}
		})
	}
}
