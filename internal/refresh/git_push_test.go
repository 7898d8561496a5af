package refresh

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// TestPushRefusals: a push a server-side hook declines says so, with
// what the hook said, and does not send the user to look for who moved
// the branch; a push onto a branch that moved on the remote does. Both
// against a real bare repository.
func TestPushRefusals(t *testing.T) {
	ctx := context.Background()
	env := []string{"GIT_CONFIG_NOSYSTEM=1", "HOME=" + t.TempDir()}
	remote := filepath.Join(t.TempDir(), "remote.git")
	g := &Git{Dir: t.TempDir(), Env: env}
	for _, args := range [][]string{{"init", "-q", "--bare", remote}, {"init", "-q"}, {"commit", "-q", "--allow-empty", "-m", "one"}, {"commit", "-q", "--allow-empty", "-m", "two"}} {
		if _, err := g.Run(ctx, args...); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Push(ctx, remote, "HEAD", "moved"); err != nil {
		t.Fatal(err)
	}
	moved := g.Push(ctx, remote, "HEAD~1", "moved") // not a fast-forward of what is there
	hook := filepath.Join(remote, "hooks", "pre-receive")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\necho 'GH006: Protected branch update failed' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	declined := g.Push(ctx, remote, "HEAD", "new")

	for _, c := range []struct {
		name     string
		err      error
		next     string
		has, not []string
	}{
		{"moved", moved, "git fetch " + remote + " moved", []string{"see who moved the branch"}, []string{"declined"}},
		{"declined", declined, "cassette refresh --once", []string{"declined the push of new", "server-side hook", `it said: "GH006: Protected branch update failed"`}, []string{"who moved"}},
	} {
		ce := outcome.AsError(c.err)
		if c.err == nil || ce.Reason != outcome.EPushRejected || ce.NextStep != c.next {
			t.Errorf("%s: %v (next: %s), want E_PUSH_REJECTED and next %s", c.name, c.err, ce.NextStep, c.next)
			continue
		}
		for _, s := range c.has {
			if !strings.Contains(ce.Message, s) {
				t.Errorf("%s: the message lacks %q: %s", c.name, s, ce.Message)
			}
		}
		for _, s := range c.not {
			if strings.Contains(ce.Message, s) {
				t.Errorf("%s: the message says %q: %s", c.name, s, ce.Message)
			}
		}
	}
}

// TestOneRefreshPerAdapter: while another process refreshes an adapter in
// the repository (it holds the lock of the adapter's work tree), a cycle
// does not touch the work tree: the adapter fails with E_LOCKED and the
// command that runs it again.
func TestOneRefreshPerAdapter(t *testing.T) {
	p := newProject(t)
	p.real.set(200, `{"pets":[],"total":0}`)
	wt := filepath.Join(p.dir, ".git", "cassette-refresh", "petstore")
	if err := os.MkdirAll(wt, 0o755); err != nil {
		t.Fatal(err)
	}
	lock, err := lockWorktree(wt)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	r := p.cycle(week0, nil)
	pet := adapterResult(t, r, "petstore")
	if pet.Err == nil {
		t.Fatalf("the cycle refreshed petstore while another refresh held it")
	}
	if _, err := os.Stat(wt); err != nil {
		t.Errorf("the cycle removed the work tree another refresh holds: %v", err)
	}
	ce := outcome.AsError(pet.Err)
	if ce.Reason != outcome.ELocked || ce.NextStep != "cassette refresh --once --adapter petstore" || !strings.Contains(ce.Message, "another refresh of adapter petstore") {
		t.Fatalf("got %v (next: %s), want E_LOCKED", pet.Err, ce.NextStep)
	}
	if pet.Pushed {
		t.Error("pushed while another refresh held the adapter")
	}
}

// TestRefreshNeedsARepositoryAndABase: outside a git repository refresh
// says so first (next: git init), and on a detached HEAD the next step is
// the command that ran, with --base: a dry run's stays a dry run of the
// same adapters (it was `cassette refresh --once --base main`, a real
// refresh).
func TestRefreshNeedsARepositoryAndABase(t *testing.T) {
	p := newProject(t)
	runGit(t, p.env, p.dir, "checkout", "--quiet", "--detach")
	r := p.cycle(week0, func(o *Options) { o.DryRun, o.Adapters = true, []string{"petstore"} })
	ce := outcome.AsError(r.Err)
	if r.Err == nil || ce.Reason != outcome.EUsage || !strings.HasPrefix(ce.NextStep, "cassette refresh --once --dry-run --adapter petstore --base main") {
		t.Errorf("detached HEAD: %v (next: %s)", r.Err, ce.NextStep)
	}

	if err := os.RemoveAll(filepath.Join(p.dir, ".git")); err != nil {
		t.Fatal(err)
	}
	r = p.cycle(week0, func(o *Options) { o.DryRun = true })
	ce = outcome.AsError(r.Err)
	if r.Err == nil || !strings.Contains(ce.Message, "is not in a git repository") || ce.NextStep != "git init" {
		t.Errorf("no repository: %v (next: %s)", r.Err, ce.NextStep)
	}
}
