package cassettetest

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verify"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// TestDriftingFakeFails: the check that VerifyHTTP runs per cassette
// reports a fake that answers differently (the subtests of the public
// functions can only show passing fakes).
func TestDriftingFakeFails(t *testing.T) {
	p, err := workspace.Find("../examples/demo/cassettes/petstore")
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
	if _, err := workspace.Find(dir); err == nil {
		t.Fatal("an invalid cassette.yaml was accepted")
	}
}

// TestDeclaredCredentialRefusedAsVerifyRefusesIt: with a declared
// credential variable set, a cassette that holds its value is refused
// (E_SECRET_LEAK, exit 2), as `cassette verify` refuses it: cassettetest
// loads with the project's own load options, not a set of its own.
func TestDeclaredCredentialRefusedAsVerifyRefusesIt(t *testing.T) {
	const token = "tool-secret-9f8e7d6c5b4a"
	dir := t.TempDir()
	write := func(name, data string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("cassette.yaml", "version: 1\nadapters:\n  tool:\n    kind: cli\n    real: {command: [tool], credentials: [TOOL_TOKEN]}\n    fake: {command: [./fake-tool]}\n")
	write("cassettes/tool/whoami.yaml", "cassette: 1\nversion: 2\nadapter: tool\nscenario: whoami\nkind: cli\n"+
		"input: {command: tool, args: [whoami]}\noutput: {stdout: \"token "+token+"\\n\", stderr: \"\", exit_code: 0}\ninteractions: []\n")
	lookup := func(name string) (string, bool) {
		if name == "TOOL_TOKEN" {
			return token, true
		}
		return "", false
	}
	_, _, err := plan(filepath.Join(dir, "cassettes", "tool"), cfgschema.KindCLI, lookup)
	ce := outcome.AsError(err)
	if err == nil || ce.Reason != outcome.ESecretLeak || ce.Exit() != outcome.ExitUser {
		t.Fatalf("a cassette holding the declared TOOL_TOKEN's value: err = %v; want E_SECRET_LEAK (exit 2), as cassette verify", err)
	}
	if strings.Contains(err.Error(), token) {
		t.Errorf("the error shows the credential's value: %v", err)
	}
	if _, _, err := plan(filepath.Join(dir, "cassettes", "tool"), cfgschema.KindCLI, func(string) (string, bool) { return "", false }); err != nil {
		t.Errorf("with TOOL_TOKEN unset the cassette is not a leak: %v", err)
	}
}
