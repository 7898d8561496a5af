//go:build unix

package normalize

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used (user and system, every
// thread, the garbage collector's too): on a shared machine it tells the
// cost of a benchmark better than the wall clock, which counts the time
// other processes had the CPU.
func processCPU() time.Duration {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
