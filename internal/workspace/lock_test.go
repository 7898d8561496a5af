package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// TestLocks: one writer per cassette, recorders of one adapter side by
// side, and a whole-directory writer alone; the refused one is E_LOCKED
// (exit 2) and names the holder (this process, found in /proc/locks).
func TestLocks(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "cassettes", "gh")
	a, b := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	la, err := LockCassette(root, dir, a)
	if err != nil {
		t.Fatal(err)
	}
	locked := func(err error, what string) {
		t.Helper()
		var ce *outcome.Error
		if !errors.As(err, &ce) || ce.Reason != outcome.ELocked || ce.Exit() != outcome.ExitUser {
			t.Fatalf("%s: got %v, want E_LOCKED", what, err)
		}
		if !strings.Contains(ce.Message, "process "+strconv.Itoa(os.Getpid())) || !strings.Contains(ce.NextStep, strconv.Itoa(os.Getpid())) {
			t.Errorf("%s: the holder is not named: %s (next: %s)", what, ce.Message, ce.NextStep)
		}
	}
	_, err = LockCassette(root, dir, a)
	locked(err, "a second recorder of a.yaml")
	lb, err := LockCassette(root, dir, b)
	if err != nil {
		t.Fatalf("a recorder of b.yaml beside one of a.yaml: %v", err)
	}
	_, err = LockAdapter(root, dir)
	locked(err, "an importer while recorders run")
	la.Unlock()
	lb.Unlock()
	lb.Unlock() // twice is harmless
	ld, err := LockAdapter(root, dir)
	if err != nil {
		t.Fatalf("an importer once they ended: %v", err)
	}
	_, err = LockCassette(root, dir, a)
	locked(err, "a recorder while an importer runs")
	ld.Unlock()
	// The same cassette named another way (relative, through a symlink)
	// is the same lock.
	link := filepath.Join(root, "link")
	if err := os.Symlink(filepath.Join(root, "cassettes"), link); err != nil {
		t.Fatal(err)
	}
	l1, err := LockCassette(root, dir, a)
	if err != nil {
		t.Fatal(err)
	}
	defer l1.Unlock()
	_, err = LockCassette(root, filepath.Join(link, "gh"), filepath.Join(link, "gh", "a.yaml"))
	locked(err, "the same cassette through a symlink")
}
