package observe

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/internal/coverage"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// TestMain lets the test binary be the test command a Job runs: with
// OBSERVE_TEST_GET set it sends one GET to the shop adapter's observed
// address and exits, as a project's test suite would.
func TestMain(m *testing.M) {
	if path := os.Getenv("OBSERVE_TEST_GET"); path != "" {
		resp, err := http.Get(os.Getenv(coverage.URLVar("shop")) + path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(9)
		}
		resp.Body.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// project writes a cassette.yaml whose http adapter shop has its fake
// already running at base.
func project(t *testing.T, base string) *workspace.Project {
	t.Helper()
	dir := t.TempDir()
	cfg := "version: 1\nadapters:\n  shop:\n    kind: http\n    fake: {base_url: \"" + base + "\"}\n"
	if err := os.WriteFile(filepath.Join(dir, "cassette.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := workspace.Load(filepath.Join(dir, "cassette.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func fakeShop(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"items":[]}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestJobObservesTheTestCommand: a Job runs a real child process with the
// fake's observed address in its environment, and the one call it made is
// in the new run, counted on stderr.
func TestJobObservesTheTestCommand(t *testing.T) {
	p := project(t, fakeShop(t).URL)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	j := &Job{Project: p, Command: []string{self}, Self: self, Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: &stderr,
		Environ: append(os.Environ(), "OBSERVE_TEST_GET=/items"), Now: func() time.Time { return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) }, Pid: 42}
	code, err := j.Run(context.Background())
	if err != nil || code != 0 {
		t.Fatalf("Run: exit %d, %v; stderr:\n%s", code, err, stderr.String())
	}
	run := filepath.Join(p.Config.Dir, filepath.FromSlash(coverage.ObservedDir), coverage.RunName(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), 42))
	if got := CallCounts(run, p.Config.Order); got != "1 call (shop 1)" {
		t.Errorf("the run %s holds %s; want 1 call (shop 1)", run, got)
	}
	if !strings.Contains(stderr.String(), "exited 0; 1 call (shop 1) in ") {
		t.Errorf("stderr does not count the call:\n%s", stderr.String())
	}
}

// TestJobRefuses: no test command, or an adapter the project does not
// declare, is a usage error with a next step that runs, and no run is made.
func TestJobRefuses(t *testing.T) {
	p := project(t, "http://127.0.0.1:9")
	for _, tc := range []struct {
		name     string
		job      Job
		wantNext string
	}{
		{"no command", Job{Project: p}, "cassette observe"},
		{"unknown adapter", Job{Project: p, Adapters: []string{"shpo"}, Command: []string{"go", "test"}}, "cassette observe --adapter shop "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.job.Run(context.Background())
			ce := outcome.AsError(err)
			if err == nil || ce.Reason != outcome.EUsage || !strings.Contains(ce.NextStep, tc.wantNext) {
				t.Fatalf("Run: %v (next %q); want E_USAGE with a next step holding %q", err, ce.NextStep, tc.wantNext)
			}
			if _, err := os.Stat(filepath.Join(p.Config.Dir, filepath.FromSlash(coverage.ObservedDir))); err == nil {
				t.Errorf("a refused run made %s", coverage.ObservedDir)
			}
		})
	}
}

// TestProxyJobObserves: the observing proxy, on a real socket in front of
// a real fake, writes the call that went through it, and stops when its
// context ends.
func TestProxyJobObserves(t *testing.T) {
	fake := fakeShop(t)
	p := project(t, fake.URL)
	dir := t.TempDir()
	r, w := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	j := &ProxyJob{Listen: "127.0.0.1:0", Upstream: fake.URL, Adapter: "shop", Dir: dir, Out: w,
		Load: func() (*workspace.Project, error) { return p, nil }, LookupEnv: func(string) (string, bool) { return "", false }}
	done := make(chan error, 1)
	go func() { done <- j.Run(ctx); w.Close() }()
	lines := bufio.NewScanner(r)
	if !lines.Scan() {
		t.Fatalf("the proxy said nothing: %v", <-done)
	}
	addr, ok := strings.CutPrefix(lines.Text(), "cassette proxy: observe mode, listening on ")
	if !ok {
		t.Fatalf("first line %q names no address", lines.Text())
	}
	resp, err := http.Get(addr + "/items")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cancel()
	go func() { _, _ = io.Copy(io.Discard, r) }()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got := CallCounts(dir, p.Config.Order); got != "1 call (shop 1)" {
		t.Errorf("%s holds %s; want 1 call (shop 1)", dir, got)
	}
}

// TestProxyJobRefusesABadUpstream: a missing or non-HTTP upstream is a
// usage error before the project is loaded.
func TestProxyJobRefusesABadUpstream(t *testing.T) {
	for _, up := range []string{"", "ftp://x", "http://"} {
		j := &ProxyJob{Listen: "127.0.0.1:0", Upstream: up, Adapter: "shop", Load: func() (*workspace.Project, error) {
			t.Fatal("the project was loaded")
			return nil, nil
		}}
		if err := j.Run(context.Background()); outcome.AsError(err).Reason != outcome.EUsage {
			t.Errorf("upstream %q: %v; want E_USAGE", up, err)
		}
	}
}

// TestShimBin: cassette-shim is used when an executable of that name is
// installed beside the cassette binary, else none.
func TestShimBin(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "cassette")
	if got := ShimBin(self); got != "" {
		t.Errorf("without cassette-shim: %q", got)
	}
	shim := filepath.Join(dir, "cassette-shim")
	if err := os.WriteFile(shim, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := ShimBin(self); got != "" {
		t.Errorf("a cassette-shim that is not executable: %q", got)
	}
	if err := os.Chmod(shim, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := ShimBin(self); got != shim {
		t.Errorf("ShimBin = %q, want %s", got, shim)
	}
}
