package recording

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// childAttr puts the recorded command in a process group of its own and
// has the kernel kill it when record dies (the parent-death signal).
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// groupMembers names the processes of process group pgid that still run
// (zombies are not counted): "sleep (pid 8058)", from /proc.
func groupMembers(pgid int) []string {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		open, end := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
		if err != nil || open < 0 || end < open {
			continue
		}
		// pid (comm) state ppid pgrp ...
		f := bytes.Fields(stat[end+1:])
		if len(f) < 3 || string(f[0]) == "Z" || string(f[0]) == "X" || string(f[2]) != strconv.Itoa(pgid) {
			continue
		}
		out = append(out, fmt.Sprintf("%s (pid %d)", stat[open+1:end], pid))
	}
	return out
}

// groupAlive reports whether process group pgid still has a process that
// runs.
func groupAlive(pgid int) bool { return len(groupMembers(pgid)) > 0 }
