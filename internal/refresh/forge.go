package refresh

import (
	"context"
	"sort"
	"strconv"
	"strings"
)

// BranchPrefix starts every refresh branch: cassette-refresh/<adapter>/<date>.
const BranchPrefix = "cassette-refresh/"

// The labels refresh puts on what it opens.
const (
	LabelRefresh   = "contract-refresh"
	LabelFakeDrift = "fake-drift"
	LabelEscalated = "cassette-escalated"
)

// Branch is the refresh branch of an adapter for a cycle date.
func Branch(adapter, date string) string { return BranchPrefix + adapter + "/" + date }

// PR is a refresh pull request as a forge knows it. A forge without an API
// knows only the branch; Number and URL are then empty.
type PR struct {
	Number int
	URL    string
	Branch string
	Title  string
	Body   string
}

// Ref renders the PR for messages: its URL, #number, or the branch.
func (p *PR) Ref() string {
	switch {
	case p == nil:
		return ""
	case p.URL != "":
		return p.URL
	case p.Number > 0:
		return "#" + strconv.Itoa(p.Number)
	}
	return "branch " + p.Branch
}

// PRRequest opens or updates a refresh PR.
type PRRequest struct {
	Adapter  string
	Branch   string
	Base     string
	Title    string
	Body     string
	Labels   []string
	Existing *PR // update this one instead of opening another
}

// Issue is a fake-drift companion issue.
type Issue struct {
	Number int
	URL    string
	Title  string
	Body   string
}

// Ref renders the issue for messages.
func (i *Issue) Ref() string {
	switch {
	case i == nil:
		return ""
	case i.URL != "":
		return i.URL
	case i.Number > 0:
		return "#" + strconv.Itoa(i.Number)
	}
	return i.Title
}

// IssueRequest files or updates the fake-drift companion issue of an adapter.
type IssueRequest struct {
	Adapter string
	Title   string
	Body    string
	Labels  []string
}

// Forge is where refresh PRs and companion issues go. Branches are pushed
// with git whatever the forge; a forge only opens and finds PRs and issues.
type Forge interface {
	// Kind is "github" or "git".
	Kind() string
	// OpenPR returns the adapter's open refresh PR, or nil.
	OpenPR(ctx context.Context, adapter string) (*PR, error)
	// PublishPR opens a refresh PR, or updates req.Existing.
	PublishPR(ctx context.Context, req PRRequest) (*PR, error)
	// PublishIssue files the adapter's fake-drift issue, or updates the
	// open one.
	PublishIssue(ctx context.Context, req IssueRequest) (*Issue, error)
}

// GitForge is the forge of a plain git remote: branches are pushed to the
// remote, and what a PR or an issue would say is returned for the report
// (a forge without an API cannot hold them). An open refresh PR is a
// refresh branch of the adapter on the remote that the base branch has not
// merged.
type GitForge struct {
	Git    *Git
	Remote string
	Base   string // base branch, to tell a merged refresh branch from an open one
}

// Kind implements Forge.
func (f *GitForge) Kind() string { return "git" }

// OpenPR implements Forge: the newest unmerged refresh branch of the adapter.
func (f *GitForge) OpenPR(ctx context.Context, adapter string) (*PR, error) {
	branches, err := f.Git.RemoteBranches(ctx, f.Remote, BranchPrefix+adapter+"/")
	if err != nil {
		return nil, err
	}
	names := sortedNames(branches)
	sort.Sort(sort.Reverse(sort.StringSlice(names)))
	var base string
	if f.Base != "" {
		if base, err = f.Git.FetchRef(ctx, f.Remote, f.Base); err != nil {
			return nil, err
		}
	}
	for _, name := range names {
		if strings.Contains(strings.TrimPrefix(name, BranchPrefix+adapter+"/"), "/") {
			continue
		}
		if base != "" {
			if _, err := f.Git.FetchRef(ctx, f.Remote, name); err != nil {
				return nil, err
			}
			if _, err := f.Git.Run(ctx, "merge-base", "--is-ancestor", branches[name], base); err == nil {
				continue // merged: not open any more
			}
		}
		return &PR{Branch: name}, nil
	}
	return nil, nil
}

// PublishPR implements Forge: nothing to call; the PR is the branch.
func (f *GitForge) PublishPR(_ context.Context, req PRRequest) (*PR, error) {
	return &PR{Branch: req.Branch, Title: req.Title, Body: req.Body + labelsLine(req.Labels)}, nil
}

// labelsLine says in the text the labels a git forge cannot set
// (cassette-escalated among them): whoever opens the PR from the text
// sets them.
func labelsLine(labels []string) string {
	if len(labels) == 0 {
		return ""
	}
	codes := make([]string, len(labels))
	for i, l := range labels {
		codes[i] = mdCode(l)
	}
	return "\nLabels: " + strings.Join(codes, ", ") + "\n"
}

// PublishIssue implements Forge: nothing to call; the report holds it.
func (f *GitForge) PublishIssue(_ context.Context, req IssueRequest) (*Issue, error) {
	return &Issue{Title: req.Title, Body: req.Body + labelsLine(req.Labels)}, nil
}
