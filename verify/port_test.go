package verify

import (
	"net"
	"testing"
)

// stubListener is a listener that claims a given port: the kernel cannot be
// made to hand one port out twice on demand, so the test plays the kernel.
type stubListener struct {
	net.Listener
	port   int
	closed *int
}

func (s stubListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: s.port} }
func (s stubListener) Close() error   { *s.closed++; return nil }

// TestPortLeaseNeverHandsOutALeasedPort: the kernel gives a port that was
// just freed to the next caller; while a fake holds the lease on it, take
// asks again and returns another one, and after release it is free again.
func TestPortLeaseNeverHandsOutALeasedPort(t *testing.T) {
	l := portLease{held: map[int]bool{}}
	closed := 0
	kernel := func(ports ...int) func() (net.Listener, error) {
		return func() (net.Listener, error) {
			p := ports[0]
			ports = ports[1:]
			return stubListener{port: p, closed: &closed}, nil
		}
	}
	first, err := l.take(kernel(40001))
	if err != nil || first != 40001 {
		t.Fatalf("take = %d, %v; want 40001", first, err)
	}
	second, err := l.take(kernel(40001, 40001, 40002))
	if err != nil || second != 40002 {
		t.Fatalf("take while 40001 is leased = %d, %v; want 40002", second, err)
	}
	if closed != 4 {
		t.Errorf("%d listeners closed, want all 4", closed)
	}
	l.release(first)
	if again, _ := l.take(kernel(40001)); again != 40001 {
		t.Errorf("take after release = %d, want 40001", again)
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
