package proxy

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"log"
	"net"
	"net/http"
	"sync"
	"time"
)

// A replaying forward proxy serves the requests inside a CONNECT tunnel
// itself: the tunnel's connection, once its TLS handshake is done with
// the host's leaf certificate, is handed to a net/http server of the
// proxy's own (tunnels), which reads the requests, HTTP/1.1 or HTTP/2 as
// ALPN decided, and answers each from the cassettes through the same
// serveReplay as the reverse door. goproxy's MITM loop (a request parser,
// a context and a response serialized by hand per request) was half of
// the forward proxy's time at 604-byte bodies; a recording proxy still
// goes through it, since it forwards.
//
// A tunnel whose first byte is not a TLS handshake carries plain HTTP and
// is served by the same server; a CONNECT that cannot be taken over (the
// proxy's handler embedded in a server that cannot hijack) goes to
// goproxy as before.

// tunnels serves the connections of intercepted CONNECT tunnels.
type tunnels struct {
	srv   *http.Server
	queue *connQueue
	start sync.Once
}

// tunnelConn is a CONNECT tunnel's client connection, with the bytes the
// proxy read past the CONNECT request and the host it named.
type tunnelConn struct {
	net.Conn
	r    *bufio.Reader
	host string // host:port of the CONNECT request
}

func (c *tunnelConn) Read(b []byte) (int, error) { return c.r.Read(b) }

type connectHostKey struct{}

// newTunnels builds the server of a replaying forward proxy; it serves
// from the first tunnel on.
func (p *Proxy) newTunnels() *tunnels {
	t := &tunnels{queue: newConnQueue()}
	t.srv = &http.Server{
		Handler:           http.HandlerFunc(p.serveInTunnel),
		ReadHeaderTimeout: ReadHeaderTimeout,
		IdleTimeout:       IdleTimeout,
		ErrorLog:          log.New(logWriter{p}, "http: ", 0),
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			if tc, ok := c.(*tls.Conn); ok {
				c = tc.NetConn()
			}
			if tc, ok := c.(*tunnelConn); ok {
				ctx = context.WithValue(ctx, connectHostKey{}, tc.host)
			}
			return ctx
		},
	}
	// HTTP/2 over the tunnels' TLS (and HTTP/1.1): the ALPN the leaf's
	// configuration offers picks one.
	t.srv.Protocols = new(http.Protocols)
	t.srv.Protocols.SetHTTP1(true)
	t.srv.Protocols.SetHTTP2(true)
	return t
}

// serveTunnel takes over a CONNECT request's connection and serves the
// tunnel itself; false when the connection cannot be taken over.
func (p *Proxy) serveTunnel(w http.ResponseWriter, r *http.Request) bool {
	hj, ok := w.(http.Hijacker)
	if !ok || p.tunnels == nil {
		return false
	}
	host := r.Host
	if host == "" {
		host = r.URL.Host
	}
	conn, rw, err := hj.Hijack()
	if err != nil {
		p.logf("CONNECT %s: cannot take over the connection: %v", host, err)
		return true
	}
	p.tunnels.start.Do(func() { go func() { _ = p.tunnels.srv.Serve(p.tunnels.queue) }() })
	if _, err := conn.Write([]byte("HTTP/1.1 200 OK\r\n\r\n")); err != nil {
		conn.Close()
		return true
	}
	go p.openTunnel(&tunnelConn{Conn: conn, r: rw.Reader, host: host})
	return true
}

// openTunnel waits for the tunnel's first byte, does the server side of
// the TLS handshake with the host's leaf certificate when the tunnel
// carries TLS (each bounded by ReadHeaderTimeout), and queues the
// connection for the tunnels' server, which serves HTTP/2 on it when ALPN
// chose h2, else HTTP/1.1.
func (p *Proxy) openTunnel(c *tunnelConn) {
	_ = c.SetReadDeadline(time.Now().Add(ReadHeaderTimeout))
	first, err := c.r.Peek(1)
	_ = c.SetReadDeadline(time.Time{})
	if err != nil {
		c.Close()
		return
	}
	var conn net.Conn = c
	if first[0] == 0x16 { // a TLS handshake record
		cfg, err := p.opts.CA.tlsConfigFor(c.host)
		if err != nil {
			p.logf("CONNECT %s: %v", c.host, err)
			c.Close()
			return
		}
		cfg.NextProtos = []string{"h2", "http/1.1"}
		tc := tls.Server(c, cfg)
		ctx, cancel := context.WithTimeout(context.Background(), ReadHeaderTimeout)
		err = tc.HandshakeContext(ctx)
		cancel()
		if err != nil {
			p.logf("CONNECT %s: TLS handshake: %v", c.host, err)
			tc.Close()
			return
		}
		conn = tc
	}
	if !p.tunnels.queue.push(conn) {
		conn.Close()
	}
}

// serveInTunnel answers a request read from a tunnel: its origin-form
// target is made absolute on the host it names (the CONNECT's when it
// names none), as goproxy does, and served from the cassettes.
func (p *Proxy) serveInTunnel(w http.ResponseWriter, r *http.Request) {
	bodyDeadline(w, r, p.bodyReadTimeout())
	u := *r.URL
	u.Scheme, u.Host = "http", r.Host
	if r.TLS != nil {
		u.Scheme = "https"
	}
	if u.Host == "" {
		u.Host, _ = r.Context().Value(connectHostKey{}).(string)
	}
	r.URL, r.Host = &u, u.Host
	p.serveReplay(replayWriter(w, p.opts.SimulateLatency), r)
}

// connQueue is a net.Listener whose connections are pushed to it.
type connQueue struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newConnQueue() *connQueue {
	return &connQueue{conns: make(chan net.Conn), closed: make(chan struct{})}
}

// push hands c to the server, or reports false once the queue is closed.
func (q *connQueue) push(c net.Conn) bool {
	select {
	case q.conns <- c:
		return true
	case <-q.closed:
		return false
	}
}

func (q *connQueue) Accept() (net.Conn, error) {
	select {
	case c := <-q.conns:
		return c, nil
	case <-q.closed:
		return nil, net.ErrClosed
	}
}

func (q *connQueue) Close() error {
	q.once.Do(func() { close(q.closed) })
	return nil
}

func (q *connQueue) Addr() net.Addr { return tunnelAddr{} }

type tunnelAddr struct{}

func (tunnelAddr) Network() string { return "tunnel" }
func (tunnelAddr) String() string  { return "CONNECT tunnels" }

// close stops the tunnels' server and every tunnel it serves.
func (t *tunnels) close() {
	if t == nil {
		return
	}
	t.queue.Close()
	_ = t.srv.Close()
}

// shutdown stops the tunnels' server once the requests in progress are
// answered (or ctx ends).
func (t *tunnels) shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	t.queue.Close()
	if err := t.srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
