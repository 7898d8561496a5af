package report

import (
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/verdict"
)

// A drift message that already names its field and JSONPath (verify's do)
// is not prefixed and suffixed with them again, in SARIF or anywhere else.
func TestDriftTextNamesThePlaceOnce(t *testing.T) {
	d := verdict.Drift{Class: "value", Field: "interactions[0].response.body", JSONPath: "$.tag", Line: 45,
		Message: `value drift at interactions[0].response.body $.tag: value changed (want "cat", got "cats")`}
	run := &Run{Command: "verify", Cases: []verdict.Case{{Adapter: "petstore", Scenario: "get", CassettePath: "c.yaml", Status: verdict.StatusFail, Drifts: []verdict.Drift{d}}}}
	sl, _ := run.sarif(Options{})
	msg := sl.Runs[0].Results[0].Message.Text
	if want := `petstore/get: ` + d.Message; msg != want {
		t.Errorf("SARIF message\n%s\nwant\n%s", msg, want)
	}
	if strings.Count(msg, d.Field) != 1 || strings.Count(msg, d.JSONPath) != 1 {
		t.Errorf("the field or path is repeated: %s", msg)
	}
	// A bare message still gets its place.
	bare := verdict.Drift{Field: "output.exit_code", JSONPath: "$.x", Message: "exit code changed"}
	if got := driftOnce(bare); got != "output.exit_code: exit code changed (at $.x)" {
		t.Errorf("driftOnce(bare) = %q", got)
	}
}
