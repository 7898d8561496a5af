package main

import (
	"fmt"
	"os"
	"os/exec"
	"time"
)

// calls runs argv n times, one after the other (standard input
// /dev/null, output discarded), and prints the wall time and the CPU time
// (user and system, of the process and its children) of a call, in
// milliseconds: what a test suite that runs the command pays a call.
func calls(n int, argv []string) {
	if len(argv) == 0 || n < 1 {
		fail("usage: replaybench calls -n N -- CMD [ARGS...]")
	}
	var wall, cpu time.Duration
	for range n {
		c := exec.Command(argv[0], argv[1:]...)
		c.Stdout, c.Stderr = nil, os.Stderr
		t0 := time.Now()
		if err := c.Run(); err != nil {
			fail(fmt.Sprintf("%v: %v", argv, err))
		}
		wall += time.Since(t0)
		cpu += c.ProcessState.UserTime() + c.ProcessState.SystemTime()
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(n) / 1e6 }
	fmt.Printf("%.3f %.3f\n", ms(wall), ms(cpu))
}
