package cassettetest

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/verify"
)

// TestDriftingFakeFails: the check that VerifyHTTP runs per cassette
// reports a fake that answers differently (the subtests of the public
// functions can only show passing fakes).
func TestDriftingFakeFails(t *testing.T) {
	p, err := cassettes.FindProject("../examples/demo/cassettes/petstore")
	if err != nil {
		t.Fatal(err)
	}
	cfg, reg := p.Config, p.Normalizers
	c, err := cassettes.Load("../examples/demo/cassettes/petstore/get-missing.yaml", cassettes.LoadOptions{Config: cfg, Normalizers: reg})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusGone)
		w.Write([]byte(`{"error": "gone"}` + "\n"))
	}))
	defer srv.Close()
	opts := verify.Options{Config: cfg, Normalizers: reg, Jobs: 1,
		HTTP: map[string]verify.HTTPTarget{"petstore": {BaseURL: srv.URL, Client: srv.Client()}}}
	msg := verifyOne(verify.Case{Cassette: c, Adapter: cfg.Adapters["petstore"]}, opts)
	if !strings.Contains(msg, "drifted") || !strings.Contains(msg, "410") || !strings.Contains(msg, "$.error") {
		t.Errorf("a drifting fake gave %q", msg)
	}
}

// TestInvalidConfigIsAnError: a cassette.yaml found above the directory
// that does not load is reported, not skipped.
func TestInvalidConfigIsAnError(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cassette.yaml"), []byte("adapters: {x: {kind: nope}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := cassettes.FindProject(dir); err == nil {
		t.Fatal("an invalid cassette.yaml was accepted")
	}
}
