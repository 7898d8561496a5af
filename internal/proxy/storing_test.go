package proxy

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
)

// heldStores starts a recording reverse proxy to upstream whose keeping of
// what it captured (storing.go) waits until something settles: each
// response reaches the client with its redaction still to do.
func heldStores(t *testing.T, upstream string, log io.Writer) *Proxy {
	t.Helper()
	p, err := New(Options{Mode: ModeRecord, Upstream: upstream, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	var once sync.Once
	p.stores.beforeKeep = func() { <-release }
	p.stores.waiting = func() { once.Do(func() { close(release) }) }
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func get(t *testing.T, c *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// TestResponsesDoNotWaitForTheirStore: while the first interaction's
// redaction has not run, the client gets that response and the next two
// on the same connection; Interactions then has all three, in order,
// redacted (it waits for what is queued). A response's end is noted (and
// its interaction queued) just after its last bytes went to the client,
// still inside its handler: a fourth request on the same connection,
// which the server reads only once the third's handler returned, makes
// sure the third is queued before Interactions is asked (the fourth
// itself may or may not be, and is not asserted). Callers that stop a
// proxy use Flush or Shutdown, which wait for handlers too.
func TestResponsesDoNotWaitForTheirStore(t *testing.T) {
	const token = "TOKENheld0123456789"
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/login" {
			io.WriteString(w, `{"access_token":"`+token+`"}`)
			return
		}
		io.WriteString(w, `{"path":"`+r.URL.Path+`"}`)
	}))
	defer up.Close()
	p := heldStores(t, up.URL, nil)
	c := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}}
	defer c.CloseIdleConnections()
	for _, path := range []string{"/login", "/a", "/b"} {
		if code, body := get(t, c, p.URL()+path); code != http.StatusOK || (path == "/login") != strings.Contains(body, token) {
			t.Fatalf("GET %s: %d %s", path, code, body)
		}
	}
	if code, _ := get(t, c, p.URL()+"/sync"); code != http.StatusOK {
		t.Fatalf("GET /sync: %d", code)
	}
	its := p.Interactions()
	if len(its) != 3 && len(its) != 4 {
		t.Fatalf("Interactions returned %d interactions before the queued ones were kept, want the 3 answered before /sync (and /sync or not)", len(its))
	}
	for i, want := range []string{"/login", "/a", "/b"} {
		if got := its[i].Request.URL; !strings.HasSuffix(got, want) {
			t.Errorf("interaction %d is %s, want %s", i, got, want)
		}
	}
	if b := string(its[0].Response.Body); strings.Contains(b, token) {
		t.Errorf("the stored login response holds its token: %s", b)
	}
}

// TestFailureWaitsForWhatWasLearned: a token the previous response
// returned is scrubbed from the failure of the next request that names it
// in its path, although that response's redaction (which learns it) had
// not run when the request came.
func TestFailureWaitsForWhatWasLearned(t *testing.T) {
	const token = "TOKENlearned98765432"
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/login" {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"access_token":"`+token+`"}`)
			return
		}
		conn, _, err := http.NewResponseController(w).Hijack() // the upstream drops the call
		if err == nil {
			conn.Close()
		}
	}))
	defer up.Close()
	var log bytes.Buffer
	var mu sync.Mutex
	p := heldStores(t, up.URL, lockedWriter{&mu, &log})
	c := &http.Client{Transport: &http.Transport{}}
	defer c.CloseIdleConnections()
	if _, body := get(t, c, p.URL()+"/login"); !strings.Contains(body, token) {
		t.Fatalf("the client must get the live token: %s", body)
	}
	code, body := get(t, c, p.URL()+"/v1/"+token+"/items")
	if code != http.StatusBadGateway {
		t.Fatalf("GET of a dropped call: %d %s", code, body)
	}
	fails := p.Failures()
	mu.Lock()
	defer mu.Unlock()
	if len(fails) != 1 {
		t.Fatalf("failures = %v, want the dropped call", fails)
	}
	for what, s := range map[string]string{"the 502 body": body, "the failure": fails[0].String(), "the log": log.String()} {
		if strings.Contains(s, token) {
			t.Errorf("%s holds the token learned from the response before it:\n%s", what, s)
		}
	}
}

// TestCaptureBodyWriteTo: the body relayed through WriteTo (io.Copy's
// path) is the upstream's, byte for byte, and so is what is captured, for
// a body of unknown length read a few bytes at a time and one of a known
// length; a client that stops taking it leaves the capture incomplete.
func TestCaptureBodyWriteTo(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 5000) // 80,000 bytes: grows past one chunk
	for _, tc := range []struct {
		name   string
		r      io.Reader
		length int64
		want   string
	}{
		{"unknown length, small reads", iotest.HalfReader(strings.NewReader(big)), -1, big},
		{"known length", strings.NewReader(big), int64(len(big)), big},
		{"empty", strings.NewReader(""), 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCaptureBody(io.NopCloser(tc.r), tc.length)
			var got []byte
			calls := 0
			c.done = func(b []byte, complete bool) {
				calls++
				if !complete {
					t.Error("a body read to its end is reported incomplete")
				}
				got = append([]byte(nil), b...)
			}
			var out bytes.Buffer
			n, err := io.Copy(&out, c)
			if err != nil || n != int64(out.Len()) {
				t.Fatalf("io.Copy = %d, %v (wrote %d)", n, err, out.Len())
			}
			c.Close()
			if out.String() != tc.want || string(got) != tc.want || calls != 1 {
				t.Errorf("relayed %d bytes, captured %d, done called %d times; want %d, the same, once", out.Len(), len(got), calls, len(tc.want))
			}
		})
	}
	t.Run("end noted after the last write", func(t *testing.T) {
		// net/http's body returns its last bytes with io.EOF.
		c := newCaptureBody(io.NopCloser(iotest.DataErrReader(strings.NewReader("last bytes"))), 10)
		ended := false
		c.done = func([]byte, bool) { ended = true }
		w := &watchingWriter{ended: &ended}
		if _, err := io.Copy(w, c); err != nil || w.got.String() != "last bytes" {
			t.Fatalf("io.Copy: %v, wrote %q", err, w.got.String())
		}
		if w.endedBefore || !ended {
			t.Errorf("the end was noted before the bytes that came with it were written (%v), or never (%v)", w.endedBefore, !ended)
		}
	})
	t.Run("client gone", func(t *testing.T) {
		c := newCaptureBody(io.NopCloser(strings.NewReader(big)), -1)
		complete := true
		c.done = func(_ []byte, ok bool) { complete = ok }
		gone := errors.New("client gone")
		_, err := io.Copy(failingWriter{gone}, c)
		c.Close()
		if !errors.Is(err, gone) || complete {
			t.Errorf("io.Copy = %v, complete = %v; want the writer's error and an incomplete capture", err, complete)
		}
	})
}

type failingWriter struct{ err error }

func (f failingWriter) Write([]byte) (int, error) { return 0, f.err }

// watchingWriter notes whether the body's end had been noted when it was
// written to.
type watchingWriter struct {
	got         bytes.Buffer
	ended       *bool
	endedBefore bool
}

func (w *watchingWriter) Write(b []byte) (int, error) {
	w.endedBefore = w.endedBefore || *w.ended
	return w.got.Write(b)
}
