package proxy

import (
	"errors"
	"net"
	"os"
	"sync"
	"testing"
	"time"
)

// watched is a trackingListener on a real socket whose clock the test
// moves and whose watch runs at each tick the test sends, and one of its
// connections with the client's end.
type watched struct {
	l            *trackingListener
	server, peer net.Conn
	mu           sync.Mutex
	at           time.Time
	tick         chan time.Time
}

func newWatched(t *testing.T) *watched {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// The clock starts long ago: a deadline it calls a minute away is in
	// the past for the socket, which fails a read at once once it holds it.
	w := &watched{at: time.Unix(1_000_000, 0), tick: make(chan time.Time)}
	w.l = &trackingListener{Listener: ln, conns: map[net.Conn]struct{}{}, now: w.now}
	stopped := make(chan struct{})
	go w.l.watch(w.tick, func() { close(stopped) })
	if w.peer, err = net.Dial("tcp", ln.Addr().String()); err != nil {
		t.Fatal(err)
	}
	if w.server, err = w.l.Accept(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		w.peer.Close()
		w.l.closeAll()
		// The watch may already have seen the listener closed while it
		// ran the last tick of advance (which returns once that tick is
		// taken, not once its round is done): it is gone then.
		select {
		case w.tick <- time.Time{}:
		case <-stopped:
		}
		<-stopped
		ln.Close()
	})
	return w
}

func (w *watched) now() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.at
}

// advance moves the clock by d and lets the watch run: the second tick is
// taken only once the first one's round is done.
func (w *watched) advance(d time.Duration) {
	w.mu.Lock()
	w.at = w.at.Add(d)
	w.mu.Unlock()
	w.tick <- time.Time{}
	w.tick <- time.Time{}
}

// TestFarReadDeadlineIsWatched: a read deadline far off is not on the
// socket; the watch ends the read once it passed.
func TestFarReadDeadlineIsWatched(t *testing.T) {
	w := newWatched(t)
	if err := w.server.SetReadDeadline(w.now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if got := w.server.(*trackedConn).rd.onSocket; got {
		t.Error("a deadline a minute away was set on the socket")
	}
	w.advance(2 * time.Minute)
	_, err := w.server.Read(make([]byte, 1))
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a read past its deadline: %v, want a timeout", err)
	}
}

// TestClearedReadDeadlineIsNotWatched: a far deadline cleared (as net/http
// clears its own after the headers) does not end a read when its time
// comes.
func TestClearedReadDeadlineIsNotWatched(t *testing.T) {
	w := newWatched(t)
	for _, d := range []time.Time{w.now().Add(2 * time.Minute), w.now().Add(30 * time.Second), {}} {
		if err := w.server.SetReadDeadline(d); err != nil {
			t.Fatal(err)
		}
	}
	w.advance(3 * time.Minute)
	if _, err := w.peer.Write([]byte("a")); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 1)
	if n, err := w.server.Read(b); err != nil || n != 1 || b[0] != 'a' {
		t.Fatalf("a read with no deadline: %d %q %v", n, b[:n], err)
	}
}

// TestNearAndPastReadDeadlinesAreOnTheSocket: a deadline nearer than
// coarseAfter, or past (net/http's end of its background read), ends a
// read without the watch; a read after it was cleared waits for data.
func TestNearAndPastReadDeadlinesAreOnTheSocket(t *testing.T) {
	w := newWatched(t)
	for _, d := range []time.Duration{time.Second, -time.Second} {
		if err := w.server.SetReadDeadline(w.now().Add(d)); err != nil {
			t.Fatal(err)
		}
		if _, err := w.server.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("deadline %v away: %v, want a timeout", d, err)
		}
	}
	if err := w.server.SetReadDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.peer.Write([]byte("b")); err != nil {
		t.Fatal(err)
	}
	if n, err := w.server.Read(make([]byte, 1)); err != nil || n != 1 {
		t.Fatalf("a read after the deadline was cleared: %d %v", n, err)
	}
}

// TestStaleTimeoutIsReadAgain: a timeout of the deadline the watch set,
// when the deadline asked for was cleared before the read saw it, is read
// again rather than returned.
func TestStaleTimeoutIsReadAgain(t *testing.T) {
	w := newWatched(t)
	c := w.server.(*trackedConn)
	if err := c.SetReadDeadline(w.now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	w.advance(2 * time.Minute) // the socket now holds a past deadline
	c.rd.mu.Lock()
	c.rd.want = time.Time{} // cleared between the timeout and the read's look at it
	c.rd.mu.Unlock()
	if _, err := w.peer.Write([]byte("c")); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Read(make([]byte, 1)); err != nil || n != 1 {
		t.Fatalf("a read after a stale timeout: %d %v", n, err)
	}
}
