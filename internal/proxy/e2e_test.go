package proxy

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// binaryBody is a body that is not UTF-8, to prove bytes survive.
var binaryBody = func() []byte {
	b := make([]byte, 4096)
	for i := range b {
		b[i] = byte(i * 7)
	}
	return b
}()

// upstreamHandler is the real service of the end-to-end tests.
func upstreamHandler(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/json":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"proto":"%s","items":[1,2,3],"q":%q}`+"\n", "x", r.URL.RawQuery)
	case r.URL.Path == "/bin":
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(binaryBody)
	case r.URL.Path == "/echo":
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", r.Header.Get("Content-Type"))
		w.Write(b)
	case r.URL.Path == "/chunked":
		for i := range 3 {
			fmt.Fprintf(w, "chunk %d\n", i)
			w.(http.Flusher).Flush()
		}
	case strings.HasPrefix(r.URL.Path, "/item/"):
		fmt.Fprintf(w, "item %s", strings.TrimPrefix(r.URL.Path, "/item/"))
	default:
		http.NotFound(w, r)
	}
}

// newUpstream starts a real TLS server (HTTP/2 when h2).
func newUpstream(t testing.TB, h http.Handler, h2 bool) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.EnableHTTP2 = h2
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// trusting is an upstream transport that trusts srv's self-signed certificate.
func trusting(srv *httptest.Server) *http.Transport {
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	return &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
}

func startProxy(t testing.TB, opts Options) *Proxy {
	t.Helper()
	p, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// forwardClient is a Go client that uses p as its HTTPS proxy and trusts the CA.
func forwardClient(t testing.TB, p *Proxy, h2 bool) *http.Client {
	u, _ := http.NewRequest("GET", p.URL(), nil)
	tr := &http.Transport{
		Proxy:               http.ProxyURL(u.URL),
		TLSClientConfig:     &tls.Config{RootCAs: testCA(t).CertPool()},
		ForceAttemptHTTP2:   h2,
		MaxIdleConnsPerHost: 64,
	}
	if !h2 {
		tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 20 * time.Second}
}

func flushed(t testing.TB, p *Proxy) []cassettes.Interaction {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	return p.Interactions()
}

type call struct {
	method, path, ctype, body string
}

var calls = []call{
	{"GET", "/json?b=2&a=1", "", ""},
	{"GET", "/bin", "", ""},
	{"POST", "/echo", "application/json", `{"z":1,"a":[true,null]}`},
	{"GET", "/chunked", "", ""},
}

func do(t testing.TB, c *http.Client, base string, k call) (int, []byte, http.Header) {
	t.Helper()
	var body io.Reader
	if k.body != "" {
		body = strings.NewReader(k.body)
	}
	req, err := http.NewRequest(k.method, base+k.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if k.ctype != "" {
		req.Header.Set("Content-Type", k.ctype)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b, resp.Header
}

// TestRecordThenReplayGoClient records through each front door with a real
// Go client over real TLS, stops the upstream, and replays offline.
func TestRecordThenReplayGoClient(t *testing.T) {
	tests := []struct {
		name    string
		reverse bool
		h2      bool // client and upstream speak HTTP/2
	}{
		{"forward MITM HTTP/1.1", false, false},
		{"forward MITM HTTP/2", false, true},
		{"reverse proxy to HTTP/1.1 upstream", true, false},
		{"reverse proxy to HTTP/2 upstream", true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			up := newUpstream(t, http.HandlerFunc(upstreamHandler), tc.h2)
			opts := Options{Mode: ModeRecord, CA: testCA(t), Transport: trusting(up)}
			client, base := &http.Client{Timeout: 20 * time.Second}, ""
			if tc.reverse {
				opts.Upstream = up.URL
			}
			rec := startProxy(t, opts)
			if tc.reverse {
				base = rec.URL()
			} else {
				client, base = forwardClient(t, rec, tc.h2), up.URL
			}
			want := make([][]byte, len(calls))
			for i, k := range calls {
				code, b, _ := do(t, client, base, k)
				if code != 200 {
					t.Fatalf("%s: status %d: %s", k.path, code, b)
				}
				want[i] = b
			}
			its := flushed(t, rec)
			if len(its) != len(calls) {
				t.Fatalf("recorded %d interactions, want %d", len(its), len(calls))
			}
			for i, it := range its {
				if it.ID != i || it.Request.RemoteAddr != "" || it.Request.RequestURI != "" {
					t.Errorf("interaction %d: ID %d remote %q uri %q", i, it.ID, it.Request.RemoteAddr, it.Request.RequestURI)
				}
				if string(it.Response.Body) != string(want[i]) {
					t.Errorf("interaction %d: recorded body differs from what the client got", i)
				}
			}
			if wantProto := map[bool]string{true: "HTTP/2.0", false: "HTTP/1.1"}[tc.h2]; its[0].Response.Proto != wantProto {
				t.Errorf("recorded response proto %q, want %q", its[0].Response.Proto, wantProto)
			}
			if !tc.reverse && tc.h2 && its[0].Request.Proto != "HTTP/2.0" {
				t.Errorf("client spoke %q to the MITM, want HTTP/2.0", its[0].Request.Proto)
			}
			rec.Close()
			up.Close() // from here on, the network cannot answer

			opts.Mode, opts.Cassettes = ModeReplay, []*cassettes.Cassette{{Interactions: its}}
			rep := startProxy(t, opts)
			if tc.reverse {
				base = rep.URL()
			} else {
				client = forwardClient(t, rep, tc.h2)
			}
			for i, k := range calls {
				code, b, _ := do(t, client, base, k)
				if code != 200 || !bytes.Equal(b, want[i]) {
					t.Errorf("replay %s: status %d, body equal %v", k.path, code, bytes.Equal(b, want[i]))
				}
			}
			if m := rep.Misses(); len(m) != 0 {
				t.Errorf("replay missed: %s", m[0].Text())
			}
		})
	}
}

// TestSSEStreams proves the first event reaches the client while the
// upstream is still holding the response open, and that replay keeps the
// event boundaries.
func TestSSEStreams(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		t.Run(fmt.Sprintf("h2=%v", h2), func(t *testing.T) {
			release := make(chan struct{})
			finished := make(chan struct{})
			up := newUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				defer close(finished)
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, "event: a\ndata: one\n\n")
				w.(http.Flusher).Flush()
				select {
				case <-release:
				case <-r.Context().Done():
					return
				}
				io.WriteString(w, "data: two\n\ndata: three\n\n")
			}), h2)
			rec := startProxy(t, Options{Mode: ModeRecord, CA: testCA(t), Transport: trusting(up)})
			c := forwardClient(t, rec, h2)
			resp, err := c.Get(up.URL + "/events")
			if err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReader(resp.Body)
			first := readEvent(t, br)
			select {
			case <-finished:
				t.Fatal("upstream finished before the client read the first event")
			default:
			}
			if first != "event: a\ndata: one\n\n" {
				t.Fatalf("first event %q", first)
			}
			close(release)
			rest, _ := io.ReadAll(br)
			resp.Body.Close()
			its := flushed(t, rec)
			if len(its) != 1 {
				t.Fatalf("recorded %d interactions", len(its))
			}
			wantEvents := []string{"event: a\ndata: one", "data: two", "data: three"}
			if got := events(string(its[0].Response.Body)); strings.Join(got, "|") != strings.Join(wantEvents, "|") {
				t.Errorf("recorded events %q", got)
			}
			if first+string(rest) != string(its[0].Response.Body) {
				t.Error("recorded stream differs from what the client got")
			}
			up.Close()
			rep := startProxy(t, Options{Mode: ModeReplay, CA: testCA(t), Cassettes: []*cassettes.Cassette{{Interactions: its}}})
			_, b, h := do(t, forwardClient(t, rep, h2), up.URL, call{"GET", "/events", "", ""})
			if got := events(string(b)); strings.Join(got, "|") != strings.Join(wantEvents, "|") {
				t.Errorf("replayed events %q", got)
			}
			if h.Get("Content-Type") != "text/event-stream" {
				t.Errorf("replayed content type %q", h.Get("Content-Type"))
			}
		})
	}
}

func readEvent(t *testing.T, br *bufio.Reader) string {
	t.Helper()
	var b strings.Builder
	for {
		line, err := br.ReadString('\n')
		b.WriteString(line)
		if err != nil {
			t.Fatalf("reading the first event: %v (got %q)", err, b.String())
		}
		if line == "\n" {
			return b.String()
		}
	}
}

func events(s string) []string {
	var out []string
	for _, e := range strings.Split(s, "\n\n") {
		if e != "" {
			out = append(out, e)
		}
	}
	return out
}

// TestConcurrentRecording: 1,000 requests from 50 goroutines are all
// recorded, in arrival order with IDs 0..999, and all replay.
func TestConcurrentRecording(t *testing.T) {
	const total, workers = 1000, 50
	up := newUpstream(t, http.HandlerFunc(upstreamHandler), false)
	rec := startProxy(t, Options{Mode: ModeRecord, CA: testCA(t), Transport: trusting(up)})
	run := func(c *http.Client) map[string]string {
		got := map[string]string{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		next := make(chan int)
		errc := make(chan error, workers)
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					resp, err := c.Get(fmt.Sprintf("%s/item/%d", up.URL, i))
					if err != nil {
						errc <- err
						continue
					}
					b, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					if err != nil || resp.StatusCode != 200 {
						errc <- fmt.Errorf("item %d: %d %v %s", i, resp.StatusCode, err, b)
						continue
					}
					mu.Lock()
					got[fmt.Sprint(i)] = string(b)
					mu.Unlock()
				}
			}()
		}
		for i := range total {
			next <- i
		}
		close(next)
		wg.Wait()
		close(errc)
		for err := range errc {
			t.Error(err)
		}
		return got
	}
	got := run(forwardClient(t, rec, false))
	its := flushed(t, rec)
	if len(its) != total {
		t.Fatalf("recorded %d interactions, want %d", len(its), total)
	}
	seen := map[string]bool{}
	for i, it := range its {
		if it.ID != i {
			t.Fatalf("interaction %d has ID %d", i, it.ID)
		}
		if seen[it.Request.URL] {
			t.Fatalf("%s recorded twice", it.Request.URL)
		}
		seen[it.Request.URL] = true
	}
	up.Close()
	rep := startProxy(t, Options{Mode: ModeReplay, CA: testCA(t), Cassettes: []*cassettes.Cassette{{Interactions: its}}})
	again := run(forwardClient(t, rep, false))
	if len(again) != total {
		t.Fatalf("replayed %d, want %d", len(again), total)
	}
	for k, v := range got {
		if again[k] != v || v != "item "+k {
			t.Fatalf("item %s: recorded %q replayed %q", k, v, again[k])
		}
	}
}

func TestUpstreamFailureIsAnswered(t *testing.T) {
	up := newUpstream(t, http.HandlerFunc(upstreamHandler), false)
	tr := trusting(up)
	url := up.URL
	up.Close()
	for _, reverse := range []bool{false, true} {
		t.Run(fmt.Sprintf("reverse=%v", reverse), func(t *testing.T) {
			opts := Options{Mode: ModeRecord, CA: testCA(t), Transport: tr}
			if reverse {
				opts.Upstream = url
			}
			p := startProxy(t, opts)
			c, base := forwardClient(t, p, false), url
			if reverse {
				c, base = http.DefaultClient, p.URL()
			}
			code, b, h := do(t, c, base, call{"GET", "/json", "", ""})
			if code != http.StatusBadGateway || h.Get(MissHeader) != "upstream" || !strings.Contains(string(b), "did not answer") {
				t.Errorf("got %d %q %q", code, h.Get(MissHeader), b)
			}
			if n := len(flushed(t, p)); n != 0 {
				t.Errorf("recorded %d failed interactions", n)
			}
		})
	}
}

func TestPassthroughTunnels(t *testing.T) {
	up := newUpstream(t, http.HandlerFunc(upstreamHandler), false)
	p := startProxy(t, Options{Mode: ModePassthrough})
	u, _ := http.NewRequest("GET", p.URL(), nil)
	pool := x509.NewCertPool()
	pool.AddCert(up.Certificate())
	// The client trusts only the upstream: it can only succeed through a tunnel.
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(u.URL), TLSClientConfig: &tls.Config{RootCAs: pool}}}
	code, b, _ := do(t, c, up.URL, call{"GET", "/bin", "", ""})
	if code != 200 || !bytes.Equal(b, binaryBody) {
		t.Fatalf("passthrough: %d, %d bytes", code, len(b))
	}
	if n := len(flushed(t, p)); n != 0 {
		t.Errorf("passthrough recorded %d interactions", n)
	}
}

func TestRecordOnceAndNewEpisodes(t *testing.T) {
	up := newUpstream(t, http.HandlerFunc(upstreamHandler), false)
	recorded := cassettes.Interaction{
		Request:  cassettes.Request{Method: "GET", URL: up.URL + "/json"},
		Response: cassettes.Response{Code: 200, Status: "200 OK", Body: "from the cassette", Headers: http.Header{}},
	}
	tests := []struct {
		name      string
		mode      Mode
		cassette  []cassettes.Interaction
		wantMode  Mode
		wantBody  map[string]string // path → body
		wantSaved int
	}{
		{"record-once with an empty cassette records", ModeRecordOnce, nil, ModeRecord,
			map[string]string{"/item/1": "item 1"}, 1},
		{"record-once with interactions replays", ModeRecordOnce, []cassettes.Interaction{recorded}, ModeReplay,
			map[string]string{"/json": "from the cassette"}, 0},
		{"new episodes serve hits and record misses", ModeReplayWithNewEpisodes, []cassettes.Interaction{recorded}, ModeReplayWithNewEpisodes,
			map[string]string{"/json": "from the cassette", "/item/7": "item 7"}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := startProxy(t, Options{Mode: tc.mode, CA: testCA(t), Transport: trusting(up),
				Cassettes: []*cassettes.Cassette{{Interactions: tc.cassette}}})
			if p.Mode() != tc.wantMode {
				t.Errorf("effective mode %s, want %s", p.Mode(), tc.wantMode)
			}
			c := forwardClient(t, p, false)
			for path, want := range tc.wantBody {
				if _, b, _ := do(t, c, up.URL, call{"GET", path, "", ""}); string(b) != want {
					t.Errorf("%s: %q, want %q", path, b, want)
				}
			}
			if n := len(flushed(t, p)); n != tc.wantSaved {
				t.Errorf("recorded %d, want %d", n, tc.wantSaved)
			}
		})
	}
}

func TestListenMustBeLoopback(t *testing.T) {
	tests := []struct {
		listen string
		allow  bool
		ok     bool
	}{
		{"127.0.0.1:0", false, true},
		{"[::1]:0", false, true},
		{"localhost:0", false, true},
		{"0.0.0.0:0", false, false},
		{":0", false, false},
		{"192.0.2.1:0", false, false},
		{"0.0.0.0:0", true, true},
		{"nonsense", true, false},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s allow=%v", tc.listen, tc.allow), func(t *testing.T) {
			_, err := New(Options{Mode: ModeReplay, Listen: tc.listen, AllowNonLoopback: tc.allow, Upstream: "http://example.com"})
			if (err == nil) != tc.ok {
				t.Fatalf("err = %v, want ok=%v", err, tc.ok)
			}
			var ce *outcome.Error
			if err != nil && (!errors.As(err, &ce) || ce.Reason != outcome.EUsage || ce.NextStep == "") {
				t.Errorf("err = %#v, want an E_USAGE with a next step", err)
			}
		})
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"unknown mode", Options{Mode: "rewind", Upstream: "http://x"}, "unknown proxy mode"},
		{"forward proxy without CA", Options{Mode: ModeRecord}, "cassette ca init"},
		{"upstream not a URL", Options{Mode: ModeRecord, Upstream: "api.example.com"}, "not an http(s) base URL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.opts)
			ce := outcome.AsError(err)
			if err == nil || !strings.Contains(ce.Message+ce.NextStep, tc.want) || ce.Reason.Exit() != outcome.ExitUser {
				t.Errorf("err = %v, want a user error mentioning %q", err, tc.want)
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe for a writer goroutine and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
