package refresh

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/kind"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/recording"
	"github.com/cassette-dev/cassette/internal/verdict"
	"github.com/cassette-dev/cassette/internal/verify"
)

// One adapter of a cycle: re-record each of its cassettes, compare, count
// the drifting cycles, publish, and say what became of each case.

// adapterRun is one adapter's part of a cycle.
type adapterRun struct {
	*cycle
	a     *cfgschema.Adapter
	res   *AdapterResult
	rec   Recorder          // Options.Recorder, or the adapter's recording session
	creds map[string]string // the adapter's live credential values
	vopts verify.Options    // how cassettes are compared and replayed
}

// adapter refreshes one adapter. An adapter whose credentials are not set
// is skipped and leaves its escalation state as it was.
func (c *cycle) adapter(ctx context.Context, name string, a *cfgschema.Adapter, olds []*cassettes.Cassette) *AdapterResult {
	o := &c.opts
	ar := &AdapterResult{Name: name, Owners: a.Owners}
	if missing := c.missingCredentials(a); len(missing) > 0 {
		c.skip(ar, olds, missing)
		return ar
	}
	creds := recording.Credentials(a.Real.Credentials, o.lookup())
	r := &adapterRun{cycle: c, a: a, res: ar, creds: creds, vopts: verify.ProjectOptions(o.project(), o.lookup())}
	r.vopts.Credentials = creds // the gate redacts this adapter's credentials, as its re-recording did
	r.rec = r.recorder()
	failed := false
	for i, old := range olds {
		cr := r.rerecord(ctx, old)
		if cr.loggedOut != "" {
			// The tool has no credentials: the adapter is skipped as for
			// an unset credential variable, its state left as it was.
			c.skipLoggedOut(ar, olds[i:], cr)
			if i == 0 {
				return ar
			}
			failed = true
			break
		}
		ar.Cases = append(ar.Cases, cr)
		failed = failed || cr.Status == verdict.StatusError
	}
	var drifting []*CaseResult
	for _, cr := range ar.Cases {
		if cr.Drifted() {
			drifting = append(drifting, cr)
		}
	}
	st := c.state.Adapter(name)
	if len(drifting) == 0 {
		if !failed { // a clean cycle resets the count; one that could not look does not
			st.Consecutive, st.Escalated, st.LastDrift, st.Branch, st.PR, st.Issue = 0, false, "", "", "", ""
		}
		ar.Consecutive = st.Consecutive
		return ar
	}
	r.countDrift(st)
	if ctx.Err() != nil { // interrupted: nothing is published after the signal
		return ar
	}
	if err := r.publish(ctx, drifting); err != nil {
		r.unpublished(drifting, err)
		return ar
	}
	st.Branch, st.PR, st.Issue = ar.Branch, ar.PR.Ref(), ar.Issue.Ref()
	for _, cr := range drifting {
		r.outcome(cr)
	}
	return ar
}

// missingCredentials are the adapter's credential variables that are not
// set (or empty).
func (c *cycle) missingCredentials(a *cfgschema.Adapter) []string {
	var missing []string
	for _, v := range a.Real.Credentials {
		if val, ok := c.opts.lookup()(v); !ok || val == "" {
			missing = append(missing, v)
		}
	}
	return missing
}

// skip marks every case of an adapter without its credentials skipped.
func (c *cycle) skip(ar *AdapterResult, olds []*cassettes.Cassette, missing []string) {
	ar.Skipped = fmt.Sprintf("no credentials: %s not set", strings.Join(missing, ", "))
	c.logf("%s: skipped (%s)", ar.Name, ar.Skipped)
	for _, old := range olds {
		ar.Cases = append(ar.Cases, &CaseResult{Old: old, Status: verdict.StatusSkipped, Message: "adapter skipped: " + ar.Skipped + "; export it to refresh this adapter",
			NextStep: outcome.Command("cassette", "refresh", "--once", "--adapter", ar.Name)})
	}
}

// skipLoggedOut marks the cases of olds skipped because the adapter's tool
// says it is not logged in (cr is the first one's result); the adapter is
// skipped when none of its cases was re-recorded before.
func (c *cycle) skipLoggedOut(ar *AdapterResult, olds []*cassettes.Cassette, cr *CaseResult) {
	why := cr.loggedOut
	if len(ar.Cases) == 0 {
		ar.Skipped = why
	}
	c.logf("%s: skipped (%s)", ar.Name, why)
	for _, old := range olds {
		ar.Cases = append(ar.Cases, &CaseResult{Old: old, Status: verdict.StatusSkipped, Message: "adapter skipped: " + why, NextStep: cr.NextStep})
	}
}

// recorder is the options' Recorder, or the one that talks to the real
// services: the adapter's recording session (recording.Session), as
// `cassette record` re-records a cassette.
func (r *adapterRun) recorder() Recorder {
	if r.opts.Recorder != nil {
		return r.opts.Recorder
	}
	return sessionRecorder{recording.NewSession(r.opts.project(), r.res.Name, recording.SessionOptions{LookupEnv: r.opts.lookup()})}
}

// rerecord records one cassette again and compares it with the committed
// one: skipped (a mutating scenario), an error (the real side failed), a
// drift or a pass.
func (r *adapterRun) rerecord(ctx context.Context, old *cassettes.Cassette) *CaseResult {
	name := r.res.Name
	cr := &CaseResult{Old: old}
	if old.Mutating && !r.a.AllowMutating {
		cr.Status, cr.Message = verdict.StatusSkipped, fmt.Sprintf("scenario mutates the real service (mutating: true); not re-recorded (set adapters.%s.allow_mutating: true in cassette.yaml to refresh it)", name)
		return cr
	}
	if call := unsafeCall(old); call != "" && r.opts.DryRun && !r.opts.DryRunUnsafe {
		cr.Status = verdict.StatusSkipped
		cr.Message = "dry run: not re-recorded: it would " + call + ", which may change the real service (a dry run sends only GET, HEAD and OPTIONS requests; --rerecord-unsafe re-runs it against the real service and still pushes and opens nothing)"
		cr.NextStep = outcome.Command("cassette", "refresh", "--once", "--dry-run", "--rerecord-unsafe", "--adapter", name)
		r.logf("%s: %s", old.ID(), cr.Message)
		return cr
	}
	start := time.Now()
	got, err := r.rec.Rerecord(ctx, name, r.a, old)
	cr.Duration = time.Since(start)
	if got.Live.ExecutionMode != "" {
		live := got.Live
		cr.Live = &live
	}
	if errors.Is(err, recording.ErrNotLoggedIn) {
		ce := outcome.AsError(err)
		cr.loggedOut, cr.NextStep = ce.Message, ce.NextStep
		return cr
	}
	if err != nil {
		ce := outcome.AsError(err)
		cr.Status, cr.Reason, cr.Message = verdict.StatusError, ce.Reason, firstLine(ce.Error())
		cr.NextStep = cmp.Or(ce.NextStep, outcome.Command("cassette", "record", "--adapter", name, "--scenario", old.Scenario))
		r.logf("%s: cannot re-record: %s", old.ID(), cr.Message)
		return cr
	}
	cr.New = got.Cassette
	cr.New.Path = old.Path
	cr.Drifts, cr.Explain, cr.Sides = compare(old, cr.New, r.a, r.vopts)
	if cr.Drifted() {
		cr.Status, cr.Reason, cr.Message = verdict.StatusFail, outcome.ERealDrift, "the real service changed: "+cr.Drifts[0].Message
		r.logf("%s: drift (%d differences)", old.ID(), len(cr.Drifts))
	} else {
		cr.Status = verdict.StatusPass
		r.logf("%s: no drift", old.ID())
	}
	return cr
}

// unsafeCall is the first call re-recording c would make that may change
// the real service, in words ("send PUT /v1/pets/1", "run gh pr merge 7"),
// or "" when every call only reads (GET, HEAD, OPTIONS).
func unsafeCall(c *cassettes.Cassette) string {
	if c.Kind == cfgschema.KindCLI {
		if c.Input == nil {
			return "run its command"
		}
		return "run " + outcome.ShellJoin(append(strings.Fields(c.Input.Command), c.Input.Args...))
	}
	if method, path, ok := c.UnsafeRequest(); ok {
		return "send " + method + " " + path
	}
	return ""
}

// ReplayCommand is the command that records this adapter again without
// writing anywhere: a dry run, told to re-run what may change the real
// service when one of its cassettes does, so that it reproduces the
// cycle's recordings.
func (ar *AdapterResult) ReplayCommand() string {
	if ar.unsafe() {
		return outcome.Command("cassette", "refresh", "--once", "--dry-run", "--rerecord-unsafe", "--adapter", ar.Name)
	}
	return outcome.Command("cassette", "refresh", "--once", "--dry-run", "--adapter", ar.Name)
}

// unsafe reports whether re-recording one of the adapter's cassettes may
// change the real service.
func (ar *AdapterResult) unsafe() bool {
	return slices.ContainsFunc(ar.Cases, func(cr *CaseResult) bool { return unsafeCall(cr.Old) != "" })
}

// ReplayCommand is the command that records the cycle's adapters again
// without writing anywhere (see AdapterResult.ReplayCommand).
func (r *Result) ReplayCommand() string {
	if slices.ContainsFunc(r.Adapters, (*AdapterResult).unsafe) {
		return outcome.Command("cassette", "refresh", "--once", "--dry-run", "--rerecord-unsafe")
	}
	return outcome.Command("cassette", "refresh", "--once", "--dry-run")
}

// countDrift counts this cycle's drift once (a cycle run again at the same
// time does not count twice) and escalates at the threshold.
func (r *adapterRun) countDrift(st *AdapterState) {
	if stamp := r.now.UTC().Format(time.RFC3339Nano); st.LastDrift != stamp {
		st.Consecutive++
		st.LastDrift = stamp
	}
	r.res.Consecutive = st.Consecutive
	r.res.Escalated = st.Consecutive >= r.threshd
	st.Escalated = r.res.Escalated
}

// unpublished turns the drifting cases into errors of the step that
// failed to publish them.
func (r *adapterRun) unpublished(drifting []*CaseResult, err error) {
	ar := r.res
	ar.Err = outcome.AsError(err)
	r.logf("%s: %s", ar.Name, ar.Err.Error())
	for _, cr := range drifting {
		cr.Status, cr.Reason = verdict.StatusError, ar.Err.Reason
		cr.Message = "drift found, but the refresh could not be published: " + firstLine(ar.Err.Error())
		cr.NextStep = ar.Err.NextStep
	}
}

// outcome says what became of a published drifting case: a refresh PR to
// review, a fake to fix (the replay gate failed), an escalation, or a gate
// that could not run.
func (r *adapterRun) outcome(cr *CaseResult) {
	ar := r.res
	if g := cr.Gate; g != nil && g.Failed() && g.Reason.Exit() == outcome.ExitInfra {
		cr.Status, cr.Reason = verdict.StatusError, g.Reason
		cr.Message += "; refresh PR: " + ar.PR.Ref() + "; the replay gate could not run: " + firstLine(g.Message)
		cr.NextStep = outcome.Command("cassette", "verify", "--adapter", ar.Name)
		return
	}
	fakeFailed := cr.Gate != nil && cr.Gate.Failed()
	switch {
	case ar.Escalated:
		cr.Reason = outcome.EEscalated
		cr.Message = fmt.Sprintf("escalated to %s: drifting for %d cycles in a row; %s", ownersText(r.a.Owners), ar.Consecutive, cr.Message)
	case fakeFailed:
		cr.Reason = outcome.EFakeDrift
	}
	switch {
	case fakeFailed:
		cr.Message += "; the fake does not match the new cassette (" + firstLine(cr.Gate.Message) + "), see " + cmp.Or(ar.Issue.Ref(), "the fake-drift issue") +
			"; fetch " + ar.Branch + ", check it out and run " + cmp.Or(cr.gateReplay, outcome.Command("cassette", "verify", "--case", cr.Old.ID())) + " to reproduce it, then fix the fake"
		cr.NextStep = outcome.Command("git", "fetch", r.shown, ar.Branch)
	case ar.PR.Number == 0 && ar.PR.URL == "":
		cr.Message += "; refresh PR: " + ar.PR.Ref() + "; review the branch (git diff HEAD FETCH_HEAD once fetched), then merge it into " + r.base
		cr.NextStep = outcome.Command("git", "fetch", r.shown, ar.Branch)
	default:
		cr.Message += "; refresh PR: " + ar.PR.Ref() + "; review and merge it"
		cr.NextStep = outcome.Command("git", "fetch", r.shown, ar.Branch)
	}
	if r.opts.DryRun { // the branch was never pushed: the next step is the refresh that pushes it
		cr.NextStep = r.realRun()
	}
}

// realRun is the refresh of this adapter that pushes and opens what a dry
// run only showed.
func (r *adapterRun) realRun() string {
	words := []string{"cassette", "refresh", "--once", "--adapter", r.res.Name}
	if p := r.opts.Config.Path; p != "" && p != cfgschema.ConfigFile {
		words = append(words, "--config", p)
	}
	return outcome.Command(words...)
}

// compare diffs the re-recorded cassette (got) against the committed one
// (want), normalized, with verify's comparison; it also returns both sides
// as compared (nil when they were not).
func compare(want, got *cassettes.Cassette, a *cfgschema.Adapter, opts verify.Options) ([]verdict.Drift, string, *verify.Comparison) {
	kd, ok := opts.Kinds.Lookup(want.Kind)
	if !ok {
		kd = kind.HTTP() // a kind this cycle was not given: read as the format's default
	}
	if d := kd.Incomparable(want, got); d != nil {
		return []verdict.Drift{*d}, d.Message + "\n", nil
	}
	opts.Exact = true // reality against its recording: nothing it leaves out is a fake's choice
	sides, err := verify.CompareSides(verify.Case{Cassette: want, Adapter: a}, got, opts)
	if err != nil {
		return []verdict.Drift{{Class: "normalizers", Field: "normalizers", Message: err.Error()}}, err.Error() + "\n", nil
	}
	return sides.Drifts, sides.Explain, sides
}
