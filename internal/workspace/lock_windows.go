package workspace

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// whoLocks is the next step of a writer that found a lock held: Windows
// does not say which process holds a file lock, so the list of processes.
var whoLocks = outcome.Command("tasklist")

// lockFile takes a LockFileEx lock on the first byte of f without waiting
// (the Windows counterpart of flock: released when its holder exits);
// held reports that the error is another process's lock.
func lockFile(f *os.File, exclusive bool) (held bool, err error) {
	flags := uint32(windows.LOCKFILE_FAIL_IMMEDIATELY)
	if exclusive {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	err = windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, new(windows.Overlapped))
	return errors.Is(err, windows.ERROR_LOCK_VIOLATION), err
}

// unlockFile releases f's lock (closing f would too).
func unlockFile(f *os.File) {
	_ = windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, new(windows.Overlapped))
}

// holders is the processes that hold f's lock: Windows does not tell.
func holders(*os.File) []int { return nil }
