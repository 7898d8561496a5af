package cassettes

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// TestSecretVars: a fake.env or fake.base_url that expands a live
// credential (an adapter's real.credentials or the forge's token) is
// refused at its line (a fake never sees one). cfgschema's
// TestSecretVarsAndWithoutVars holds which variables those are.
func TestSecretVars(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "cassette.yaml")
	os.WriteFile(p, []byte(`version: 1
adapters:
  gh:
    kind: cli
    real: {command: [gh], credentials: [GH_TOKEN]}
    fake:
      command: [./fake-gh]
      env: {TOKEN: "${FORGE_TOKEN}", OK: "${HOME}"}
  api:
    kind: http
    real: {base_url: "https://api.example.com", credentials: [API_KEY]}
    fake: {command: [./fake-api], base_url: "http://127.0.0.1:${PORT}/${API_KEY}"}
refresh:
  forge: {kind: github, repo: o/r, token_env: FORGE_TOKEN}
`), 0o644)
	_, err := LoadConfig(p, ConfigOptions{Normalizers: builtins})
	ce := outcome.AsError(err)
	if ce == nil || ce.Exit() != outcome.ExitUser || len(ce.Problems) != 2 {
		t.Fatalf("err = %v, want two problems, exit 2", err)
	}
	for i, want := range []string{"cassette.yaml:8: adapters.gh.fake.env.TOKEN: uses ${FORGE_TOKEN}, a live credential", "cassette.yaml:12: adapters.api.fake.base_url: uses ${API_KEY}"} {
		if got := ce.Problems[i].String(); !strings.Contains(got, want) {
			t.Errorf("problem %d = %s, want %s", i, got, want)
		}
	}
}

// TestRealEnvOfAnotherAdaptersCredential: a real.env that expands a
// credential its adapter does not declare (another adapter's, the
// forge's) is refused at its line: a real command gets its own
// adapter's credentials only, which the environment it inherits already
// holds to (recorder.RecordingEnviron). Its own credential, and a
// variable no adapter declares, are fine.
func TestRealEnvOfAnotherAdaptersCredential(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "cassette.yaml")
	if err := os.WriteFile(p, []byte(`version: 1
adapters:
  gh:
    kind: cli
    real:
      command: [gh]
      credentials: [GH_TOKEN]
      env: {GH_TOKEN: "${GH_TOKEN}", HOME_DIR: "${HOME}", DB: "${DB_DSN}", PUSH: "${FORGE_TOKEN}"}
    fake: {command: [./fake-gh]}
  db:
    kind: cli
    real: {command: [psql], credentials: [DB_DSN]}
    fake: {command: [./fake-psql]}
refresh:
  forge: {kind: git, remote: origin, token_env: FORGE_TOKEN}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadConfig(p, ConfigOptions{Normalizers: builtins})
	ce := outcome.AsError(err)
	if ce == nil || ce.Exit() != outcome.ExitUser || len(ce.Problems) != 2 {
		t.Fatalf("err = %v, want two problems, exit 2", err)
	}
	for i, want := range []string{"cassette.yaml:8: adapters.gh.real.env.DB: uses ${DB_DSN}, a credential this adapter does not declare",
		"cassette.yaml:8: adapters.gh.real.env.PUSH: uses ${FORGE_TOKEN}"} {
		if got := ce.Problems[i].String(); !strings.Contains(got, want) {
			t.Errorf("problem %d = %s, want %s", i, got, want)
		}
	}
}
