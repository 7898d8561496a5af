//go:build unix

package verify_test

import (
	"syscall"
	"time"
)

// The tests' and benchmarks' view of processes where Unix has one: CPU
// time and context switches from getrusage, signals by pid.

// cpuSelf is the CPU time (user and system) this process has used.
func cpuSelf() time.Duration { return rusageCPU(syscall.RUSAGE_SELF) }

// cpuChildren is the CPU time its reaped children have used.
func cpuChildren() time.Duration { return rusageCPU(syscall.RUSAGE_CHILDREN) }

func rusageCPU(who int) time.Duration {
	var r syscall.Rusage
	_ = syscall.Getrusage(who, &r)
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

// switchesSelf is how many times this process's threads gave up the CPU
// (voluntary: they waited) or were made to (involuntary).
func switchesSelf() (voluntary, involuntary int64) {
	var r syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r)
	return int64(r.Nvcsw), int64(r.Nivcsw)
}

// processGone reports whether no process pid exists (kill 0 says ESRCH).
func processGone(pid int) (bool, error) {
	err := syscall.Kill(pid, 0)
	return err == syscall.ESRCH, err
}

// killProcess sends pid SIGKILL.
func killProcess(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }
