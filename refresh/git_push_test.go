package refresh

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
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
		ce := cassettes.AsError(c.err)
		if c.err == nil || ce.Reason != cassettes.EPushRejected || ce.NextStep != c.next {
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
