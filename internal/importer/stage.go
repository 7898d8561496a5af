package importer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
)

// An import is atomic as a set: every cassette is first saved into a
// staging copy of the adapter's directory under the project's
// .cassette/staging (the directory as it is, hard-linked, plus the new
// cassettes), and the copy then takes the directory's place in one
// rename: a new directory is renamed into place, an existing one is
// exchanged with it (renameat2 RENAME_EXCHANGE) and the old one removed.
// A killed import leaves the adapter's directory as it was (its staging
// copy, out of the cassettes tree and ignored by git, is removed by the
// next import of the adapter), so the same import runs again without
// --force. An import interrupted (SIGINT, SIGTERM: ctx) stops at the next
// cassette and removes its staging copy: nothing is imported. The whole
// import holds the adapter directory's lock (workspace.LockAdapter).

// stage is one import's staging copy of the adapter directory target.
type stage struct {
	target string // the adapter directory: Options.Dir/Adapter
	dir    string // the staging directory, holding the new copy at dir/new
	copy   string // dir/new
	exact  bool   // the copy holds all target holds (no FIFO, socket, device)
}

// stagingRoot is where the staging copies of imports into the project at
// root live.
func stagingRoot(root string) string { return filepath.Join(root, ".cassette", "staging") }

// stagePrefix names the staging copies of one adapter directory.
func stagePrefix(target string) string {
	abs, _ := filepath.Abs(target)
	sum := sha256.Sum256([]byte(abs))
	return "import-" + hex.EncodeToString(sum[:6]) + "-"
}

// newStage removes what killed imports of target left (the caller holds
// the directory's lock: no live import of it has a stage), then makes a
// staging copy of target (empty when it does not exist).
func newStage(root, target string) (*stage, error) {
	sroot := stagingRoot(root)
	prefix := stagePrefix(target)
	if old, err := filepath.Glob(filepath.Join(sroot, prefix+"*")); err == nil {
		for _, d := range old {
			_ = os.RemoveAll(d)
		}
	}
	if err := os.MkdirAll(sroot, 0o755); err != nil {
		return nil, stageError(sroot, err)
	}
	dir, err := os.MkdirTemp(sroot, prefix+"*")
	if err != nil {
		return nil, stageError(sroot, err)
	}
	s := &stage{target: target, dir: dir, copy: filepath.Join(dir, "new")}
	if s.exact, err = linkTree(target, s.copy); err != nil {
		s.remove()
		return nil, stageError(target, err)
	}
	return s, nil
}

func (s *stage) remove() { _ = os.RemoveAll(s.dir) }

// path is where the cassette that belongs at final is staged.
func (s *stage) path(final string) string {
	rel, err := filepath.Rel(s.target, final)
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = filepath.Base(final)
	}
	return filepath.Join(s.copy, rel)
}

// save saves every cassette into the staging copy (list[i] scanned for
// the values of reds[i]), stopping when ctx ends (E_INTERRUPTED); each
// cassette's Path is its final path again after.
// saved, when set, is called after each (tests pause here).
func (s *stage) save(ctx context.Context, list []*cassettes.Cassette, reds []*redact.Redactor, again string, saved func(int)) error {
	for i, c := range list {
		if ctx.Err() != nil {
			return &outcome.Error{Reason: outcome.EInterrupted, Message: "interrupted: nothing was imported (" + outcome.Printable(s.target) + " is as it was)",
				NextStep: again}
		}
		final := c.Path
		c.Path = s.path(final)
		err := cassettes.Save(c, cassettes.SaveOptionsFor(reds[i]))
		c.Path = final
		if err != nil {
			return err
		}
		if saved != nil {
			saved(i)
		}
	}
	return nil
}

// commit puts the staging copy in the adapter directory's place.
func (s *stage) commit() error {
	defer s.remove()
	st, err := os.Lstat(s.target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(filepath.Dir(s.target), 0o755); err != nil {
			return stageError(s.target, err)
		}
		if err := os.Rename(s.copy, s.target); err != nil {
			return stageError(s.target, err)
		}
		return syncDir(filepath.Dir(s.target))
	case err != nil:
		return stageError(s.target, err)
	case st.IsDir() && s.exact:
		if err := exchange(s.copy, s.target); err == nil {
			return syncDir(filepath.Dir(s.target)) // the old directory is at s.copy, removed with s.dir
		}
	}
	// A symlink, or a file system that cannot exchange: file by file.
	return moveFiles(s.copy, s.target)
}

// linkTree makes dst a copy of the tree src (nothing when src does not
// exist): directories made, files hard-linked (copied across devices),
// symlinks made again. exact is false when src holds what is not copied
// (a FIFO, a socket, a device).
func linkTree(src, dst string) (exact bool, err error) {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return false, err
	}
	if _, err := os.Stat(src); errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	exact = true
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		switch {
		case rel == ".":
			return nil
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		case !d.Type().IsRegular():
			exact = false
			return nil
		}
		if os.Link(p, to) == nil {
			return nil
		}
		return copyFile(p, to)
	})
	return exact, err
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// moveFiles renames every file of the staging copy into target: the
// fallback where the directories cannot be exchanged (not atomic as a set).
func moveFiles(copyDir, target string) error {
	return filepath.WalkDir(copyDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
			return err // symlinks are the target's own, still there
		}
		rel, _ := filepath.Rel(copyDir, p)
		to := filepath.Join(target, rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return stageError(to, err)
		}
		if err := os.Rename(p, to); err != nil {
			return stageError(to, err)
		}
		return nil
	})
}

func syncDir(dir string) error {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

func stageError(path string, err error) error {
	return &outcome.Error{Reason: outcome.EIO, Message: "cannot stage the import at " + outcome.Printable(path) + " (is the project directory writable?)", Err: err,
		NextStep: outcome.Command("ls", "-ld", filepath.Dir(path))}
}
