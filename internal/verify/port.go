package verify

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
)

// ports are the loopback ports this process has handed to fakes that may
// still be starting or running. Without the lease, two fakes starting in
// parallel could be given one port, and the readiness check of the one that
// failed to bind would be answered by the other (a case run against another
// case's fake).
var ports = portLease{held: map[int]bool{}}

type portLease struct {
	mu   sync.Mutex
	held map[int]bool
}

// take draws candidate ports from next until one is not leased and is
// bindable, leases it and returns it. A leased port is never bound here:
// a fake that is about to bind its port never finds it taken by the lease
// of the next one (asking the kernel for port 0 did that: it hands the port
// it just freed to the next caller, and holding that listener open while
// asking again made the fake starting on it fail with "address already in
// use", often when fakes start ahead in parallel).
func (l *portLease) take(next func() int, bindable func(port int) error) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var last error
	for range 1000 {
		port := next()
		if l.held[port] {
			continue
		}
		if err := bindable(port); err != nil {
			last = err // bound by another program
			continue
		}
		l.held[port] = true
		return port, nil
	}
	return 0, fmt.Errorf("no free loopback port in 1000 tries: %v", last)
}

// release ends the lease of a port taken with take (0 is ignored).
func (l *portLease) release(port int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.held, port)
}

// freePort leases a free loopback port until releasePort. Ports are drawn
// at random below the kernel's ephemeral range (ip_local_port_range), which
// no listen on port 0 and no outgoing connection of any program is given:
// the port is free when this returns, and stays free for the fake unless a
// program binds that very port (startFake then starts the fake again).
func freePort() (string, error) {
	lo, hi := fakePorts()
	port, err := ports.take(func() int { return lo + rand.IntN(hi-lo+1) }, bindable)
	if err != nil {
		return "", err
	}
	return strconv.Itoa(port), nil
}

// fakePorts is fakePortRange, read once.
var fakePorts = sync.OnceValues(fakePortRange)

// fakePortRange is where fakes' ports are drawn from: from 16384 up to the
// start of the ephemeral range, or the ephemeral range itself when that
// leaves fewer than 4096 ports.
func fakePortRange() (lo, hi int) {
	lo, hi = 32768, 60999 // Linux's default ephemeral range
	if data, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(data)); len(f) == 2 {
			a, errA := strconv.Atoi(f[0])
			b, errB := strconv.Atoi(f[1])
			if errA == nil && errB == nil && 0 < a && a <= b && b < 65536 {
				lo, hi = a, b
			}
		}
	}
	if lo-16384 >= 4096 {
		return 16384, lo - 1
	}
	return lo, hi
}

// releasePort ends the lease of a port freePort returned ("" is ignored).
func releasePort(port string) {
	if n, err := strconv.Atoi(port); err == nil {
		ports.release(n)
	}
}
