package refresh

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/recorder"
	"github.com/cassette-dev/cassette/report"
	"github.com/cassette-dev/cassette/verify"
)

// One adapter of a cycle: re-record each of its cassettes, compare, count
// the drifting cycles, publish, and say what became of each case.

// adapter refreshes one adapter.
func (c *cycle) adapter(ctx context.Context, name string, a *cassettes.Adapter, olds []*cassettes.Cassette) *AdapterResult {
	o := &c.opts
	ar := &AdapterResult{Name: name, Owners: a.Owners}
	var missing []string
	for _, v := range a.Real.Credentials {
		if val, ok := o.lookup()(v); !ok || val == "" {
			missing = append(missing, v)
		}
	}
	if len(missing) > 0 {
		ar.Skipped = fmt.Sprintf("no credentials: %s not set", strings.Join(missing, ", "))
		c.logf("%s: skipped (%s)", name, ar.Skipped)
		for _, old := range olds {
			ar.Cases = append(ar.Cases, &CaseResult{Old: old, Status: report.StatusSkipped, Message: "adapter skipped: " + ar.Skipped,
				NextStep: "export " + missing[0] + "=...   # then: cassette refresh --once --adapter " + name})
		}
		return ar
	}
	creds := recorder.Credentials(a.Real.Credentials, o.lookup())
	vopts := verify.Options{Config: o.Config, Normalizers: o.registry(), Credentials: creds}
	rec := o.Recorder
	if rec == nil {
		rec = recorder.Live{Config: o.Config, LookupEnv: o.lookup()}
	}
	failed := false
	for _, old := range olds {
		cr := &CaseResult{Old: old}
		ar.Cases = append(ar.Cases, cr)
		if old.Mutating && !a.AllowMutating {
			cr.Status, cr.Message = report.StatusSkipped, "scenario mutates the real service (mutating: true); not re-recorded"
			cr.NextStep = fmt.Sprintf("set adapters.%s.allow_mutating: true in cassette.yaml to refresh it", name)
			continue
		}
		start := time.Now()
		got, err := rec.Rerecord(ctx, name, a, old)
		cr.Duration = time.Since(start)
		if got.Live.ExecutionMode != "" {
			live := got.Live
			cr.Live = &live
		}
		if err != nil {
			failed = true
			ce := cassettes.AsError(err)
			cr.Status, cr.Reason, cr.Message = report.StatusError, ce.Reason, firstLine(ce.Error())
			cr.NextStep = cmp.Or(ce.NextStep, fmt.Sprintf("cassette record --adapter %s --scenario %s   # check that the real service answers", name, old.Scenario))
			c.logf("%s: cannot re-record: %s", old.ID(), cr.Message)
			continue
		}
		cr.New = got.Cassette
		cr.New.Path = old.Path
		cr.Drifts, cr.Explain = compare(old, cr.New, a, vopts)
		if cr.Drifted() {
			cr.Status, cr.Reason, cr.Message = report.StatusFail, cassettes.ERealDrift, "the real service changed: "+cr.Drifts[0].Message
			c.logf("%s: drift (%d differences)", old.ID(), len(cr.Drifts))
		} else {
			cr.Status = report.StatusPass
			c.logf("%s: no drift", old.ID())
		}
	}
	var drifting []*CaseResult
	for _, cr := range ar.Cases {
		if cr.Drifted() {
			drifting = append(drifting, cr)
		}
	}
	st := c.state.Adapter(name)
	if len(drifting) == 0 {
		if !failed {
			st.Consecutive, st.Escalated, st.LastDrift, st.Branch, st.PR, st.Issue = 0, false, "", "", "", ""
		}
		ar.Consecutive = st.Consecutive
		return ar
	}
	if stamp := c.now.UTC().Format(time.RFC3339Nano); st.LastDrift != stamp {
		st.Consecutive++
		st.LastDrift = stamp
	}
	ar.Consecutive = st.Consecutive
	ar.Escalated = st.Consecutive >= c.threshd
	st.Escalated = ar.Escalated
	if err := c.publish(ctx, ar, a, drifting, creds, vopts); err != nil {
		ar.Err = cassettes.AsError(err)
		c.logf("%s: %s", name, ar.Err.Error())
		for _, cr := range drifting {
			cr.Status, cr.Reason = report.StatusError, ar.Err.Reason
			cr.Message = "drift found, but the refresh could not be published: " + firstLine(ar.Err.Error())
			cr.NextStep = ar.Err.NextStep
		}
		return ar
	}
	st.Branch, st.PR, st.Issue = ar.Branch, ar.PR.Ref(), ar.Issue.Ref()
	for _, cr := range drifting {
		if g := cr.Gate; g != nil && g.Failed() && g.Reason.Exit() == cassettes.ExitInfra {
			cr.Status, cr.Reason = report.StatusError, g.Reason
			cr.Message += "; refresh PR: " + ar.PR.Ref() + "; the replay gate could not run: " + firstLine(g.Message)
			cr.NextStep = fmt.Sprintf("cassette verify --adapter %s   # make the fake start, then run cassette refresh --once again", name)
			continue
		}
		switch {
		case ar.Escalated:
			cr.Reason = cassettes.EEscalated
			cr.Message = fmt.Sprintf("escalated to %s: drifting for %d cycles in a row; %s", ownersText(a.Owners), ar.Consecutive, cr.Message)
		case cr.Gate != nil && cr.Gate.Failed():
			cr.Reason = cassettes.EFakeDrift
		}
		if cr.Gate != nil && cr.Gate.Failed() {
			cr.Message += "; the fake does not match the new cassette (" + firstLine(cr.Gate.Message) + "), see " + cmp.Or(ar.Issue.Ref(), "the fake-drift issue")
			cr.NextStep = fmt.Sprintf("git fetch %s %s && git checkout FETCH_HEAD && cassette verify --case %s   # then fix the fake", c.shown, ar.Branch, cr.Old.ID())
		} else {
			cr.Message += "; refresh PR: " + ar.PR.Ref()
			cr.NextStep = "review and merge the refresh PR: " + ar.PR.Ref()
			if ar.PR.Number == 0 && ar.PR.URL == "" {
				cr.NextStep = fmt.Sprintf("git fetch %s %s && git diff HEAD FETCH_HEAD   # review the refresh branch, then merge it into %s", c.shown, ar.Branch, c.base)
			}
		}
	}
	return ar
}

// compare diffs the re-recorded cassette (got) against the committed one
// (want), normalized, with verify's comparison.
func compare(want, got *cassettes.Cassette, a *cassettes.Adapter, opts verify.Options) ([]report.Drift, string) {
	if want.Kind != cassettes.KindCLI && len(want.Interactions) != len(got.Interactions) {
		msg := fmt.Sprintf("the real service now makes %d HTTP interactions for this scenario; the cassette has %d", len(got.Interactions), len(want.Interactions))
		return []report.Drift{{Class: "interactions", Field: "interactions", Line: want.Line("interactions"), Message: msg}}, msg + "\n"
	}
	if want.Kind == cassettes.KindCLI && (want.Output == nil || got.Output == nil) {
		return []report.Drift{{Class: "output", Field: "output", Message: "no output to compare"}}, "no output to compare\n"
	}
	drifts, explain, err := verify.Compare(verify.Case{Cassette: want, Adapter: a}, got, opts)
	if err != nil {
		return []report.Drift{{Class: "normalizers", Field: "normalizers", Message: err.Error()}}, err.Error() + "\n"
	}
	return drifts, explain
}
