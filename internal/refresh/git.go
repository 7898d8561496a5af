package refresh

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
)

// DefaultAuthorName and DefaultAuthorEmail are the identity refresh commits
// are made with when none is configured, so that a fresh CI machine with no
// git identity can commit.
const (
	DefaultAuthorName  = "cassette-refresh"
	DefaultAuthorEmail = "cassette-refresh@users.noreply.github.com"
)

// Git runs the real git binary in one repository.
type Git struct {
	Dir   string // a directory inside the work tree
	Name  string // commit identity; "" is DefaultAuthorName
	Email string // "" is DefaultAuthorEmail
	// Env is added to the inherited environment of every git process
	// (tests set HOME and GIT_CONFIG_NOSYSTEM; the GitHub forge sets an
	// authorization header through GIT_CONFIG_COUNT, never on the command
	// line).
	Env []string
	// Secrets are values scrubbed from every error message (the forge token).
	Secrets map[string]string
}

// gitError is a failed git command: the arguments and what git said.
type gitError struct {
	Args   []string
	Stderr string
	Code   int
}

func (e *gitError) Error() string {
	return fmt.Sprintf("git %s: exit %d: %s", strings.Join(e.Args, " "), e.Code, strings.TrimSpace(e.Stderr))
}

var userinfo = regexp.MustCompile(`(https?://)[^/@\s]+@`)

// scrub removes credentials from git output: declared values and the
// userinfo part of URLs.
func (g *Git) scrub(s string) string {
	s = userinfo.ReplaceAllString(s, "${1}"+redact.Redacted+"@")
	return redact.RedactString(s, g.Secrets)
}

// run runs git with args in dir (g.Dir when dir is ""), with stdin, and
// returns its standard output.
func (g *Git) run(ctx context.Context, dir string, stdin []byte, args ...string) (string, error) {
	if dir == "" {
		dir = g.Dir
	}
	name, email := g.Name, g.Email
	if name == "" {
		name = DefaultAuthorName
	}
	if email == "" {
		email = DefaultAuthorEmail
	}
	full := append([]string{"-c", "user.name=" + name, "-c", "user.email=" + email, "-c", "commit.gpgsign=false"}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C"), g.Env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		code := -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		msg := errb.String()
		if msg == "" {
			msg = err.Error()
		}
		shown := make([]string, len(args))
		for i, a := range args {
			shown[i] = g.scrub(a) // a remote URL argument may carry a token
		}
		return out.String(), &gitError{Args: shown, Stderr: g.scrub(msg), Code: code}
	}
	return out.String(), nil
}

// Run runs a git command in the repository and returns its trimmed output.
func (g *Git) Run(ctx context.Context, args ...string) (string, error) {
	out, err := g.run(ctx, "", nil, args...)
	return strings.TrimSpace(out), err
}

// TopLevel is the root of the work tree.
func (g *Git) TopLevel(ctx context.Context) (string, error) {
	return g.Run(ctx, "rev-parse", "--show-toplevel")
}

// CurrentBranch is the checked-out branch ("" when detached).
func (g *Git) CurrentBranch(ctx context.Context) string {
	b, err := g.Run(ctx, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil {
		return ""
	}
	return b
}

// FetchRef fetches one branch of remote and returns its commit, or "" when
// the remote has no such branch.
func (g *Git) FetchRef(ctx context.Context, remote, branch string) (string, error) {
	out, err := g.Run(ctx, "ls-remote", "--heads", remote, "refs/heads/"+branch)
	if err != nil {
		return "", g.remoteError(remote, "cannot list the branches of", err)
	}
	if out == "" {
		return "", nil
	}
	if _, err := g.Run(ctx, "fetch", "--quiet", "--no-tags", remote, "refs/heads/"+branch); err != nil {
		return "", g.remoteError(remote, "cannot fetch "+branch+" from", err)
	}
	return g.Run(ctx, "rev-parse", "FETCH_HEAD^{commit}")
}

// RemoteBranches lists the branches of remote under prefix (name → commit).
func (g *Git) RemoteBranches(ctx context.Context, remote, prefix string) (map[string]string, error) {
	out, err := g.Run(ctx, "ls-remote", "--heads", remote, "refs/heads/"+prefix+"*")
	if err != nil {
		return nil, g.remoteError(remote, "cannot list the branches of", err)
	}
	res := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		sha, ref, ok := strings.Cut(strings.TrimSpace(line), "\t")
		if ok {
			res[strings.TrimPrefix(ref, "refs/heads/")] = sha
		}
	}
	return res, nil
}

// Push pushes commit to remote's branch (no force: a branch someone else
// moved is rejected, never overwritten). Two refusals are told apart: a
// branch that moved on the remote (non-fast-forward: see who moved it),
// and a server-side hook or rule that declines the push (the remote's
// policy: what it said is in the message, and nobody moved anything).
func (g *Git) Push(ctx context.Context, remote, commit, branch string) error {
	status, err := g.Run(ctx, "push", "--quiet", "--porcelain", remote, commit+":refs/heads/"+branch)
	if err == nil {
		return nil
	}
	ge, _ := err.(*gitError)
	if ge == nil {
		return g.remoteError(remote, "cannot push "+branch+" to", err)
	}
	shown := g.scrub(remote)
	msg := fmt.Errorf("%s", g.scrub(err.Error()))
	// --porcelain: "!	SRC:DST	[remote rejected] (pre-receive hook declined)"
	// or "[rejected] (non-fast-forward)" on stdout; the hook's words on stderr.
	switch {
	case strings.Contains(status, "[remote rejected]") || strings.Contains(ge.Stderr, "hook declined") || strings.Contains(ge.Stderr, "GH006"):
		said := remoteSaid(g.scrub(ge.Stderr))
		return &outcome.Error{Reason: outcome.EPushRejected, Err: msg,
			Message: fmt.Sprintf("the remote %s declined the push of %s: a server-side hook or rule refused it (the remote's policy; nobody moved the branch)%s; ask the remote's owner to let this machine push %s* branches, or point refresh.forge in cassette.yaml at a remote that does, then run the refresh again",
				shown, branch, said, BranchPrefix),
			NextStep: outcome.Command("cassette", "refresh", "--once")}
	case strings.Contains(status, "[rejected]") || strings.Contains(ge.Stderr, "rejected") || strings.Contains(ge.Stderr, "non-fast-forward") || strings.Contains(ge.Stderr, "fetch first"):
		return &outcome.Error{Reason: outcome.EPushRejected, Err: msg,
			Message:  fmt.Sprintf("the remote %s rejected the push of %s: the branch moved there since it was fetched; see who moved the branch (git log FETCH_HEAD once fetched), delete it or merge its PR, then run cassette refresh --once again", shown, branch),
			NextStep: outcome.Command("git", "fetch", shown, branch)}
	}
	return g.remoteError(remote, "cannot push "+branch+" to", err)
}

// remoteSaid is what the remote's hook printed (git's "remote: " lines),
// as one clause for a message: `; it said: "…"`, or "" when it said
// nothing.
func remoteSaid(stderr string) string {
	var said []string
	for _, line := range strings.Split(stderr, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "remote:"); ok && strings.TrimSpace(rest) != "" {
			said = append(said, strings.TrimSpace(rest))
		}
	}
	if len(said) == 0 {
		return ""
	}
	return "; it said: " + strconvQuote(strings.Join(said, " / "))
}

func strconvQuote(s string) string {
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return fmt.Sprintf("%q", s)
}

func (g *Git) remoteError(remote, what string, err error) error {
	remote = g.scrub(remote) // a remote URL may carry a token
	return &outcome.Error{Reason: outcome.EForge, Message: fmt.Sprintf("%s the remote %s (check that it exists and that this machine may push to it: refresh.forge.remote in cassette.yaml)", what, remote), Err: err,
		NextStep: outcome.Command("git", "ls-remote", remote)}
}

func basicAuth(user, pass string) string {
	return base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
}
