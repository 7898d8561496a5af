package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/proxy"
	"github.com/cassette-dev/cassette/internal/recording"
	"github.com/cassette-dev/cassette/internal/redact"
)

// lockedBuffer is an output written by the proxy's goroutine and read by
// the test; ready is closed once it holds the listening line.
type lockedBuffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	ready chan struct{}
	once  sync.Once
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.b.Write(p)
	if strings.Contains(l.b.String(), "press Ctrl-C") {
		l.once.Do(func() { close(l.ready) })
	}
	return n, err
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// addr is the URL the proxy said it listens on.
func (l *lockedBuffer) addr(t *testing.T) string {
	t.Helper()
	<-l.ready
	s := l.String()
	line := s[strings.Index(s, "listening on ")+len("listening on "):]
	return line[:strings.IndexByte(line, '\n')]
}

// TestServeProxySavesOnStop: `cassette proxy --mode record` serves until
// its context ends (what SIGINT does), then saves what it recorded and
// lists it, each URL redacted with what was learned in the whole session:
// a token first seen in a path and learned only from a later bearer header
// is in no line.
func TestServeProxySavesOnStop(t *testing.T) {
	const tok = "tok-5f1e0c9a7b3d"
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "item "+strings.TrimPrefix(r.URL.Path, "/item/"))
	}))
	defer up.Close()
	red := redact.New(nil, nil)
	out := &lockedBuffer{ready: make(chan struct{})}
	path := filepath.Join(t.TempDir(), "shop", "items.yaml")
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- recording.ServeProxy(ctx, out, proxyOptionsFor(up.URL, red, out), &recording.ProxySave{Meta: recording.Meta{Adapter: "shop", Scenario: "items"}, Path: path, Redactor: red}, nil)
	}()
	addr := out.addr(t)
	for _, bearer := range []string{"", tok} {
		req, _ := http.NewRequest("GET", addr+"/item/"+tok, nil)
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	c, err := cassettes.Load(path, cassettes.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Interactions) != 2 || c.Adapter != "shop" {
		t.Errorf("saved %d interactions of %q", len(c.Interactions), c.Adapter)
	}
	s := out.String()
	for _, want := range []string{"recorded GET " + up.URL + "/item/[REDACTED] → 200", "saved 2 interaction(s) to " + path, "2 interaction(s) recorded, 0 replayed"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, tok) {
		t.Errorf("the token is in the output:\n%s", s)
	}
}

func proxyOptionsFor(upstream string, red *redact.Redactor, log io.Writer) proxy.Options {
	return proxy.Options{Mode: proxy.ModeRecord, Upstream: upstream, Redact: red, Log: log}
}
