package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// Writers take a lock before they read what they will write, and hold it
// until their save is in place, so that two of them never write the same
// cassette from two recordings (each saying `saved N` while the file keeps
// one side):
//
//   - a process that records into one cassette (`record`, `proxy --mode
//     record`) holds that cassette's lock, and its adapter directory's lock
//     shared (LockCassette);
//   - a process that writes a whole adapter directory (`import`, refresh's
//     re-recording) holds the directory's lock alone (LockAdapter).
//
// A second writer does not wait: it fails at once with E_LOCKED (exit 2),
// naming the process that holds the lock, and writes nothing. The locks
// are flock(2) locks (LockFileEx on Windows: lock_windows.go) on files under the project's .cassette/locks (one per
// locked path, named by the hash of its resolved absolute path, never
// removed): the kernel releases them when their holder exits, however it
// exits, so a killed recorder leaves no stale lock behind.

// LockDir is where the lock files of the project at root live.
func LockDir(root string) string { return filepath.Join(root, ".cassette", "locks") }

// Lock is a held lock; Unlock releases it.
type Lock struct {
	files []*os.File
}

// Unlock releases the lock (nil-safe; releasing twice does nothing).
func (l *Lock) Unlock() {
	if l == nil {
		return
	}
	for _, f := range l.files {
		unlockFile(f)
		f.Close()
	}
	l.files = nil
}

// LockCassette takes the lock of the cassette at path (held by no one
// else) and the lock of its adapter directory dir (shared with other
// recorders of the same adapter, refused while an import or a refresh
// writes it). root is the project directory ("" is the current one).
func LockCassette(root, dir, path string) (*Lock, error) {
	l := &Lock{}
	f, err := lockPath(root, dir, "adapter", false)
	if err != nil {
		return nil, err
	}
	l.files = append(l.files, f)
	if f, err = lockPath(root, path, "cassette", true); err != nil {
		l.Unlock()
		return nil, err
	}
	l.files = append(l.files, f)
	return l, nil
}

// LockAdapter takes the lock of the adapter directory dir for a process
// that writes the whole of it: no recorder of one of its cassettes, and no
// other importer or refresh of it, may run meanwhile.
func LockAdapter(root, dir string) (*Lock, error) {
	f, err := lockPath(root, dir, "adapter directory", true)
	if err != nil {
		return nil, err
	}
	return &Lock{files: []*os.File{f}}, nil
}

// lockPath opens the lock file of target under root and locks it
// (exclusive, or shared), without waiting.
func lockPath(root, target, what string, exclusive bool) (*os.File, error) {
	if root == "" {
		root = "."
	}
	abs, err := filepath.Abs(target)
	if err != nil {
		return nil, lockIOError(target, err)
	}
	abs, _ = cassettes.Within(root, abs) // resolved as Save resolves it
	sum := sha256.Sum256([]byte(abs))
	dir := LockDir(root)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, lockIOError(dir, err)
	}
	name := filepath.Join(dir, hex.EncodeToString(sum[:16])+".lock")
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, lockIOError(name, err)
	}
	held, err := lockFile(f, exclusive)
	if err == nil {
		return f, nil
	}
	defer f.Close()
	if !held {
		return nil, lockIOError(name, err)
	}
	return nil, lockedError(target, what, holders(f))
}

func lockIOError(path string, err error) error {
	return &outcome.Error{Reason: outcome.EIO, Message: "cannot take the write lock " + outcome.Printable(path) + " (is the project directory writable?)", Err: err,
		NextStep: outcome.Command("ls", "-ld", filepath.Dir(path))}
}

// lockedError is the error of a writer that found the lock held.
func lockedError(target, what string, pids []int) error {
	e := &outcome.Error{Reason: outcome.ELocked, NextStep: whoLocks}
	who := "another process"
	if len(pids) > 0 {
		who = describeProcess(pids[0])
		e.NextStep = outcome.Command("ps", "-o", "pid,etime,args", "-p", strconv.Itoa(pids[0]))
	}
	e.Message = fmt.Sprintf("the %s %s is being written by %s: nothing was written; wait for it to end (or stop it), then run this command again", what, outcome.Printable(target), who)
	return e
}

// describeProcess names a process for a message: its pid and command line.
func describeProcess(pid int) string {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	argv := strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")
	if err != nil || len(data) == 0 {
		return fmt.Sprintf("process %d", pid)
	}
	if len(argv) > 12 {
		argv = append(argv[:12], "…")
	}
	return fmt.Sprintf("process %d (%s)", pid, outcome.Command(argv...))
}
