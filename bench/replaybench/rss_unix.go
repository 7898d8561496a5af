//go:build unix

package main

import (
	"os"
	"syscall"
)

// maxRSS is the peak resident set size of an ended process, in bytes
// (getrusage's ru_maxrss: kilobytes on Linux).
func maxRSS(ps *os.ProcessState) int64 {
	return ps.SysUsage().(*syscall.Rusage).Maxrss * 1024
}
