package verify

import (
	"net"
	"strconv"
	"sync"
)

// ports are the loopback ports this process has handed to fakes that may
// still be starting or running. The kernel hands a port it just freed to
// the next caller: without the lease, two fakes starting in parallel could
// be given one port, and the readiness check of the one that failed to bind
// would be answered by the other (a case run against another case's fake).
var ports = portLease{held: map[int]bool{}}

type portLease struct {
	mu   sync.Mutex
	held map[int]bool
}

// take asks listen for free ports until one is not leased, leases it and
// returns it. Listeners on leased ports are kept open while it asks again,
// so the kernel cannot hand the same one back.
func (l *portLease) take(listen func() (net.Listener, error)) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var open []net.Listener
	defer func() {
		for _, ln := range open {
			ln.Close()
		}
	}()
	for {
		ln, err := listen()
		if err != nil {
			return 0, err
		}
		open = append(open, ln)
		port := ln.Addr().(*net.TCPAddr).Port
		if !l.held[port] {
			l.held[port] = true
			return port, nil
		}
	}
}

// release ends the lease of a port taken with take (0 is ignored).
func (l *portLease) release(port int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.held, port)
}

// freePort leases a free loopback port until releasePort. The port is free
// when this returns; another program may still bind it before the fake
// does, which startFake handles by starting the fake again.
func freePort() (string, error) {
	port, err := ports.take(func() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") })
	if err != nil {
		return "", err
	}
	return strconv.Itoa(port), nil
}

// releasePort ends the lease of a port freePort returned ("" is ignored).
func releasePort(port string) {
	if n, err := strconv.Atoi(port); err == nil {
		ports.release(n)
	}
}
