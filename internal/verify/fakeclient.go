package verify

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"syscall"
	"time"
)

// fakeTransport is the http.RoundTripper of a fake's HTTP/1.1 requests
// over plain loopback TCP: each exchange is written and read on the
// caller's goroutine, on a connection kept between requests (the
// readiness check's is the case's). net/http's Transport runs a read loop
// and a write loop goroutine per connection and hands every request and
// response between them and the caller: with a fresh fake per case, that
// was a sixth of verify's CPU. The request is written by net/http
// (Request.Write) and the response read by it (http.ReadResponse), as its
// Transport does, with what the Transport adds around them: 1xx answers
// skipped (101 is final), a reused connection the fake closed retried
// once on a new one when the request may be sent again, the connection
// closed when the answer says so or its body is not read to its end.
// Anything else — https, an upgrade (a WebSocket case), CONNECT — goes to
// fallback, a net/http Transport.
type fakeTransport struct {
	mu       sync.Mutex
	idle     []*fakeConn     // most recently used last
	fallback *http.Transport // made when first needed
}

// fakeConn is one connection to a fake.
type fakeConn struct {
	conn net.Conn
	addr string
	br   *bufio.Reader
	bw   *bufio.Writer
}

func newFakeTransport() *fakeTransport { return &fakeTransport{} }

// slow is the net/http Transport of the requests fakeTransport does not
// send itself.
func (t *fakeTransport) slow() *http.Transport {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.fallback == nil {
		t.fallback = &http.Transport{Proxy: nil, DisableCompression: true,
			MaxIdleConnsPerHost: maxFakeConns, DialContext: fakeDialer.DialContext}
	}
	return t.fallback
}

// fast reports whether req is one fakeTransport sends itself.
func fast(req *http.Request) bool {
	return req.URL.Scheme == "http" && req.Method != http.MethodConnect &&
		len(req.Header["Upgrade"]) == 0 && len(req.Trailer) == 0
}

func (t *fakeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !fast(req) {
		return t.slow().RoundTrip(req)
	}
	addr := req.URL.Host
	if req.URL.Port() == "" {
		addr = net.JoinHostPort(req.URL.Hostname(), "80")
	}
	ctx := req.Context()
	for {
		c, reused, err := t.get(ctx, addr)
		if err != nil {
			closeBody(req)
			d, _ := ctx.Deadline()
			if cerr := ctxErr(ctx, d, err); cerr != err {
				// as net/http's dial says a context's end
				err = &net.OpError{Op: "dial", Net: "tcp", Err: cerr}
			}
			return nil, err
		}
		resp, err := c.exchange(ctx, t, req)
		if err == nil {
			return resp, nil
		}
		c.conn.Close()
		if reused && errors.Is(err, errBeforeAnswer) && replayable(req) && ctx.Err() == nil {
			// The fake closed the kept connection: net/http sends such a
			// request again on a new one.
			if req.GetBody != nil && req.Body != nil && req.Body != http.NoBody {
				if req.Body, err = req.GetBody(); err != nil {
					return nil, err
				}
			}
			continue
		}
		closeBody(req)
		var ba beforeAnswer
		if errors.As(err, &ba) {
			err = ba.err // as net/http says it: the read's error (EOF)
		}
		return nil, err
	}
}

// errBeforeAnswer marks a failure before the fake's first byte.
var errBeforeAnswer = errors.New("before the answer")

type beforeAnswer struct{ err error }

func (e beforeAnswer) Error() string        { return e.err.Error() }
func (e beforeAnswer) Is(target error) bool { return target == errBeforeAnswer }
func (e beforeAnswer) Unwrap() error        { return e.err }

// ctxErr is err, or the context's error when it ended the exchange: a
// deadline set on the connection (or the dial's) from the context's can
// pass before the context itself says so, and a caller that asks
// ctx.Err() next must see it ended, as it does after net/http's
// transport: so this waits for the context, whose own timer is due.
func ctxErr(ctx context.Context, deadline time.Time, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	if !deadline.IsZero() && (errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded)) && !time.Now().Before(deadline) {
		<-ctx.Done()
		return ctx.Err()
	}
	return err
}

// replayable is net/http's rule for sending a request again.
func replayable(req *http.Request) bool {
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return false
	}
	switch req.Method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	_, a := req.Header["Idempotency-Key"]
	_, b := req.Header["X-Idempotency-Key"]
	return a || b
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// get takes an idle connection to addr that the fake has not closed, or
// dials one.
func (t *fakeTransport) get(ctx context.Context, addr string) (*fakeConn, bool, error) {
	t.mu.Lock()
	for i := len(t.idle) - 1; i >= 0; i-- {
		c := t.idle[i]
		if c.addr != addr {
			continue
		}
		t.idle = append(t.idle[:i], t.idle[i+1:]...)
		t.mu.Unlock()
		if c.open() {
			return c, true, nil
		}
		c.conn.Close()
		t.mu.Lock()
		i = len(t.idle)
	}
	t.mu.Unlock()
	conn, err := fakeDialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, false, err
	}
	c := connBufs.Get().(*fakeConn)
	c.conn, c.addr = conn, addr
	c.br.Reset(conn)
	c.bw.Reset(conn)
	return c, false, nil
}

// connBufs are fakeConns without a connection: their buffers, reused by
// the next connection (a fresh fake's, one a case) instead of 8 KiB
// allocated and zeroed for each. Only an idle connection closed by
// CloseIdleConnections goes back: no exchange holds it.
var connBufs = sync.Pool{New: func() any {
	return &fakeConn{br: bufio.NewReaderSize(nil, 4096), bw: bufio.NewWriterSize(nil, 4096)}
}}

// release closes the idle connection and hands its buffers on.
func (c *fakeConn) release() {
	c.conn.Close()
	c.br.Reset(nil)
	c.bw.Reset(nil)
	c.conn, c.addr = nil, ""
	connBufs.Put(c)
}

// open reports whether the fake has not closed the idle connection (nor
// written on it unasked): a peek that does not wait (peekOpen, per OS).
func (c *fakeConn) open() bool {
	if c.br.Buffered() > 0 {
		return false
	}
	sc, ok := c.conn.(syscall.Conn)
	if !ok {
		return true
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	return peekOpen(rc)
}

func (t *fakeTransport) put(c *fakeConn) {
	_ = c.conn.SetDeadline(time.Time{}) // the next exchange's context sets its own
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.idle) >= maxFakeConns {
		c.conn.Close()
		return
	}
	t.idle = append(t.idle, c)
}

// CloseIdleConnections closes the kept connections, and the fallback's.
func (t *fakeTransport) CloseIdleConnections() {
	t.mu.Lock()
	idle, fallback := t.idle, t.fallback
	t.idle = nil
	t.mu.Unlock()
	for _, c := range idle {
		c.release()
	}
	if fallback != nil {
		fallback.CloseIdleConnections()
	}
}

// aLongTimeAgo is a deadline that has passed: it wakes a blocked read or
// write at once.
var aLongTimeAgo = time.Unix(1, 0)

// exchange writes req and reads its answer; the body, when there is one,
// hands the connection back to t once read to its end.
func (c *fakeConn) exchange(ctx context.Context, t *fakeTransport, req *http.Request) (*http.Response, error) {
	d, _ := ctx.Deadline()
	if err := c.conn.SetDeadline(d); err != nil {
		return nil, err
	}
	stop := func() bool { return true }
	if ctx.Done() != nil {
		stop = context.AfterFunc(ctx, func() { _ = c.conn.SetDeadline(aLongTimeAgo) })
	}
	resp, err := c.roundTrip(req)
	if err != nil {
		stop()
		return nil, ctxErr(ctx, d, err)
	}
	keep := !resp.Close && !req.Close && resp.StatusCode != http.StatusSwitchingProtocols
	if resp.Body == http.NoBody {
		if !stop() || !keep {
			c.conn.Close()
		} else {
			t.put(c)
		}
		return resp, nil
	}
	resp.Body = &fakeBody{rc: resp.Body, c: c, t: t, ctx: ctx, deadline: d, stop: stop, keep: keep}
	return resp, nil
}

// roundTrip writes req and reads the answer, past any 1xx but 101.
func (c *fakeConn) roundTrip(req *http.Request) (*http.Response, error) {
	werr := req.Write(c.bw)
	if werr == nil {
		werr = c.bw.Flush()
	}
	if _, err := c.br.Peek(1); err != nil {
		if werr != nil {
			err = werr
		}
		return nil, beforeAnswer{err}
	}
	for {
		resp, err := http.ReadResponse(c.br, req)
		if err != nil {
			return nil, fmt.Errorf("net/http: HTTP/1.x transport connection broken: %w", err) // as net/http says it
		}
		if resp.StatusCode >= 100 && resp.StatusCode <= 199 && resp.StatusCode != http.StatusSwitchingProtocols {
			continue
		}
		if werr != nil {
			// The fake answered before it read the whole request: the
			// answer stands, the connection does not.
			resp.Close = true
		}
		return resp, nil
	}
}

// fakeBody is a response body read from a kept connection.
type fakeBody struct {
	rc  io.ReadCloser
	c   *fakeConn
	t   *fakeTransport
	ctx context.Context
	// deadline is ctx's, set on the connection
	deadline time.Time
	stop     func() bool // ends the context's watch; false: it fired
	keep     bool
	done     bool
}

func (b *fakeBody) Read(p []byte) (int, error) {
	if b.done {
		return 0, io.EOF
	}
	n, err := b.rc.Read(p)
	if err == io.EOF {
		b.finish(true)
	} else if err != nil {
		b.finish(false)
		err = ctxErr(b.ctx, b.deadline, err)
	}
	return n, err
}

func (b *fakeBody) Close() error {
	if !b.done {
		b.finish(false) // not read to its end: the connection cannot carry another answer
	}
	return nil
}

// finish hands the connection back when the body was read to its end
// (whole) and may carry another exchange, or closes it.
func (b *fakeBody) finish(whole bool) {
	b.done = true
	if b.stop() && whole && b.keep {
		b.t.put(b.c)
		return
	}
	b.c.conn.Close()
}
