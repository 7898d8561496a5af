package verify

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/internal/cfgschema"
)

// rawFake listens on loopback and, on each connection, reads requests and
// gives each the next of answers (raw bytes) — after the last one, or
// where an answer is "", it closes the connection. It returns its URL and
// the number of connections accepted so far.
func rawFake(t testing.TB, answers ...string) (string, *atomic.Int32) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var conns atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for _, a := range answers {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					_, _ = io.Copy(io.Discard, req.Body)
					if a == "" {
						return
					}
					if _, err := io.WriteString(c, a); err != nil {
						return
					}
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String(), &conns
}

// exchanged is what verify reads of an answer.
type exchanged struct {
	Status           string
	Code             int
	Proto            string
	Major, Minor     int
	Header, Trailer  http.Header
	Body             string
	ContentLength    int64
	TransferEncoding []string
	Close            bool
	Err, BodyErr     string
}

// exchange sends one request with rt and reads the answer whole; errors
// are compared without the address, which differs per fake.
func exchange(rt http.RoundTripper, method, url string, body string) exchanged {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, url, rd)
	if err != nil {
		return exchanged{Err: err.Error()}
	}
	req.Header.Set("User-Agent", "")
	resp, err := (&http.Client{Transport: rt, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		return exchanged{Err: strings.ReplaceAll(err.Error(), url, "URL")}
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	e := exchanged{Status: resp.Status, Code: resp.StatusCode, Proto: resp.Proto, Major: resp.ProtoMajor, Minor: resp.ProtoMinor,
		Header: resp.Header, Trailer: resp.Trailer, Body: string(b), ContentLength: resp.ContentLength,
		TransferEncoding: resp.TransferEncoding, Close: resp.Close}
	if err != nil {
		e.BodyErr = err.Error()
	}
	return e
}

func netHTTP() *http.Transport { return &http.Transport{DisableCompression: true} }

// agreeOn sends method to a fake that answers raw, once with fakeTransport
// and once with net/http's Transport, and says how the two differ.
func agreeOn(t testing.TB, method, raw string) (fast, std exchanged) {
	u, _ := rawFake(t, raw)
	ft := newFakeTransport()
	defer ft.CloseIdleConnections()
	fast = exchange(ft, method, u, "")
	st := netHTTP()
	defer st.CloseIdleConnections()
	std = exchange(st, method, u, "")
	return fast, std
}

var rawAnswers = map[string]string{
	"content-length": "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello",
	"chunked, a trailer": "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n" +
		"5\r\nhello\r\n6\r\n world\r\n0\r\nX-Sum: 11\r\n\r\n",
	"1xx first": "HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n" +
		"HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok",
	"until closed":     "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nto the end",
	"HTTP/1.0":         "HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nold",
	"connection close": "HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 4\r\n\r\nnope",
	"no content":       "HTTP/1.1 204 No Content\r\nX-Id: 7\r\n\r\n",
	"not modified":     "HTTP/1.1 304 Not Modified\r\nEtag: \"x\"\r\n\r\n",
	"redirect":         "HTTP/1.1 302 Found\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n",
	"short body":       "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
	"no answer":        "",
	"not HTTP":         "garbage\r\n\r\n",
	"101 unasked":      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\nConnection: Upgrade\r\n\r\n",
	"both lengths":     "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
}

// TestFakeTransportReadsAsNetHTTP: for each kind of answer a fake may
// give, verify's transport reads what net/http's does, errors included.
func TestFakeTransportReadsAsNetHTTP(t *testing.T) {
	for name, raw := range rawAnswers {
		for _, method := range []string{http.MethodGet, http.MethodHead, http.MethodPost} {
			t.Run(name+"/"+method, func(t *testing.T) {
				fast, std := agreeOn(t, method, raw)
				if !reflect.DeepEqual(fast, std) {
					t.Errorf("fakeTransport read\n%+v\nnet/http\n%+v", fast, std)
				}
			})
		}
	}
}

// FuzzFakeTransportReadsAsNetHTTP: whatever a fake answers, verify's
// transport reads it as net/http's does.
func FuzzFakeTransportReadsAsNetHTTP(f *testing.F) {
	for _, raw := range rawAnswers {
		f.Add(raw, false)
	}
	f.Fuzz(func(t *testing.T, raw string, head bool) {
		method := http.MethodGet
		if head {
			method = http.MethodHead
		}
		fast, std := agreeOn(t, method, raw)
		if !reflect.DeepEqual(fast, std) {
			t.Errorf("answer %q: fakeTransport read\n%+v\nnet/http\n%+v", raw, fast, std)
		}
	})
}

// TestFakeTransportKeepsOneConnection: the exchanges of a case (and the
// readiness check before them) go over one connection, the body of each
// read to its end; one whose body was not read to its end is not reused.
func TestFakeTransportKeepsOneConnection(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/chunked" {
			w.Write([]byte("part one, "))
			w.(http.Flusher).Flush()
		}
		fmt.Fprintf(w, "%s %s", r.Method, r.URL.Path)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	ft := newFakeTransport()
	defer ft.CloseIdleConnections()
	for _, p := range []string{"/healthz", "/chunked", "/pets/1", "/chunked"} {
		if got := exchange(ft, http.MethodGet, srv.URL+p, ""); got.Code != 200 || !strings.HasSuffix(got.Body, "GET "+p) {
			t.Fatalf("%s: %+v", p, got)
		}
	}
	if got := exchange(ft, http.MethodPost, srv.URL+"/pets", `{"name":"x"}`); got.Body != "POST /pets" {
		t.Fatalf("POST: %+v", got)
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("%d connections, want 1", n)
	}
	resp, err := (&http.Client{Transport: ft}).Get(srv.URL + "/chunked")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close() // unread
	if got := exchange(ft, http.MethodGet, srv.URL+"/after", ""); got.Body != "GET /after" {
		t.Fatalf("after an unread body: %+v", got)
	}
	if n := conns.Load(); n != 2 {
		t.Fatalf("%d connections, want 2: a body left unread closes its connection", n)
	}
}

// TestFakeTransportClosedConnection: a fake that closes the kept
// connection instead of answering the next request gets the request again
// on a new connection when net/http would send it again (GET, or a POST
// with an idempotency key), and the same error as from net/http otherwise.
func TestFakeTransportClosedConnection(t *testing.T) {
	ok := "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
	for _, tc := range []struct {
		method, body, key string
	}{{http.MethodGet, "", ""}, {http.MethodPost, "{}", ""}, {http.MethodPost, "{}", "k1"}, {http.MethodPut, "", ""}} {
		t.Run(tc.method+tc.key, func(t *testing.T) {
			var got [2]exchanged
			var dials [2]int32
			for i, rt := range []http.RoundTripper{newFakeTransport(), netHTTP()} {
				u, conns := rawFake(t, ok, "") // answers one request per connection, then closes it unanswered
				if e := exchange(rt, http.MethodGet, u+"/first", ""); e.Body != "ok" {
					t.Fatalf("first: %+v", e)
				}
				req, _ := http.NewRequest(tc.method, u+"/second", strings.NewReader(tc.body))
				if tc.body == "" {
					req.Body, req.GetBody, req.ContentLength = http.NoBody, nil, 0
				}
				if tc.key != "" {
					req.Header.Set("Idempotency-Key", tc.key)
				}
				resp, err := (&http.Client{Transport: rt}).Do(req)
				if err != nil {
					got[i].Err = strings.ReplaceAll(err.Error(), u, "URL")
				} else {
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					got[i].Body = string(b)
				}
				dials[i] = conns.Load()
			}
			if !reflect.DeepEqual(got[0], got[1]) || dials[0] != dials[1] {
				t.Fatalf("fakeTransport %+v after %d connections, net/http %+v after %d", got[0], dials[0], got[1], dials[1])
			}
		})
	}
}

// holdFake reads each request and writes answer (raw), then holds the
// connection open until the test ends.
func holdFake(t testing.TB, answer string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { close(done); ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if _, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
					io.WriteString(c, answer)
				}
				<-done
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// TestFakeTransportDeadline: a fake that does not answer, or not whole,
// is the context's deadline, as from net/http.
func TestFakeTransportDeadline(t *testing.T) {
	for _, answer := range []string{"", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"} {
		u := holdFake(t, answer)
		for _, rt := range []http.RoundTripper{newFakeTransport(), netHTTP()} {
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
			resp, err := (&http.Client{Transport: rt}).Do(req)
			if err == nil {
				_, err = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%T, answer %q: %v, want the context's deadline", rt, answer, err)
			}
		}
	}
}

// TestFakeTransportUpgrades: a WebSocket case goes through net/http (the
// upgrade), on the same transport as the fake's other exchanges.
func TestFakeTransportUpgrades(t *testing.T) {
	c := sessionCassette(t)
	kase := Case{Cassette: c, Adapter: &cfgschema.Adapter{Kind: cfgschema.KindHTTP}}
	srv := httptest.NewServer(realtimeFake(true))
	defer srv.Close()
	p, err := pipeline(kase, Options{Config: &cfgschema.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	ft := newFakeTransport()
	defer ft.CloseIdleConnections()
	got, acts, err := replayHTTP(context.Background(), HTTPTarget{BaseURL: srv.URL, Client: &http.Client{Transport: ft}}, c, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(acts) != 1 || acts[0].StatusCode != 101 {
		t.Fatalf("action: %+v", acts)
	}
	cmp, err := CompareSides(kase, got, Options{Config: &cfgschema.Config{}})
	if err != nil || len(cmp.Drifts) != 0 {
		t.Fatalf("%v %+v", err, cmp)
	}
	if !bytes.Contains(acts[0].Body, []byte("→ {\"type\":\"input\"")) {
		t.Errorf("body: %s", acts[0].Body)
	}
}
