package verdict

import (
	"testing"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// TestRunVerdict: a run comes to its verdict without a renderer: a pass
// with nothing blocking, a case's failure with its reason and the case's
// replay as the next step, a run-level error above every case (and
// counted as one failed case).
func TestRunVerdict(t *testing.T) {
	pass := &Run{Cases: []Case{{Adapter: "a", Scenario: "s", Status: StatusPass}}}
	if pass.Exit() != outcome.ExitPass || pass.Reason() != "" || pass.Message() != "1 of 1 cassettes passed" || pass.NextStepCommand() != "" {
		t.Errorf("pass: %v %q %q %q", pass.Exit(), pass.Reason(), pass.Message(), pass.NextStepCommand())
	}
	drift := &Run{Cases: []Case{{Adapter: "a", Scenario: "s", Status: StatusPass}, {Adapter: "b", Scenario: "t", Status: StatusFail, Reason: outcome.EContractDrift}}}
	if drift.Exit() != outcome.ExitFail || drift.Reason() != outcome.EContractDrift || drift.NextStepCommand() != "Run: cassette verify --case b/t" {
		t.Errorf("drift: %v %q %q", drift.Exit(), drift.Reason(), drift.NextStepCommand())
	}
	if c := drift.Counts(); c.Total != 2 || c.Fail != 1 || c.Blocking != 1 {
		t.Errorf("drift counts %+v", c)
	}
	drift.Err = &outcome.Error{Reason: outcome.EFakeUnavailable, Message: "the fake did not start\nmore", NextStep: "cassette verify --adapter b"}
	if drift.Reason() != outcome.EFakeUnavailable || drift.Message() != "the fake did not start" || drift.NextStepCommand() != "cassette verify --adapter b" {
		t.Errorf("run-level error: %q %q %q", drift.Reason(), drift.Message(), drift.NextStepCommand())
	}
	if c := drift.Counts(); c.Total != 3 || c.Fail != 2 {
		t.Errorf("run-level error counts %+v: want it as one more failed case", c)
	}
}
