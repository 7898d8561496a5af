package importer

import (
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
)

// TestResultPrint: saved cassettes go to out; renames, skips, warnings
// and refusals to errw, a name from the wild made printable.
func TestResultPrint(t *testing.T) {
	r := &Result{
		Saved:    []*cassettes.Cassette{{Path: "cassettes/shop/items.yaml", Interactions: make([]cassettes.Interaction, 2)}},
		Skipped:  1,
		Renamed:  []Rename{{From: "a b\x1b[31m", To: "a-b"}},
		Warnings: []string{"w1"},
		Refused:  []Refused{{Source: "x.har"}},
	}
	var out, errw strings.Builder
	r.Print(&out, &errw)
	if out.String() != "cassettes/shop/items.yaml  2 interaction(s)\n" {
		t.Errorf("out = %q", out.String())
	}
	e := errw.String()
	for _, want := range []string{"renamed ", " to a-b:", "skipped 1 entries", "warning: w1\n", "not imported: "} {
		if !strings.Contains(e, want) {
			t.Errorf("errw misses %q:\n%s", want, e)
		}
	}
	if strings.Contains(e, "\x1b") {
		t.Errorf("errw carries a control character: %q", e)
	}
}
