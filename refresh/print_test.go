package refresh

import (
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/outcome"
	"github.com/cassette-dev/cassette/verdict"
)

// TestPrintFailures: errors print as `error[REASON]: …` (with the colon, like
// every command), and an adapter whose cassettes could not be re-recorded is
// "not refreshed", never "no drift".
func TestPrintFailures(t *testing.T) {
	old := &cassettes.Cassette{Adapter: "api", Scenario: "pets"}
	r := &Result{Date: "2026-11-23",
		Adapters: []*AdapterResult{
			{Name: "api", Cases: []*CaseResult{{Old: old, Status: verdict.StatusError, Reason: outcome.ERealTLS, Message: "TLS: certificate signed by an unknown authority"}}},
			{Name: "gh", Err: outcome.Errorf(outcome.EForge, "cassette refresh --once", "cannot open the PR")},
		},
		Err: outcome.Errorf(outcome.EPushRejected, "git fetch", "cannot save the state")}
	var b strings.Builder
	r.Print(&b)
	out := b.String()
	for _, want := range []string{"api: not refreshed: 1 of 1 cassette(s) could not be re-recorded", "gh: error[E_FORGE]: cannot open the PR", "error[E_PUSH_REJECTED]: cannot save the state"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "no drift") {
		t.Errorf("an adapter that could not be re-recorded is reported as no drift:\n%s", out)
	}
}
