package refresh

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-github/v92/github"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
)

// GitHub is the forge of a GitHub repository, through its REST API
// (go-github): refresh PRs are found by their head branch, fake-drift issues
// by their label and title.
type GitHub struct {
	Client      *github.Client
	Owner, Repo string
	token       string
	host        string // where git pushes: https://github.com/ or the Enterprise host
}

// NewGitHub returns the GitHub forge of repo ("owner/name"), authenticated
// with token; apiURL "" is https://api.github.com/ (a GitHub Enterprise or
// test server otherwise). hc nil is a default client.
func NewGitHub(repo, token, apiURL string, hc *http.Client) (*GitHub, error) {
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return nil, outcome.Errorf(outcome.ECfgParse, outcome.Command("cassette", "validate"), "refresh.forge.repo %q: expected owner/name (set it in cassette.yaml)", repo)
	}
	if token == "" {
		return nil, outcome.Errorf(outcome.EMissingConfig, outcome.Command("cassette", "refresh", "--once"),
			"the github forge needs a token that may push branches and open PRs and issues: the variable named by refresh.forge.token_env is not set")
	}
	opts := []github.ClientOptionsFunc{github.WithAuthToken(token), github.WithUserAgent("cassette-refresh")}
	if hc != nil {
		opts = append(opts, github.WithHTTPClient(hc))
	}
	if apiURL != "" {
		u := strings.TrimSuffix(apiURL, "/") + "/"
		opts = append(opts, github.WithURLs(&u, &u))
	}
	c, err := github.NewClient(opts...)
	if err != nil {
		return nil, &outcome.Error{Reason: outcome.ECfgParse, Message: "cannot set up the GitHub client (check refresh.forge.api_url in cassette.yaml)", Err: err, NextStep: outcome.Command("cassette", "validate")}
	}
	return &GitHub{Client: c, Owner: owner, Repo: name, token: token, host: gitHost(apiURL)}, nil
}

// gitHost is the HTTPS origin git pushes to: github.com, or a GitHub
// Enterprise server's own host (its API lives under /api/v3 there).
func gitHost(apiURL string) string {
	u, err := url.Parse(apiURL)
	if apiURL == "" || err != nil || u.Host == "" || u.Host == "api.github.com" {
		return "https://github.com/"
	}
	return u.Scheme + "://" + u.Host + "/"
}

// Kind implements Forge.
func (g *GitHub) Kind() string { return "github" }

// PushEnv returns the environment that lets git push to github.com over
// HTTPS with the token, as actions/checkout does: an Authorization header
// set through GIT_CONFIG_COUNT, so the token never appears on a command line.
func (g *GitHub) PushEnv() []string {
	return []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http." + g.host + ".extraheader",
		"GIT_CONFIG_VALUE_0=AUTHORIZATION: basic " + basicAuth("x-access-token", g.token)}
}

// OpenPR implements Forge: the open PR whose head is a refresh branch of
// the adapter (newest first, as GitHub lists them).
func (g *GitHub) OpenPR(ctx context.Context, adapter string) (*PR, error) {
	opts := &github.PullRequestListOptions{State: "open", ListOptions: github.ListOptions{PerPage: 100}}
	for {
		prs, resp, err := g.Client.PullRequests.List(ctx, g.Owner, g.Repo, opts)
		if err != nil {
			return nil, g.apiError("list the open pull requests of", err)
		}
		for _, p := range prs {
			ref := p.GetHead().GetRef()
			if strings.HasPrefix(ref, BranchPrefix+adapter+"/") {
				return &PR{Number: p.GetNumber(), URL: p.GetHTMLURL(), Branch: ref, Title: p.GetTitle(), Body: p.GetBody()}, nil
			}
		}
		if resp == nil || resp.NextPage == 0 {
			return nil, nil
		}
		opts.Page = resp.NextPage
	}
}

// PublishPR implements Forge.
func (g *GitHub) PublishPR(ctx context.Context, req PRRequest) (*PR, error) {
	var p *github.PullRequest
	var err error
	if req.Existing != nil && req.Existing.Number > 0 {
		p, _, err = g.Client.PullRequests.Edit(ctx, g.Owner, g.Repo, req.Existing.Number, &github.PullRequest{Title: &req.Title, Body: &req.Body})
		if err != nil {
			return nil, g.apiError(fmt.Sprintf("update pull request #%d of", req.Existing.Number), err)
		}
	} else {
		p, _, err = g.Client.PullRequests.Create(ctx, g.Owner, g.Repo, github.CreatePullRequest{Title: &req.Title, Head: req.Branch, Base: req.Base, Body: &req.Body})
		if err != nil {
			return nil, g.apiError("open a pull request on", err)
		}
	}
	if len(req.Labels) > 0 {
		if _, _, err := g.Client.Issues.AddLabelsToIssue(ctx, g.Owner, g.Repo, p.GetNumber(), req.Labels); err != nil {
			return nil, g.apiError(fmt.Sprintf("label pull request #%d of", p.GetNumber()), err)
		}
	}
	return &PR{Number: p.GetNumber(), URL: p.GetHTMLURL(), Branch: req.Branch, Title: req.Title, Body: req.Body}, nil
}

// PublishIssue implements Forge: the open issue labelled LabelFakeDrift
// with the same title is updated; otherwise one is filed.
func (g *GitHub) PublishIssue(ctx context.Context, req IssueRequest) (*Issue, error) {
	opts := &github.IssueListByRepoOptions{State: "open", Labels: []string{LabelFakeDrift}, ListOptions: github.ListOptions{PerPage: 100}}
	var found *github.Issue
	for found == nil {
		list, resp, err := g.Client.Issues.ListByRepo(ctx, g.Owner, g.Repo, opts)
		if err != nil {
			return nil, g.apiError("list the open issues of", err)
		}
		for _, is := range list {
			if !is.IsPullRequest() && is.GetTitle() == req.Title {
				found = is
				break
			}
		}
		if resp == nil || resp.NextPage == 0 {
			break
		}
		opts.ListOptions.Page = resp.NextPage
	}
	var is *github.Issue
	var err error
	if found != nil {
		is, _, err = g.Client.Issues.Update(ctx, g.Owner, g.Repo, found.GetNumber(), github.UpdateIssueRequest{Body: &req.Body})
		if err == nil && len(req.Labels) > 0 {
			_, _, err = g.Client.Issues.AddLabelsToIssue(ctx, g.Owner, g.Repo, found.GetNumber(), req.Labels)
		}
		if err != nil {
			return nil, g.apiError(fmt.Sprintf("update issue #%d of", found.GetNumber()), err)
		}
	} else {
		is, _, err = g.Client.Issues.Create(ctx, g.Owner, g.Repo, github.CreateIssueRequest{Title: req.Title, Body: &req.Body, Labels: req.Labels})
		if err != nil {
			return nil, g.apiError("file an issue on", err)
		}
	}
	return &Issue{Number: is.GetNumber(), URL: is.GetHTMLURL(), Title: req.Title, Body: req.Body}, nil
}

// apiError classifies a GitHub API failure: E_RATE_LIMIT for rate limits,
// E_FORGE otherwise; the token never appears in it.
func (g *GitHub) apiError(what string, err error) error {
	reason := outcome.EForge
	next := outcome.Command("gh", "api", "repos/"+g.Owner+"/"+g.Repo)
	advice := "check that the token in refresh.forge.token_env may read and write pull requests and issues, then run cassette refresh --once again"
	var rl *github.RateLimitError
	var arl *github.AbuseRateLimitError
	if errors.As(err, &rl) || errors.As(err, &arl) {
		reason = outcome.ERateLimit
		next = outcome.Command("gh", "api", "rate_limit")
		advice = "wait for the GitHub rate limit to reset, then run cassette refresh --once again"
	}
	msg := redact.RedactString(err.Error(), map[string]string{"token": g.token})
	return &outcome.Error{Reason: reason, Message: fmt.Sprintf("GitHub API: cannot %s %s/%s (%s)", what, g.Owner, g.Repo, advice), Err: errors.New(msg), NextStep: next}
}
