package refresh

import (
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/report"
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
	var drifted *report.Case
	for i, c := range run.Cases {
		if c.Adapter == "petstore" && c.Scenario == "list-pets" {
			drifted = &run.Cases[i]
		}
	}
	if drifted == nil || drifted.Status != report.StatusFail {
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
	files, err := report.Render(run, report.Options{Golden: true})
	if err != nil {
		t.Fatal(err)
	}
	if page := string(files[report.FileHTML]); !strings.Contains(page, "<h5>real service (got)</h5>") || strings.Contains(page, "The re-recorded cassette is on the refresh branch") {
		t.Error("report.html does not show the drift's two sides")
	}
}
