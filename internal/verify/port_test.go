package verify

import (
	"math/rand/v2"
	"net"
	"testing"
)

// TestPortLeaseNeverHandsOutALeasedPort: while a fake holds the lease on a
// port, take neither returns it nor binds it (the fake may be binding it
// right then) and returns another one; after release it is free again.
func TestPortLeaseNeverHandsOutALeasedPort(t *testing.T) {
	l := portLease{held: map[int]bool{}}
	closed := 0
	var bound []int
	draw := func(ports ...int) func() int {
		return func() int {
			p := ports[0]
			ports = ports[1:]
			return p
		}
	}
	listen := func(port int) error {
		bound = append(bound, port)
		closed++ // the probe's socket, closed before take returns
		return nil
	}
	first, err := l.take(draw(40001), listen)
	if err != nil || first != 40001 {
		t.Fatalf("take = %d, %v; want 40001", first, err)
	}
	bound = nil
	second, err := l.take(draw(40001, 40001, 40002), listen)
	if err != nil || second != 40002 {
		t.Fatalf("take while 40001 is leased = %d, %v; want 40002", second, err)
	}
	if len(bound) != 1 || bound[0] != 40002 {
		t.Errorf("take bound %v while 40001 was leased; want only [40002]", bound)
	}
	if closed != 2 {
		t.Errorf("%d listeners closed, want both", closed)
	}
	l.release(first)
	if again, _ := l.take(draw(40001), listen); again != 40001 {
		t.Errorf("take after release = %d, want 40001", again)
	}
}

// TestPortLeaseSkipsBoundPorts: a port another program listens on is
// passed over (the real probe, bindable, against a real listener).
func TestPortLeaseSkipsBoundPorts(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	busy := ln.Addr().(*net.TCPAddr).Port
	l := portLease{held: map[int]bool{}}
	lo, hi := fakePortRange()
	draws := 0
	got, err := l.take(func() int {
		if draws++; draws == 1 {
			return busy
		}
		return lo + rand.IntN(hi-lo+1)
	}, bindable)
	if err != nil || got == busy || got < lo || got > hi || draws < 2 {
		t.Fatalf("take = %d, %v; want a port other than the bound %d", got, err, busy)
	}
}

// TestFreePortLeasesRealPorts: real ports from the kernel, many leased at
// once, are all different, and each is bindable once released.
func TestFreePortLeasesRealPorts(t *testing.T) {
	seen := map[string]bool{}
	for range 200 {
		p, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		if seen[p] {
			t.Fatalf("port %s handed out twice while leased", p)
		}
		seen[p] = true
	}
	for p := range seen {
		releasePort(p)
	}
	if len(ports.held) != 0 {
		t.Errorf("%d ports still leased after release", len(ports.held))
	}
}
