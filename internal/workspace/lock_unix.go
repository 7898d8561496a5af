//go:build unix

package workspace

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// whoLocks is the next step of a writer that found a lock held and cannot
// tell by whom: the kernel's list of locks.
var whoLocks = outcome.Command("cat", "/proc/locks")

// lockFile takes a flock(2) lock on f without waiting; held reports that
// the error is another process's lock.
func lockFile(f *os.File, exclusive bool) (held bool, err error) {
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	for {
		err = unix.Flock(int(f.Fd()), how|unix.LOCK_NB)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	return errors.Is(err, unix.EWOULDBLOCK), err
}

// unlockFile releases f's lock (closing f would too).
func unlockFile(f *os.File) { _ = unix.Flock(int(f.Fd()), unix.LOCK_UN) }

// holders returns the processes that hold a flock on f, from /proc/locks
// (Linux); none when it cannot tell.
func holders(f *os.File) []int {
	var st unix.Stat_t
	if unix.Fstat(int(f.Fd()), &st) != nil {
		return nil
	}
	locks, err := os.Open("/proc/locks")
	if err != nil {
		return nil
	}
	defer locks.Close()
	// 1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF
	want := fmt.Sprintf("%02x:%02x:%d", unix.Major(uint64(st.Dev)), unix.Minor(uint64(st.Dev)), st.Ino)
	var out []int
	sc := bufio.NewScanner(locks)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[1] != "FLOCK" || fields[5] != want {
			continue
		}
		if pid, err := strconv.Atoi(fields[4]); err == nil && pid > 0 {
			out = append(out, pid)
		}
	}
	return out
}
