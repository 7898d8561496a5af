package verify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// TestPlanPathsWithoutCassettes: verify's planning, reached without the
// process, on a project that recorded nothing yet names the recording of
// the first cassette, not the loader's error.
func TestPlanPathsWithoutCassettes(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cassette.yaml")
	if err := os.WriteFile(cfg, []byte("version: 1\nadapters:\n  shop:\n    kind: http\n    real: {base_url: \"http://127.0.0.1:1\"}\n    fake: {base_url: \"http://127.0.0.1:1\"}\n    scenarios:\n      - {name: list, method: GET, path: /items}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := workspace.Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = PlanPaths(p.Config, PlanRun{Load: p.LoadOptions(nil)})
	ce := outcome.AsError(err)
	if want := "cassette record --adapter shop --config " + cfg; ce.Reason != outcome.ECassetteNotFound || ce.NextStep != want || !strings.Contains(ce.Message, "no cassette was recorded in this project yet") {
		t.Fatalf("PlanPaths: %s %q, next %q; want E_CASSETTE_NOT_FOUND naming %q", ce.Reason, ce.Message, ce.NextStep, want)
	}
}
