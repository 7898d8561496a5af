package refresh

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/report"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// TestHistoryCrossesCycles: each cycle adds one entry to the adapter's
// history on the state branch (read back from a fresh clone, as the next
// scheduled run does), the report carries it, and report.html draws it.
func TestHistoryCrossesCycles(t *testing.T) {
	p := newProject(t)
	bodies := []string{`{"pets":[],"n":1}`, `{"pets":[],"n":2}`, `{"pets":[]}`, `{"pets":[],"n":4}`}
	var last *verdict.Run
	for i, body := range bodies {
		p.real.set(200, body)
		p.dir = filepath.Join(t.TempDir(), "clone")
		runGit(t, p.env, filepath.Dir(p.dir), "clone", "--quiet", p.remote, p.dir)
		p.load()
		r := p.cycle(week0.Add(time.Duration(i)*7*24*time.Hour), nil)
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		last = r.Report(p.cfg, report.Tool{Name: "cassette"}, "")
	}
	if len(last.History) != 1 || last.History[0].Adapter != "petstore" {
		t.Fatalf("history: %+v, want petstore's", last.History)
	}
	h := last.History[0]
	var counts []int
	for _, c := range h.Cycles {
		counts = append(counts, c.Consecutive)
	}
	if len(h.Cycles) != 4 || counts[0] != 1 || counts[1] != 2 || counts[2] != 0 || counts[3] != 1 || h.Cycles[2].Drifts != 0 || h.Cycles[3].Drifts == 0 {
		t.Fatalf("cycles %+v, want counts 1 2 0 1", h.Cycles)
	}
	if h.Threshold != DefaultEscalateAfter || h.Consecutive != 1 {
		t.Errorf("threshold %d, count %d", h.Threshold, h.Consecutive)
	}
	dir := t.TempDir()
	if err := report.Write(dir, (*report.Run)(last), report.Options{Golden: true}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, report.FileHTML))
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	for _, want := range []string{`<h2 id="history">Drift history by adapter</h2>`, `<svg class="history" role="img"`, `escalates at 3`,
		`Escalation count 1 of 3; 3 of the last 4 cycles drifted.`, `<rect class="bar-clean"`} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// The history keeps the last HistoryCycles cycles, and a cycle recorded
// twice (its state saved again) is one entry.
func TestHistoryIsBounded(t *testing.T) {
	c := &cycle{state: &State{}}
	for i := range HistoryCycles + 5 {
		c.now = week0.Add(time.Duration(i) * time.Hour)
		c.recordHistory(&AdapterResult{Name: "a", Consecutive: i, Cases: []*CaseResult{{Drifts: []verdict.Drift{{Class: "value"}}}}})
		c.recordHistory(&AdapterResult{Name: "a", Consecutive: i, Cases: []*CaseResult{{Drifts: []verdict.Drift{{Class: "value"}}}}})
	}
	h := c.state.Adapter("a").History
	if len(h) != HistoryCycles || h[len(h)-1].Consecutive != HistoryCycles+4 || h[0].Consecutive != 5 {
		t.Fatalf("%d entries, first %+v, last %+v", len(h), h[0], h[len(h)-1])
	}
	c.recordHistory(&AdapterResult{Name: "b", Skipped: "no credentials"})
	if len(c.state.Adapter("b").History) != 0 {
		t.Error("a skipped adapter got a history entry")
	}
}

// TestHistoryCyclesInOneSecond: two cycles started in the same second (a
// manual --once right after the scheduled one, as the contracts script's
// golden dry runs do after an escalating run) are two entries, as they are
// two counts; before, the second replaced the first whenever both fell in
// one second, so two equal golden runs wrote different histories.
func TestHistoryCyclesInOneSecond(t *testing.T) {
	p := newProject(t)
	var last *verdict.Run
	for i, body := range []string{`{"pets":[],"n":1}`, `{"pets":[],"n":2}`} {
		p.real.set(200, body)
		p.dir = filepath.Join(t.TempDir(), "clone")
		runGit(t, p.env, filepath.Dir(p.dir), "clone", "--quiet", p.remote, p.dir)
		p.load()
		r := p.cycle(week0.Add(time.Duration(i)*time.Millisecond), nil)
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		last = r.Report(p.cfg, report.Tool{Name: "cassette"}, "")
	}
	if len(last.History) != 1 || len(last.History[0].Cycles) != 2 {
		t.Fatalf("history %+v, want two cycles of petstore", last.History)
	}
	if c := last.History[0].Cycles; c[0].Consecutive != 1 || c[1].Consecutive != 2 {
		t.Errorf("counts %d %d, want 1 2", c[0].Consecutive, c[1].Consecutive)
	}
}

// A cycle that compared some of an adapter's cassettes while the real side
// failed for others is recorded with those as failed, never as a clean
// cycle.
func TestHistoryCountsFailedCassettes(t *testing.T) {
	c := &cycle{state: &State{}, now: week0}
	c.recordHistory(&AdapterResult{Name: "a", Cases: []*CaseResult{
		{New: &cassettes.Cassette{}},
		{Reason: outcome.EProvider5xx, Status: verdict.StatusError},
		{Reason: outcome.ERealUnreachable, Status: verdict.StatusError},
	}})
	h := c.state.Adapter("a").History
	if len(h) != 1 || h[0].Drifts != 0 || h[0].Failed != 2 {
		t.Fatalf("history %+v, want one entry with 0 drifts and 2 failed", h)
	}
	r := &Result{State: c.state, Adapters: []*AdapterResult{{Name: "a"}}}
	if got := r.history(3); len(got) != 1 || got[0].Cycles[0].Failed != 2 {
		t.Fatalf("report history %+v, want the 2 failed carried", got)
	}
}
