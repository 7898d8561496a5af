package refresh

import (
	"slices"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/recording"
	"github.com/cassette-dev/cassette/internal/report"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// TestReportHoldsBothSidesOfARealDrift: a refresh's run model holds both
// sides it compared, the committed cassette and the re-recording, so that
// report.html shows them side by side and the previews are the compared
// forms, with the cassette set's digest taken from what was loaded.
func TestReportHoldsBothSidesOfARealDrift(t *testing.T) {
	p := newProject(t)
	p.real.set(200, `{"pets":[{"name":"rex"}]}`)
	r := p.cycle(week0, nil)
	run := r.Report(p.cfg, report.Tool{Name: "cassette"}, "")
	var drifted *verdict.Case
	for i, c := range run.Cases {
		if c.Adapter == "petstore" && c.Scenario == "list-pets" {
			drifted = &run.Cases[i]
		}
	}
	if drifted == nil || drifted.Status != verdict.StatusFail {
		t.Fatalf("petstore/list-pets did not drift: %+v", run.Cases)
	}
	if len(drifted.Recorded) != 1 || string(drifted.Recorded[0].Body) != `{"pets":[]}` {
		t.Errorf("recorded side %+v, want the committed response", drifted.Recorded)
	}
	if len(drifted.Actions) != 1 || string(drifted.Actions[0].Body) != `{"pets":[{"name":"rex"}]}` || drifted.Actions[0].Attempts == 0 {
		t.Errorf("real side %+v, want the re-recorded response with its retry telemetry", drifted.Actions)
	}
	if len(run.Inventory) != 4 {
		t.Errorf("inventory of %d cassettes, want the 4 committed ones", len(run.Inventory))
	}
	files, err := report.Render((*report.Run)(run), report.Options{Golden: true})
	if err != nil {
		t.Fatal(err)
	}
	if page := string(files[report.FileHTML]); !strings.Contains(page, "<h5>real service (got)</h5>") || strings.Contains(page, "The re-recorded cassette is on the refresh branch") {
		t.Error("report.html does not show the drift's two sides")
	}
}

// Each live call of a re-recording carries its own retry telemetry
// (specs/000), never a case's sum: the calls made up to one that failed are
// the case's actions, the last one failing.
func TestLiveActionsCarryEachCallsTelemetry(t *testing.T) {
	two := func() []cassettes.Interaction {
		return []cassettes.Interaction{
			{Request: cassettes.Request{Method: "GET", URL: "https://shop.example/a"}, Response: cassettes.Response{Code: 200}},
			{Request: cassettes.Request{Method: "GET", URL: "https://shop.example/b"}, Response: cassettes.Response{Code: 200}},
			{Request: cassettes.Request{Method: "GET", URL: "https://shop.example/c"}, Response: cassettes.Response{Code: 200}}}
	}
	old := &cassettes.Cassette{Adapter: "shop", Scenario: "s", Kind: cfgschema.KindHTTP, Interactions: two()}
	retried := recording.NewLiveRecord(recording.Telemetry{Attempts: 2, RetryBackoffMS: []int64{500}},
		recording.Telemetry{Attempts: 1}, recording.Telemetry{Attempts: 2, RetryBackoffMS: []int64{500}})
	got := liveActions(&CaseResult{Old: old, New: &cassettes.Cassette{Interactions: two()}, Status: verdict.StatusPass}, &retried)
	want := []struct {
		attempts int
		backoff  []int64
	}{{2, []int64{500}}, {1, nil}, {2, []int64{500}}}
	if len(got) != len(want) {
		t.Fatalf("%d actions, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].Attempts != w.attempts || !slices.Equal(got[i].RetryBackoffMS, w.backoff) {
			t.Errorf("action %d: attempts %d backoff %v, want %d %v", i, got[i].Attempts, got[i].RetryBackoffMS, w.attempts, w.backoff)
		}
	}
	failed := recording.NewLiveRecord(recording.Telemetry{Attempts: 1}, recording.Telemetry{Attempts: 3, RetryBackoffMS: []int64{500, 1500}})
	got = liveActions(&CaseResult{Old: old, Status: verdict.StatusError, Reason: outcome.EProvider5xx, Message: "503 after 3 attempts"}, &failed)
	if len(got) != 2 || got[0].Err != "" || got[1].Err == "" || got[1].Attempts != 3 || len(got[1].RetryBackoffMS) != 2 {
		t.Errorf("failed re-recording: %+v, want the first call ok and the second failing after 3 attempts", got)
	}
}
