package cassettetest_test

import (
	"bytes"
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

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/cassettetest"
	"github.com/cassette-dev/cassette/examples/demo/fakes/petstore/store"
	"github.com/cassette-dev/cassette/internal/coverage"
	"github.com/cassette-dev/cassette/internal/normalize"
)

// The demo's code under test would call its pet store through this
// client: the calls are observed in process, named after the test, and
// held against the demo's cassettes.
func TestObserveInProcessFakes(t *testing.T) {
	out := t.TempDir()
	t.Setenv(coverage.EnvDir, out)
	t.Chdir("../examples/demo") // its cassette.yaml gives the adapters' settings

	var sawHeader bool
	srv := httptest.NewServer(cassettetest.Observe(t, "petstore", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawHeader = sawHeader || r.Header.Get(coverage.HeaderTest) != ""
		store.New().ServeHTTP(w, r)
	})))
	defer srv.Close()
	do := func(method, path, body string, header ...string) {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		if len(header) > 0 {
			req.Header.Set(coverage.HeaderTest, header[0])
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	do("GET", "/v1/pets", "")
	do("POST", "/v1/pets", `{"name":"Rex","tag":"dog"}`)
	do("GET", "/v1/pets/3f2504e0-4f89-41d3-9a0c-0305e82c3301", "", "TestNamedByHeader")
	do("DELETE", "/v1/pets/3f2504e0-4f89-41d3-9a0c-0305e82c3301", "")
	if sawHeader {
		t.Error("the fake saw the Cassette-Test header")
	}

	greet := cassettetest.ObserveCLI(t, "greet", func(_ context.Context, args []string, stdin io.Reader, stdout, _ io.Writer, _ []string) int {
		in, _ := io.ReadAll(stdin)
		fmt.Fprintf(stdout, "hello %s%s\n", strings.Join(args, " "), in)
		return 0
	})
	var stdout bytes.Buffer
	greet(context.Background(), []string{"Ada"}, nil, &stdout, io.Discard, nil) // a capitalised name: not a subcommand word
	greet(context.Background(), []string{"--json", "Ada"}, strings.NewReader("from stdin"), &stdout, io.Discard, nil)
	if !strings.Contains(stdout.String(), "hello --json Adafrom stdin") {
		t.Errorf("the fake did not get its input: %q", stdout.String())
	}

	obs, probs, err := coverage.ReadDir(out)
	if err != nil || len(probs) > 0 {
		t.Fatalf("%v %v", err, probs)
	}
	var got []string
	for _, o := range obs {
		got = append(got, fmt.Sprintf("%s %s [%s]", o.Adapter, o.Shape, o.Test))
	}
	want := []string{
		"petstore GET /v1/pets [TestObserveInProcessFakes]",
		"petstore POST /v1/pets {name,tag} [TestObserveInProcessFakes]",
		"petstore GET /v1/pets/{} [TestNamedByHeader]",
		"petstore DELETE /v1/pets/{} [TestObserveInProcessFakes]",
		"greet greet.sh [TestObserveInProcessFakes]",
		"greet greet.sh --json <stdin> [TestObserveInProcessFakes]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("observed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if obs[5].Call.Input != "from stdin" || !obs[5].Call.Stdin || obs[4].Call.Stdin {
		t.Errorf("stdin: %+v / %+v", obs[4].Call, obs[5].Call)
	}

	// Held against the demo's cassettes: DELETE and greet with stdin are
	// shapes no cassette backs.
	reg := normalize.Builtins()
	cfg, err := cassettes.LoadConfig("cassette.yaml", cassettes.ConfigOptions{Normalizers: reg})
	if err != nil {
		t.Fatal(err)
	}
	list, err := cassettes.LoadTree([]string{filepath.Join(cfg.Dir, "cassettes")}, cassettes.LoadOptions{Config: cfg, Normalizers: reg})
	if err != nil {
		t.Fatal(err)
	}
	rep, probs := coverage.Analyze(cfg, list, obs, coverage.Options{})
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	var uncovered []string
	for _, a := range rep.Adapters {
		for _, s := range a.Uncovered() {
			uncovered = append(uncovered, a.Name+": "+string(s.Shape))
		}
	}
	if w := "petstore: DELETE /v1/pets/{}\ngreet: greet.sh --json <stdin>"; strings.Join(uncovered, "\n") != w {
		t.Errorf("uncovered:\n%s\nwant:\n%s", strings.Join(uncovered, "\n"), w)
	}
}

// TestObserveWritesARunOfItsOwn: without `cassette observe`, a test
// binary's calls go to one run of its own below .cassette/observed (all
// its tests' observers share it), never to loose files that an earlier
// session's calls would be read with: coverage reads this run alone.
func TestObserveWritesARunOfItsOwn(t *testing.T) {
	t.Setenv(coverage.EnvDir, "")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cassette.yaml"), []byte("version: 1\nadapters:\n  svc:\n    kind: http\n    real: {base_url: \"http://svc.test\"}\n    fake: {base_url: \"http://127.0.0.1:1\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	observed := filepath.Join(dir, ".cassette", "observed")
	// an earlier session's loose file, an hour old
	stale := filepath.Join(observed, "go-1.jsonl")
	if err := os.MkdirAll(observed, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stale, []byte(`{"v":1,"adapter":"svc","kind":"http","call":{"method":"GET","url":"/old"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hourAgo := time.Now().Add(-time.Hour)
	if err := os.Chtimes(stale, hourAgo, hourAgo); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, path := range []string{"/a", "/b"} { // two observers of the process: one run
		srv := httptest.NewServer(cassettetest.Observe(t, "svc", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})))
		resp, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		srv.Close()
	}
	current, n, err := coverage.CurrentRuns(observed)
	if err != nil || len(current) != 1 || n != 2 || current[0].Dir == observed {
		t.Fatalf("runs %+v (%d in all, %v), want one run of the process's own beside the loose one", current, n, err)
	}
	obs, probs, err := coverage.ReadDir(current[0].Dir)
	if err != nil || len(probs) > 0 || len(obs) != 2 || obs[0].Shape != "GET /a" || obs[1].Shape != "GET /b" {
		t.Fatalf("the run holds %+v (%v %v), want the process's two calls", obs, probs, err)
	}
}
