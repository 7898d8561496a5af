package refresh

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/internal/verdict"
	"github.com/cassette-dev/cassette/internal/verify"
)

// The replay gate of an adapter whose fake lives in a test runner's
// process: verify cannot run such a fake, so the gate is the command the
// project declares (fake.test), run in the refresh work tree on the
// re-recorded cassettes, its results read back case by case through the
// bindings' report files. Without a declared command the PR says plainly
// that the fake was not checked.

// Gate kinds: what the replay gate of an adapter was.
const (
	GateVerify   = "verify"  // verify ran the process fake on the new cassettes
	GateTest     = "test"    // the declared fake.test ran the in-process fake's contract tests
	GateNone     = "none"    // an in-process fake without fake.test: not checked
	GateNotInDry = "dry-run" // an in-process fake's gate does not run in a dry run
)

// GateReport is what the replay gate of an adapter was and found.
type GateReport struct {
	Kind string
	// Command is the gate's command (fake.test; verify's for GateVerify).
	Command string
	// Checked counts the cases the gate judged; Failures are those the
	// fake failed (test items for GateTest).
	Checked  int
	Failures []GateFailure
	// Err says why the gate could not judge the fake (GateTest).
	Err string
}

// GateFailure is one case the fake failed on the new cassettes, with the
// command that replays it.
type GateFailure struct {
	ID, Reason, Message, Replay string
}

// inProcessGate runs the adapter's declared test command in the refresh
// work tree dir and sets each written case's Gate from the cases its
// bindings reported for the cassette. It returns the failures.
func (r *adapterRun) inProcessGate(ctx context.Context, dir string, written map[*CaseResult]string) []GateFailure {
	o := &r.opts
	ar := r.res
	switch {
	case len(r.a.Fake.Test) == 0:
		ar.Gate = &GateReport{Kind: GateNone}
		return nil
	case o.DryRun:
		ar.Gate = &GateReport{Kind: GateNotInDry, Command: outcome.Command(r.a.Fake.Test...)}
		return nil
	}
	projRel, err := filepath.Rel(r.top, realPath(absOr(o.Config.Dir)))
	if err != nil {
		projRel = "."
	}
	g := verify.RunTestGate(ctx, o.Config, ar.Name, filepath.Join(dir, projRel))
	red := redact.New(o.Config.Redaction(), r.creds)
	rep := &GateReport{Kind: GateTest, Command: g.CommandLine(), Checked: len(g.Cases)}
	ar.Gate = rep
	if g.Err != nil {
		rep.Err = red.String(g.Err.Message)
		for cr := range written {
			cr.Gate = &verify.Result{Status: verdict.StatusError, Reason: g.Err.Reason, Message: rep.Err}
		}
		return nil
	}
	for _, c := range g.Failed {
		rep.Failures = append(rep.Failures, GateFailure{ID: c.Adapter + "/" + c.Scenario, Reason: string(cmpReason(c)),
			Message: red.String(firstLine(c.Message)), Replay: red.String(c.ReplayCommand)})
	}
	failing := map[string]bool{} // the test items that failed, quarantine aside
	for _, c := range g.Failed {
		failing[c.Scenario] = true
	}
	for cr := range written {
		rel, err := r.relPath(cr.Old.Path)
		if err != nil {
			continue
		}
		res := &verify.Result{Status: verdict.StatusPass}
		n := 0
		for _, c := range g.Cases {
			if c.CassettePath != filepath.ToSlash(rel) { // both relative to the work tree's root
				continue
			}
			n++
			if failing[c.Scenario] && res.Status == verdict.StatusPass {
				res = &verify.Result{Status: verdict.StatusFail, Reason: outcome.EFakeDrift, Message: red.String(fmt.Sprintf("%s: %s", c.Scenario, firstLine(c.Message)))}
				cr.gateReplay = red.String(c.ReplayCommand)
			}
		}
		if n == 0 {
			res = &verify.Result{Status: verdict.StatusSkipped, Message: "no test of " + rep.Command + " drove this cassette"}
		}
		cr.Gate = res
	}
	return rep.Failures
}

// cmpReason is a failed case's reason, E_CONTRACT_DRIFT for a drift that
// names none.
func cmpReason(c verdict.Case) outcome.Reason {
	if c.Reason == "" {
		return outcome.EContractDrift
	}
	return c.Reason
}

func absOr(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
