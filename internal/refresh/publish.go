package refresh

import (
	"context"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/internal/verdict"
	"github.com/cassette-dev/cassette/internal/verify"
)

// Publishing an adapter's drift: the new cassettes on the refresh branch,
// the push, the replay gate, the refresh PR and the fake-drift issue. In a
// dry run each step that would write to the remote or the forge says what
// it would do instead.

// publish writes the drifting cassettes on the refresh branch, pushes it,
// opens or updates the PR, runs the replay gate and files the companion
// issue when the fake must change.
func (r *adapterRun) publish(ctx context.Context, drifting []*CaseResult) error {
	existing, err := r.openPR(ctx)
	if err != nil {
		return err
	}
	dir, cleanup, start, err := r.workdir(ctx, r.res)
	if err != nil {
		return err
	}
	defer cleanup()
	written, err := r.write(dir, drifting)
	if err != nil {
		return err
	}
	title := Title(r.date, r.res.Name)
	if err := r.commitAndPush(ctx, dir, CommitMessage(title, drifting), existing == nil || start.fromBase); err != nil {
		return err
	}
	gateFailed, err := r.gate(ctx, dir, written)
	if err != nil {
		return err
	}
	if err := r.publishPR(ctx, title, drifting, existing, len(gateFailed)); err != nil {
		return err
	}
	if len(gateFailed) == 0 {
		return nil
	}
	return r.publishIssue(ctx, gateFailed)
}

// openPR finds the adapter's open refresh PR, if any, and sets the branch
// the new cassettes go to: the PR's, or a new one for this date.
func (r *adapterRun) openPR(ctx context.Context) (*PR, error) {
	var existing *PR
	if r.opts.Forge != nil {
		var err error
		if existing, err = r.opts.Forge.OpenPR(ctx, r.res.Name); err != nil {
			return nil, err
		}
	}
	r.res.Branch = Branch(r.res.Name, r.date)
	if existing != nil {
		r.res.Branch = existing.Branch
	}
	return existing, nil
}

// write saves the drifting cases' new cassettes under dir, at their paths
// in the repository, and returns where each was written. A cassette the
// branch already holds (equal once normalized) is not written again: no
// churn.
func (r *adapterRun) write(dir string, drifting []*CaseResult) (map[*CaseResult]string, error) {
	o := &r.opts
	saveOpts := cassettes.SaveOptionsFor(redact.New(nil, r.creds))
	saveOpts.Root = dir // a symlinked adapter directory in the repository cannot send a write out of the worktree
	written := map[*CaseResult]string{}
	for _, cr := range drifting {
		rel, err := r.relPath(cr.Old.Path)
		if err != nil {
			return nil, err
		}
		k := *cr.New
		k.Path = filepath.Join(dir, rel)
		written[cr] = k.Path
		r.res.Files = append(r.res.Files, filepath.ToSlash(rel))
		if prev, err := cassettes.Load(k.Path, o.project().LoadOptions(nil)); err == nil {
			if d, _, _ := compare(prev, &k, r.a, r.vopts); len(d) == 0 {
				continue
			}
		}
		if err := cassettes.Save(&k, saveOpts); err != nil {
			return nil, err
		}
		if o.AfterWrite != nil {
			if err := o.AfterWrite(k.Path); err != nil {
				return nil, err
			}
		}
	}
	return written, nil
}

// commitAndPush commits the new cassettes in dir and pushes the branch
// when there is something new for the remote: a new commit, a branch
// without a PR yet, or one started again from the base (mustPush).
func (r *adapterRun) commitAndPush(ctx context.Context, dir, msg string, mustPush bool) error {
	o, ar := &r.opts, r.res
	if o.DryRun {
		r.logf("dry run: would commit %s on %s and push it to %s", strings.Join(ar.Files, ", "), ar.Branch, r.shown)
		return nil
	}
	if _, err := o.Git.run(ctx, dir, nil, append([]string{"add", "--"}, ar.Files...)...); err != nil {
		return gitStepError("stage the new cassettes", err)
	}
	if _, err := o.Git.run(ctx, dir, nil, "diff", "--cached", "--quiet"); err != nil {
		if _, err := o.Git.run(ctx, dir, nil, "commit", "--quiet", "--no-verify", "-m", msg); err != nil {
			return gitStepError("commit the new cassettes", err)
		}
		out, _ := o.Git.run(ctx, dir, nil, "rev-parse", "HEAD")
		ar.Commit = strings.TrimSpace(out)
	}
	if ar.Commit == "" && !mustPush {
		return nil
	}
	head, _ := o.Git.run(ctx, dir, nil, "rev-parse", "HEAD")
	if err := o.Git.Push(ctx, r.remote, strings.TrimSpace(head), ar.Branch); err != nil {
		return err
	}
	ar.Pushed = true
	r.logf("%s: pushed %s to %s", ar.Name, ar.Branch, r.shown)
	return nil
}

// gate runs the replay gate on the adapter's cassettes as they are on the
// branch (the new ones where written, the committed ones otherwise; not
// the skipped and failed ones), sets each new case's Gate, and returns the
// results where the fake answered wrongly (a fake that did not start is no
// fake drift).
func (r *adapterRun) gate(ctx context.Context, dir string, written map[*CaseResult]string) ([]GateFailure, error) {
	o := &r.opts
	if r.a.InProcessOnly() && o.Gate == nil {
		return r.inProcessGate(ctx, dir, written), nil
	}
	var cases []verify.Case
	gateOf := map[int]*CaseResult{}
	for _, cr := range r.res.Cases {
		k := cr.Old
		if p, ok := written[cr]; ok {
			loaded, err := cassettes.Load(p, o.project().LoadOptions(r.creds))
			if err != nil {
				return nil, err
			}
			k = loaded
			gateOf[len(cases)] = cr
		} else if cr.Status == verdict.StatusSkipped || cr.Status == verdict.StatusError {
			continue
		}
		cases = append(cases, verify.Case{Cassette: k, Adapter: r.a})
	}
	gate := o.Gate
	if gate == nil {
		gate = func(ctx context.Context, cases []verify.Case) *verify.Outcome { return verify.Run(ctx, cases, r.vopts) }
	}
	gated := gate(ctx, cases)
	var failed []GateFailure
	for i := range gated.Results {
		res := gated.Results[i]
		if cr, ok := gateOf[i]; ok {
			cr.Gate = &res
		}
		if res.Failed() && res.Reason.Exit() != outcome.ExitInfra {
			failed = append(failed, GateFailure{ID: res.Case.ID(), Reason: string(res.Reason), Message: firstLine(res.Message),
				Replay: outcome.Command("cassette", "verify", "--case", res.Case.ID())})
		}
	}
	r.res.Gate = &GateReport{Kind: GateVerify, Command: outcome.Command("cassette", "verify", "--adapter", r.res.Name), Checked: len(gated.Results), Failures: failed}
	return failed, nil
}

// publishPR opens or updates the refresh PR (in a dry run, or without a
// forge, only its text is made).
func (r *adapterRun) publishPR(ctx context.Context, title string, drifting []*CaseResult, existing *PR, gateFailed int) error {
	o, ar := &r.opts, r.res
	body := PRBody(PRText{Date: r.date, Adapter: ar.Name, Branch: ar.Branch, Base: r.base, Drifting: drifting, Escalated: ar.Escalated,
		Owners: r.a.Owners, Consecutive: ar.Consecutive, GateFailed: gateFailed, Gate: ar.Gate})
	if o.DryRun || o.Forge == nil {
		verb := "open"
		if existing != nil {
			verb = "update " + existing.Ref()
		}
		r.logf("dry run: would %s the refresh PR %q (%s → %s)", verb, title, ar.Branch, r.base)
		ar.PR = &PR{Branch: ar.Branch, Title: title, Body: body}
		if existing != nil {
			ar.PR.Number, ar.PR.URL = existing.Number, existing.URL
		}
		return nil
	}
	labels := append(append([]string{LabelRefresh}, o.Labels...), o.Config.Refresh.Labels...)
	if ar.Escalated {
		labels = append(labels, LabelEscalated)
	}
	var err error
	ar.PR, err = o.Forge.PublishPR(ctx, PRRequest{Adapter: ar.Name, Branch: ar.Branch, Base: r.base, Title: title, Body: body, Labels: dedupe(labels), Existing: existing})
	if err != nil {
		return err
	}
	r.logf("%s: refresh PR %s", ar.Name, ar.PR.Ref())
	return nil
}

// publishIssue files or updates the fake-drift issue of the cases the
// fake failed (in a dry run, or without a forge, only its text is made).
func (r *adapterRun) publishIssue(ctx context.Context, failed []GateFailure) error {
	o, ar := &r.opts, r.res
	req := IssueRequest{Adapter: ar.Name, Title: IssueTitle(ar.Name), Labels: []string{LabelFakeDrift},
		Body: IssueBody(IssueText{Adapter: ar.Name, PR: ar.PR, Remote: r.shown, Failures: failed, Gate: ar.Gate, Escalated: ar.Escalated, Owners: r.a.Owners, Consecutive: ar.Consecutive})}
	if ar.Escalated {
		req.Labels = append(req.Labels, LabelEscalated)
	}
	if o.DryRun || o.Forge == nil {
		r.logf("dry run: would file or update the issue %q", req.Title)
		ar.Issue = &Issue{Title: req.Title, Body: req.Body}
		return nil
	}
	var err error
	if ar.Issue, err = o.Forge.PublishIssue(ctx, req); err != nil {
		return err
	}
	r.logf("%s: fake-drift issue %s", ar.Name, ar.Issue.Ref())
	return nil
}

func dedupe(xs []string) []string {
	var out []string
	for _, x := range xs {
		if x != "" && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
