package proxy

import (
	"errors"
	"net"
	"os"
	"sync"
	"time"
)

// Read deadlines of the client connections, kept by the connection and
// enforced by its listener's watch, once a second, when they are far off.
//
// net/http sets a connection's read deadline five times a request: the
// idle timeout, the header timeout, none for the body, the past (to end
// the read it makes in the background while the handler runs) and none
// again. On the socket, each future deadline is a runtime timer added,
// moved or deleted: twice a plain server's cost of those calls (which
// sets none but the past), 2.5% of a replayed request at 604 bytes. A
// deadline more than coarseAfter away (net/http's 30 s and 2 min, a
// body's 2 min) is only noted; the listener's watch ends a read whose
// deadline passed, at most watchEvery late. A deadline nearer than that,
// or past, goes to the socket as it is.

// coarseAfter is how far off a read deadline must be to be watched
// rather than set on the socket; watchEvery is how often the watch runs.
const (
	coarseAfter = 5 * time.Second
	watchEvery  = time.Second
)

// readDeadline is a connection's read deadline.
type readDeadline struct {
	mu   sync.Mutex
	want time.Time // the deadline asked for; zero: none
	// onSocket is whether the socket holds a deadline: want when it was
	// near or past, or the past the watch set when want passed.
	onSocket bool
}

// SetReadDeadline sets c's read deadline to t: on the socket when t is
// zero and the socket holds one, near or past, noted otherwise.
func (c *trackedConn) SetReadDeadline(t time.Time) error {
	d := &c.rd
	d.mu.Lock()
	defer d.mu.Unlock()
	d.want = t
	if !t.IsZero() && t.Sub(c.l.now()) < coarseAfter {
		d.onSocket = true
		return c.Conn.SetReadDeadline(t)
	}
	if d.onSocket {
		d.onSocket = false
		return c.Conn.SetReadDeadline(time.Time{})
	}
	return nil
}

func (c *trackedConn) SetDeadline(t time.Time) error {
	if err := c.Conn.SetWriteDeadline(t); err != nil {
		return err
	}
	return c.SetReadDeadline(t)
}

// Read reads from the socket. A timeout of a deadline the watch set, when
// the deadline asked for has moved since (net/http clears it, or sets
// another), is not one: the socket's deadline is cleared and the read
// made again.
func (c *trackedConn) Read(b []byte) (int, error) {
	for {
		n, err := c.Conn.Read(b)
		if err == nil || !errors.Is(err, os.ErrDeadlineExceeded) || !c.staleTimeout() {
			return n, err
		}
	}
}

// staleTimeout reports whether a read's timeout came from a deadline no
// longer asked for, and clears the socket's when it did.
func (c *trackedConn) staleTimeout() bool {
	d := &c.rd
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.want.IsZero() && !c.l.now().Before(d.want) {
		return false // it passed: a timeout
	}
	if !d.want.IsZero() && d.want.Sub(c.l.now()) < coarseAfter {
		return false // the socket holds it: its own timeout
	}
	d.onSocket = false
	_ = c.Conn.SetReadDeadline(time.Time{})
	return true
}

// expire ends a read whose far deadline passed (at now): the socket gets
// a deadline in the past.
func (c *trackedConn) expire(now time.Time) {
	d := &c.rd
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.onSocket || d.want.IsZero() || now.Before(d.want) {
		return
	}
	d.onSocket = true
	_ = c.Conn.SetReadDeadline(d.want)
}

// watch expires the far read deadlines of l's connections at every tick
// until l is closed.
func (l *trackingListener) watch(tick <-chan time.Time, stop func()) {
	defer stop()
	for range tick {
		l.mu.Lock()
		if l.closed {
			l.mu.Unlock()
			return
		}
		conns := make([]*trackedConn, 0, len(l.conns))
		for c := range l.conns {
			conns = append(conns, c.(*trackedConn))
		}
		l.mu.Unlock()
		now := l.now()
		for _, c := range conns {
			c.expire(now)
		}
	}
}

// startWatch starts l's watch on a ticker of watchEvery.
func (l *trackingListener) startWatch() {
	t := time.NewTicker(watchEvery)
	go l.watch(t.C, t.Stop)
}

var _ net.Conn = (*trackedConn)(nil)
