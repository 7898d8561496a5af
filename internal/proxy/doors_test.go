package proxy

import (
	"crypto/tls"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/match"
)

// countingListener counts the writes on the connections it accepts: the
// write system calls a server makes.
type countingListener struct {
	net.Listener
	writes atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, n: &l.writes}, nil
}

type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c *countingConn) Write(b []byte) (int, error) {
	c.n.Add(1)
	return c.Conn.Write(b)
}

// serveCounting serves h on loopback (TLS when tls, HTTP/2 when h2) and
// returns the server and its write counter.
func serveCounting(t *testing.T, h http.Handler, useTLS, h2 bool) (*httptest.Server, *countingListener) {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	ln := &countingListener{Listener: srv.Listener}
	srv.Listener = ln
	if useTLS {
		srv.EnableHTTP2 = h2
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv, ln
}

// writesPerRequest is how many writes the server behind ln makes for the
// second GET of target (the first opens the connection, and its TLS).
func writesPerRequest(t *testing.T, c *http.Client, target string, ln *countingListener, size, proto int) int64 {
	t.Helper()
	get := func() {
		resp, err := c.Get(target)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || len(b) != size || resp.ProtoMajor != proto {
			t.Fatalf("GET %s: %s %s, %d bytes, want HTTP/%d 200 and %d", target, resp.Proto, resp.Status, len(b), proto, size)
		}
	}
	get()
	before := ln.writes.Load()
	get()
	return ln.writes.Load() - before
}

// TestReplayWritesLikeAPlainServer holds replay to the write system calls
// of the plainest net/http handler (w.Write of the body) serving the same
// bytes: a replayed body goes out in one write from the stored bytes, on
// the reverse door and inside the forward proxy's HTTPS tunnels, HTTP/1.1
// and HTTP/2. (Written through io.WriteString, a 64 KiB body went out in
// 4 KiB pieces: 17 writes against the plain server's 2.)
func TestReplayWritesLikeAPlainServer(t *testing.T) {
	for _, size := range []int{604, 64 << 10} {
		body := strings.Repeat("x", size)
		plain := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", strconv.Itoa(size))
			_, _ = w.Write([]byte(body))
		})
		cassette := func(rawURL string) []*cassettes.Cassette {
			return []*cassettes.Cassette{{Path: "c.yaml", Interactions: []cassettes.Interaction{{
				Request: cassettes.Request{Method: "GET", URL: rawURL},
				Response: cassettes.Response{Code: 200, Status: "200 OK", Body: cassettes.Body(body), ContentLength: int64(size),
					Headers: http.Header{"Content-Type": {"application/json"}, "Content-Length": {strconv.Itoa(size)}}},
			}}}}
		}
		t.Run(fmt.Sprintf("reverse/%d", size), func(t *testing.T) {
			srv, ln := serveCounting(t, plain, false, false)
			want := writesPerRequest(t, srv.Client(), srv.URL+"/data", ln, size, 1)
			p, err := New(Options{Mode: ModeReplay, Upstream: "http://svc.test", Cassettes: cassette("http://svc.test/data"),
				Match: match.Rules{Replayable: true}})
			if err != nil {
				t.Fatal(err)
			}
			rsrv, rln := serveCounting(t, p.Handler(), false, false)
			if got := writesPerRequest(t, rsrv.Client(), rsrv.URL+"/data", rln, size, 1); got > want {
				t.Errorf("replay made %d writes for a %d-byte body, a plain net/http server %d", got, size, want)
			}
		})
		for _, h2 := range []bool{false, true} {
			t.Run(fmt.Sprintf("forward-h2=%v/%d", h2, size), func(t *testing.T) {
				srv, ln := serveCounting(t, plain, true, h2)
				c := srv.Client()
				c.Transport.(*http.Transport).ForceAttemptHTTP2 = h2
				proto := map[bool]int{false: 1, true: 2}[h2]
				want := writesPerRequest(t, c, srv.URL+"/data", ln, size, proto)
				p, err := New(Options{Mode: ModeReplay, CA: testCA(t), Cassettes: cassette("https://svc.test/data"),
					Match: match.Rules{Replayable: true}})
				if err != nil {
					t.Fatal(err)
				}
				psrv, pln := serveCounting(t, p.Handler(), false, false)
				u, _ := url.Parse(psrv.URL)
				tr := &http.Transport{Proxy: http.ProxyURL(u), ForceAttemptHTTP2: h2,
					TLSClientConfig: &tls.Config{RootCAs: testCA(t).CertPool()}}
				if !h2 {
					tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
				}
				t.Cleanup(tr.CloseIdleConnections)
				if got := writesPerRequest(t, &http.Client{Transport: tr}, "https://svc.test/data", pln, size, proto); got > want {
					t.Errorf("forward replay made %d writes for a %d-byte body, a plain net/http TLS server %d", got, size, want)
				}
			})
		}
	}
}

// TestSavedCassettesAreNotRedactedAgain: the replay index redacts the
// recorded requests of a plain go-vcr cassette (and of one built in
// memory) before indexing them, not those of a cassette cassette saved,
// which were redacted before they were written; each is replayed.
func TestSavedCassettesAreNotRedactedAgain(t *testing.T) {
	c := func(schema int, plain bool) *cassettes.Cassette {
		return &cassettes.Cassette{Cassette: schema, Plain: plain, Path: "c.yaml", Interactions: []cassettes.Interaction{{
			Request:  cassettes.Request{Method: "GET", URL: "http://svc.test/a", Headers: http.Header{"Authorization": {"Bearer tok-unredacted-1234"}}},
			Response: cassettes.Response{Code: 200, Status: "200 OK", Body: "ok"}}}}
	}
	for _, tc := range []struct {
		name     string
		c        *cassettes.Cassette
		redacted int
	}{
		{"saved by cassette", c(1, false), 0},
		{"plain go-vcr", c(0, true), 1},
		{"built in memory", c(0, false), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The index redacting a recorded request shows as the redactor
			// learning the bearer token it hides.
			red := redact.New(nil, nil)
			p, err := New(Options{Mode: ModeReplay, Upstream: "http://svc.test", Cassettes: []*cassettes.Cassette{tc.c}, Redact: red})
			if err != nil {
				t.Fatal(err)
			}
			if got := slices.Contains(slices.Collect(maps.Values(red.Values())), "tok-unredacted-1234"); got != (tc.redacted > 0) {
				t.Errorf("the index redacted the recorded request: %v, want %v", got, tc.redacted > 0)
			}
			w := httptest.NewRecorder()
			p.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/a", nil))
			if w.Code != 200 || w.Body.String() != "ok" {
				t.Errorf("replayed: %d %q", w.Code, w.Body.String())
			}
		})
	}
}
