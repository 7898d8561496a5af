package refresh

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// Where the new cassettes are written: a git work tree of the refresh
// branch inside the repository's git directory (removed after the cycle,
// and by the next cycle when one crashed), or a temporary directory in a
// dry run.

type startPoint struct{ fromBase bool }

// workdir prepares where the new cassettes are written: a git worktree of
// the refresh branch (from its remote head, or from the remote base branch
// for a new one), or a temporary directory in a dry run.
func (c *cycle) workdir(ctx context.Context, ar *AdapterResult) (string, func(), startPoint, error) {
	o := &c.opts
	if o.DryRun {
		dir, err := os.MkdirTemp("", "cassette-refresh-dry-*")
		if err != nil {
			return "", nil, startPoint{}, &outcome.Error{Reason: outcome.EIO, Message: "cannot make a temporary directory (check $TMPDIR)", Err: err, NextStep: outcome.Command("ls", "-ld", os.TempDir())}
		}
		return dir, func() { os.RemoveAll(dir) }, startPoint{}, nil
	}
	start, err := o.Git.FetchRef(ctx, c.remote, ar.Branch)
	if err != nil {
		return "", nil, startPoint{}, err
	}
	sp := startPoint{}
	if start == "" {
		sp.fromBase = true
		if start, err = o.Git.FetchRef(ctx, c.remote, c.base); err != nil {
			return "", nil, sp, err
		}
		if start == "" {
			return "", nil, sp, outcome.Errorf(outcome.EForge, outcome.Command("git", "push", c.shown, c.base),
				"the base branch %s is not on the remote %s: push it, or set refresh.base in cassette.yaml", c.base, c.shown)
		}
	}
	wt, err := c.worktreePath(ctx, ar.Name)
	if err != nil {
		return "", nil, sp, err
	}
	// One refresh of an adapter at a time in a repository: another one
	// would remove this work tree under it.
	lock, err := lockWorktree(wt)
	if err != nil {
		if ce, ok := err.(*outcome.Error); ok && ce.Reason == outcome.ELocked {
			ce.Message = "another refresh of adapter " + ar.Name + " runs in this repository: " + ce.Message
			ce.NextStep = outcome.Command("cassette", "refresh", "--once", "--adapter", ar.Name)
		}
		return "", nil, sp, err
	}
	c.removeWorktree(ctx, wt)
	if _, err := o.Git.Run(ctx, "worktree", "add", "--quiet", "--detach", wt, start); err != nil {
		lock.Unlock()
		return "", nil, sp, gitStepError("make a work tree for "+ar.Branch, err)
	}
	return wt, func() { c.removeWorktree(context.WithoutCancel(ctx), wt); lock.Unlock() }, sp, nil
}

// worktreePath is where the adapter's refresh work tree lives: inside the
// repository's git directory, so that a crashed cycle's leftovers are found
// and removed by the next one.
func (c *cycle) worktreePath(ctx context.Context, adapter string) (string, error) {
	gd, err := c.opts.Git.Run(ctx, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return "", gitStepError("find the git directory", err)
	}
	return filepath.Join(gd, "cassette-refresh", adapter), nil
}

func (c *cycle) removeWorktree(ctx context.Context, wt string) {
	_, _ = c.opts.Git.Run(ctx, "worktree", "remove", "--force", wt)
	_ = os.RemoveAll(wt)
	c.forgetWorktree(ctx, wt)
}

// forgetWorktree removes git's record of our work tree wt when its
// directory is gone, and only that record: `git worktree prune` would also
// forget the user's own work trees whose directories are not there now (an
// unmounted disk).
func (c *cycle) forgetWorktree(ctx context.Context, wt string) {
	gd, err := c.opts.Git.Run(ctx, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return
	}
	admin := filepath.Join(strings.TrimSpace(gd), "worktrees")
	entries, _ := os.ReadDir(admin)
	for _, e := range entries {
		link, err := os.ReadFile(filepath.Join(admin, e.Name(), "gitdir"))
		if err == nil && filepath.Dir(strings.TrimSpace(string(link))) == filepath.Clean(wt) {
			_ = os.RemoveAll(filepath.Join(admin, e.Name()))
		}
	}
}

// cleanWorktrees removes what a crashed cycle left behind.
func (c *cycle) cleanWorktrees(ctx context.Context) {
	gd, err := c.opts.Git.Run(ctx, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return
	}
	dir := filepath.Join(strings.TrimSpace(gd), "cassette-refresh")
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		wt := filepath.Join(dir, e.Name())
		lock, err := lockWorktree(wt)
		if err != nil {
			c.logf("leaving the work tree %s: %v", e.Name(), err)
			continue
		}
		c.logf("removing the work tree a previous cycle left: %s", e.Name())
		c.removeWorktree(ctx, wt)
		lock.Unlock()
	}
}

// lockWorktree takes the lock of the refresh work tree wt (a path
// <git common dir>/cassette-refresh/<adapter>), kept with the other lock
// files of the repository's git directory: held while a cycle writes the
// work tree, so that a second cycle neither writes it nor removes it as a
// crashed cycle's leftover.
func lockWorktree(wt string) (*workspace.Lock, error) {
	return workspace.LockAdapter(filepath.Dir(filepath.Dir(wt)), wt)
}

// relPath is a cassette's path relative to the repository root.
func (c *cycle) relPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(c.top, realPath(abs))
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", outcome.Errorf(outcome.EUsage, outcome.Command("git", "status"), "cassette %s is outside the repository %s: move the cassettes inside it", p, c.top)
	}
	return rel, nil
}

func gitStepError(what string, err error) error {
	return &outcome.Error{Reason: outcome.EIO, Message: "git: cannot " + what + " (check the repository, then run cassette refresh --once again)", Err: err, NextStep: outcome.Command("git", "status")}
}

// realPath resolves symbolic links as far as the path exists.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	dir, base := filepath.Split(p)
	if dir == p || dir == "" {
		return p
	}
	return filepath.Join(realPath(filepath.Clean(dir)), base)
}
