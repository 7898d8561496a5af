package verdict

import (
	"cmp"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// Now is the run's reference time for quarantine expiry: its start, else
// its end.
func (r *Run) Now() time.Time {
	if !r.Started.IsZero() {
		return r.Started
	}
	return r.Finished
}

// Reason is the run's reason code: a run-level error's own reason; else,
// when cases failed (quarantined ones do not count), the reason of the most
// severe exit class among them (infrastructure 3, then user error 2, then
// failure 1: an infrastructure failure is never hidden behind a drift): the
// common reason of that class if its failures share one, else E_TEST_FAILED
// for class 1 and the first such failure's reason (in report order) for the
// others; else "" (pass).
func (r *Run) Reason() outcome.Reason {
	if r.Err != nil {
		if r.Err.Reason == "" {
			return outcome.EIO
		}
		return r.Err.Reason
	}
	severity := map[outcome.Exit]int{outcome.ExitFail: 1, outcome.ExitUser: 2, outcome.ExitInfra: 3}
	var common outcome.Reason
	mixed := false
	for _, c := range r.SortedCases() {
		if !c.Blocking(r.Now()) {
			continue
		}
		rc := c.ReasonAt(r.Now())
		switch {
		case common == "" || severity[rc.Exit()] > severity[common.Exit()]:
			common, mixed = rc, false
		case rc != common && rc.Exit() == common.Exit():
			mixed = true
		}
	}
	if mixed && common.Exit() == outcome.ExitFail {
		return outcome.ETestFailed
	}
	return common
}

// Exit is the run's exit class, derived from [Run.Reason].
func (r *Run) Exit() outcome.Exit {
	rc := r.Reason()
	if rc == "" {
		return outcome.ExitPass
	}
	return rc.Exit()
}

// Message is the run's one-line outcome.
func (r *Run) Message() string {
	if r.Err != nil {
		line, _, _ := strings.Cut(r.Err.Message, "\n")
		return line
	}
	if r.FailMessage != "" && r.Exit() != outcome.ExitPass {
		return r.FailMessage
	}
	c := r.Counts()
	var failed []string
	for _, cs := range r.SortedCases() {
		if cs.Blocking(r.Now()) {
			failed = append(failed, cs.ID())
		}
	}
	if len(failed) > 0 {
		const show = 3
		list := strings.Join(failed[:min(show, len(failed))], ", ")
		if len(failed) > show {
			list += fmt.Sprintf(", and %d more", len(failed)-show)
		}
		return fmt.Sprintf("%d of %d %s failed: %s", len(failed), c.Total, r.unit(), list)
	}
	msg := fmt.Sprintf("%d of %d %s passed", c.Pass, c.Total, r.unit())
	if c.Quarantined > 0 {
		msg += fmt.Sprintf(" (%d quarantined failures)", c.Quarantined)
	}
	if c.Skipped > 0 {
		msg += fmt.Sprintf(" (%d skipped)", c.Skipped)
	}
	return msg
}

// unit names what a case is: a cassette, or a call shape (coverage).
func (r *Run) unit() string {
	if r.Coverage != nil {
		return "call shapes"
	}
	return "cassettes"
}

// NextStepCommand is the one concrete next step of a failing run: the
// run-level error's, Run.NextStep, the first failing case's own next step,
// or that case's targeted replay command. It is empty when the run passed.
func (r *Run) NextStepCommand() string {
	if r.Exit() == outcome.ExitPass {
		return ""
	}
	if r.Err != nil && r.Err.NextStep != "" {
		return r.Err.NextStep
	}
	if r.NextStep != "" {
		return r.NextStep
	}
	for _, c := range r.SortedCases() {
		if !c.Blocking(r.Now()) {
			continue
		}
		if c.NextStep != "" {
			return c.NextStep
		}
		return "Run: " + r.CaseReplay(c)
	}
	return "Run: " + r.SuiteReplay()
}

// SuiteReplay is the command that replays the whole suite.
func (r *Run) SuiteReplay() string {
	if r.ReplayCommand != "" {
		return r.ReplayCommand
	}
	return "cassette verify"
}

// CaseReplay is the command that replays case c alone.
func (r *Run) CaseReplay(c *Case) string {
	if c.ReplayCommand != "" {
		return c.ReplayCommand
	}
	return r.SuiteReplay() + " " + outcome.Command("--case", c.ID())
}

// Counts are the case counts of a run.
type Counts struct {
	Total, Pass, Fail, Skipped int
	// Quarantined counts failed cases under an unexpired quarantine; they are
	// included in Fail but do not fail the run.
	Quarantined int
	// Blocking counts the failures that fail the run.
	Blocking int
}

// Counts counts the run's cases by outcome; a run-level error counts as
// one failed case (see [Run.ReportCases]).
func (r *Run) Counts() Counts {
	var c Counts
	for _, cs := range r.ReportCases() {
		c.Total++
		switch {
		case cs.Failed():
			c.Fail++
			if cs.Quarantined(r.Now()) {
				c.Quarantined++
			} else {
				c.Blocking++
			}
		case cs.Status == StatusSkipped:
			c.Skipped++
		default:
			c.Pass++
		}
	}
	return c
}

// Duration is the run's wall time (Finished − Started), or the sum of the
// case durations when the bounds are unknown.
func (r *Run) Duration() time.Duration {
	if !r.Started.IsZero() && !r.Finished.IsZero() {
		return r.Finished.Sub(r.Started)
	}
	var d time.Duration
	for _, c := range r.Cases {
		d += c.Duration
	}
	return d
}

// SortedCases returns pointers to the cases in report order: adapter, then
// scenario, then cassette path, by bytes.
func (r *Run) SortedCases() []*Case {
	out := make([]*Case, len(r.Cases))
	for i := range r.Cases {
		out[i] = &r.Cases[i]
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Adapter != b.Adapter {
			return a.Adapter < b.Adapter
		}
		if a.Scenario != b.Scenario {
			return a.Scenario < b.Scenario
		}
		return a.CassettePath < b.CassettePath
	})
	return out
}

// ReportCases returns the cases every report file lists, in report order:
// the run's cases and, when the run has a run-level error, one failed case
// <tool>/<command> (e.g. cassette/verify) standing for it, so that
// junit.xml, summary.json, report.jsonl, log.jsonl and the bundle count the
// same tests.
func (r *Run) ReportCases() []*Case {
	cs := r.SortedCases()
	if r.Err == nil {
		return cs
	}
	msg := r.Err.Message
	for _, p := range r.Err.Problems {
		msg += "\n" + p.String()
	}
	next := r.NextStepCommand()
	return append(cs, &Case{Adapter: r.ToolName(), Scenario: r.CommandName(), CassettePath: r.ConfigPath,
		Status: StatusError, Reason: r.Reason(), Message: msg, NextStep: next,
		ReplayCommand: strings.TrimPrefix(cmp.Or(next, "Run: "+r.SuiteReplay()), "Run: ")})
}

// ToolName is the tool that ran ("cassette" when unnamed).
func (r *Run) ToolName() string {
	if r.Tool.Name == "" {
		return "cassette"
	}
	return r.Tool.Name
}

// CommandName is the command that ran ("verify" when unnamed).
func (r *Run) CommandName() string {
	if r.Command == "" {
		return "verify"
	}
	return r.Command
}
