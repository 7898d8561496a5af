package proxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestTruncatedResponseIsNotSaved: a client that goes away in the middle of
// a response leaves no interaction with a cut body (it used to be saved with
// status 200 and the truncated length); it is reported instead.
func TestTruncatedResponseIsNotSaved(t *testing.T) {
	const total = 8 << 20
	release := make(chan struct{})
	srv := newUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(total))
		w.Write([]byte(strings.Repeat("a", 1024)))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		chunk := []byte(strings.Repeat("b", 64<<10))
		for n := 1024; n < total; n += len(chunk) {
			if _, err := w.Write(chunk[:min(len(chunk), total-n)]); err != nil {
				return
			}
		}
	}), false)
	var log syncBuffer
	p := startProxy(t, Options{Mode: ModeRecord, Upstream: srv.URL, Transport: trusting(srv), Log: &log})

	conn, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(resp.Body, make([]byte, 1024)); err != nil {
		t.Fatal(err)
	}
	conn.Close() // the client goes away after 1 KiB of 8 MiB
	close(release)

	if got := flushed(t, p); len(got) != 0 {
		t.Fatalf("%d interaction(s) recorded, want none: body %d bytes, content_length %d", len(got), len(got[0].Response.Body), got[0].Response.ContentLength)
	}
	inc := p.Incomplete()
	if len(inc) != 1 || inc[0].Method != "GET" || inc[0].Code != 200 || inc[0].Length != total || inc[0].Bytes >= total {
		t.Fatalf("Incomplete = %+v", inc)
	}
	if !strings.Contains(log.String(), "not recorded: the response did not reach its end") {
		t.Errorf("the log does not report it:\n%s", log.String())
	}
}

// TestRequestBodyBound: a request body over the bound is answered 413 with
// the limit and the flag to raise it, through the reverse and the forward
// door; nothing reaches the upstream and nothing is recorded.
func TestRequestBodyBound(t *testing.T) {
	var reached atomic.Int32
	srv := newUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		io.Copy(io.Discard, r.Body)
	}), true)
	for _, door := range []string{"reverse", "forward-h1", "forward-h2"} {
		t.Run(door, func(t *testing.T) {
			opts := Options{Mode: ModeRecord, Transport: trusting(srv), MaxRequestBody: 1000}
			base := srv.URL
			if door == "reverse" {
				opts.Upstream = srv.URL
			} else {
				opts.CA = testCA(t)
			}
			p := startProxy(t, opts)
			c := &http.Client{}
			if door == "reverse" {
				base = p.URL()
			} else {
				c = forwardClient(t, p, door == "forward-h2")
			}
			code, body, _ := do(t, c, base, call{"POST", "/up", "text/plain", strings.Repeat("x", 1001)})
			if code != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "larger than 1000 bytes") ||
				!strings.Contains(string(body), "--max-request-body") {
				t.Errorf("%d %s", code, body)
			}
			code, _, _ = do(t, c, base, call{"POST", "/up", "text/plain", strings.Repeat("x", 1000)})
			if code != 200 {
				t.Errorf("a body at the bound: %d", code)
			}
			if got := flushed(t, p); len(got) != 1 {
				t.Errorf("%d interactions recorded, want the one under the bound", len(got))
			}
		})
	}
	if reached.Load() != 3 {
		t.Errorf("the upstream got %d requests, want only the 3 under the bound", reached.Load())
	}
}

// TestSlowRequestBodyTimesOut: a client that sends headers and then holds
// its body is answered and cut off after Options.BodyReadTimeout, instead
// of holding a connection and a goroutine for ever.
func TestSlowRequestBodyTimesOut(t *testing.T) {
	srv := newUpstream(t, http.HandlerFunc(upstreamHandler), false)
	p := startProxy(t, Options{Mode: ModeRecord, Upstream: srv.URL, Transport: trusting(srv), BodyReadTimeout: 100 * time.Millisecond})
	conn, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789")
	conn.SetReadDeadline(time.Now().Add(3 * time.Second)) // a bound for the test, not the thing tested
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err == nil {
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("status %d, want 400 or a closed connection", resp.StatusCode)
		}
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("the proxy still waits for the body after its timeout")
	}
	if got := flushed(t, p); len(got) != 0 {
		t.Errorf("%d interactions recorded from a body that never came", len(got))
	}
	if p.srv.IdleTimeout == 0 || p.srv.ReadHeaderTimeout == 0 {
		t.Errorf("server timeouts: idle %v, header %v", p.srv.IdleTimeout, p.srv.ReadHeaderTimeout)
	}
}

// TestServingGCPercent: a small live heap may grow by servingHeapGrowth
// between collections; a large one keeps Go's target.
func TestServingGCPercent(t *testing.T) {
	for _, tc := range []struct {
		prev int
		live uint64
		want int
	}{
		{100, 1 << 20, 1600},  // 1 MB live: a 17 MB target
		{100, 4 << 20, 400},   // 4 MB: 20 MB
		{100, 0, 1600},        // unknown, or under 1 MB: as 1 MB
		{100, 16 << 20, 100},  // 16 MB and more: Go's default
		{100, 195 << 20, 100}, // 100,000 interactions
		{2000, 1 << 20, 2000}, // already higher
	} {
		if got := servingGCPercent(tc.prev, tc.live); got != tc.want {
			t.Errorf("servingGCPercent(%d, %d MB) = %d, want %d", tc.prev, tc.live>>20, got, tc.want)
		}
	}
}
