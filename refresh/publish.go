package refresh

import (
	"context"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/recorder"
	"github.com/cassette-dev/cassette/report"
	"github.com/cassette-dev/cassette/verify"
)

// Publishing an adapter's drift: the new cassettes on the refresh branch,
// the push, the replay gate, the refresh PR and the fake-drift issue.

// publish writes the drifting cassettes on the refresh branch, pushes it,
// opens or updates the PR, runs the replay gate and files the companion
// issue when the fake must change.
func (c *cycle) publish(ctx context.Context, ar *AdapterResult, a *cassettes.Adapter, drifting []*CaseResult, creds map[string]string, vopts verify.Options) error {
	o := &c.opts
	var existing *PR
	if o.Forge != nil {
		var err error
		if existing, err = o.Forge.OpenPR(ctx, ar.Name); err != nil {
			return err
		}
	}
	ar.Branch = Branch(ar.Name, c.date)
	if existing != nil {
		ar.Branch = existing.Branch
	}
	dir, cleanup, start, err := c.workdir(ctx, ar)
	if err != nil {
		return err
	}
	defer cleanup()
	saveOpts := recorder.NewRedactor(creds).SaveOptions()
	saveOpts.Root = dir // a symlinked adapter directory in the repository cannot send a write out of the worktree
	newPaths := map[*CaseResult]string{}
	for _, cr := range drifting {
		rel, err := c.relPath(cr.Old.Path)
		if err != nil {
			return err
		}
		k := *cr.New
		k.Path = filepath.Join(dir, rel)
		newPaths[cr] = k.Path
		ar.Files = append(ar.Files, filepath.ToSlash(rel))
		if prev, err := cassettes.Load(k.Path, cassettes.LoadOptions{Config: o.Config, Normalizers: o.registry()}); err == nil {
			if d, _ := compare(prev, &k, a, vopts); len(d) == 0 {
				continue // the branch already holds this recording (normalized): no churn
			}
		}
		if err := cassettes.Save(&k, saveOpts); err != nil {
			return err
		}
		if o.AfterWrite != nil {
			if err := o.AfterWrite(k.Path); err != nil {
				return err
			}
		}
	}
	title := Title(c.date, ar.Name)
	msg := CommitMessage(title, drifting)
	if o.DryRun {
		c.logf("dry run: would commit %s on %s and push it to %s", strings.Join(ar.Files, ", "), ar.Branch, c.shown)
	} else {
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
		if ar.Commit != "" || existing == nil || start.fromBase {
			head, _ := o.Git.run(ctx, dir, nil, "rev-parse", "HEAD")
			if err := o.Git.Push(ctx, c.remote, strings.TrimSpace(head), ar.Branch); err != nil {
				return err
			}
			ar.Pushed = true
			c.logf("%s: pushed %s to %s", ar.Name, ar.Branch, c.shown)
		}
	}
	// The replay gate, on the cassettes as they are on the branch.
	var cases []verify.Case
	gateOf := map[int]*CaseResult{}
	for _, cr := range ar.Cases {
		k := cr.Old
		if p, ok := newPaths[cr]; ok {
			loaded, err := cassettes.Load(p, cassettes.LoadOptions{Config: o.Config, Normalizers: o.registry(), Credentials: creds})
			if err != nil {
				return err
			}
			k = loaded
			gateOf[len(cases)] = cr
		} else if cr.Status == report.StatusSkipped || cr.Status == report.StatusError {
			continue
		}
		cases = append(cases, verify.Case{Cassette: k, Adapter: a})
	}
	gate := o.Gate
	if gate == nil {
		gate = func(ctx context.Context, cases []verify.Case) *verify.Outcome { return verify.Run(ctx, cases, vopts) }
	}
	outcome := gate(ctx, cases)
	var gateFailed []verify.Result
	for i := range outcome.Results {
		r := outcome.Results[i]
		if cr, ok := gateOf[i]; ok {
			cr.Gate = &r
		}
		if r.Failed() && r.Reason.Exit() != cassettes.ExitInfra {
			gateFailed = append(gateFailed, r) // the fake answered wrongly; a fake that did not start is no fake drift
		}
	}
	body := PRBody(PRText{Date: c.date, Adapter: ar.Name, Branch: ar.Branch, Base: c.base, Drifting: drifting, Escalated: ar.Escalated,
		Owners: a.Owners, Consecutive: ar.Consecutive, GateFailed: len(gateFailed)})
	labels := append(append([]string{LabelRefresh}, o.Labels...), o.Config.Refresh.Labels...)
	if ar.Escalated {
		labels = append(labels, LabelEscalated)
	}
	req := PRRequest{Adapter: ar.Name, Branch: ar.Branch, Base: c.base, Title: title, Body: body, Labels: dedupe(labels), Existing: existing}
	if o.DryRun || o.Forge == nil {
		verb := "open"
		if existing != nil {
			verb = "update " + existing.Ref()
		}
		c.logf("dry run: would %s the refresh PR %q (%s → %s)", verb, title, ar.Branch, c.base)
		ar.PR = &PR{Branch: ar.Branch, Title: title, Body: body}
		if existing != nil {
			ar.PR.Number, ar.PR.URL = existing.Number, existing.URL
		}
	} else {
		if ar.PR, err = o.Forge.PublishPR(ctx, req); err != nil {
			return err
		}
		c.logf("%s: refresh PR %s", ar.Name, ar.PR.Ref())
	}
	if len(gateFailed) == 0 {
		return nil
	}
	ireq := IssueRequest{Adapter: ar.Name, Title: IssueTitle(ar.Name), Labels: []string{LabelFakeDrift},
		Body: IssueBody(IssueText{Adapter: ar.Name, PR: ar.PR, Remote: c.shown, Failed: gateFailed, Escalated: ar.Escalated, Owners: a.Owners, Consecutive: ar.Consecutive})}
	if ar.Escalated {
		ireq.Labels = append(ireq.Labels, LabelEscalated)
	}
	if o.DryRun || o.Forge == nil {
		c.logf("dry run: would file or update the issue %q", ireq.Title)
		ar.Issue = &Issue{Title: ireq.Title, Body: ireq.Body}
		return nil
	}
	if ar.Issue, err = o.Forge.PublishIssue(ctx, ireq); err != nil {
		return err
	}
	c.logf("%s: fake-drift issue %s", ar.Name, ar.Issue.Ref())
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
