//go:build !unix

package verify_test

import (
	"os"
	"time"
)

// Without getrusage the CPU figures and switches are zero (the benchmarks
// that report them are run on Linux).
func cpuSelf() time.Duration                       { return 0 }
func cpuChildren() time.Duration                   { return 0 }
func switchesSelf() (voluntary, involuntary int64) { return 0, 0 }

// processGone reports whether pid cannot be found (opened) any more.
func processGone(pid int) (bool, error) {
	p, err := os.FindProcess(pid)
	if err != nil {
		return true, err
	}
	p.Release()
	return false, nil
}

func killProcess(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
		p.Release()
	}
}
