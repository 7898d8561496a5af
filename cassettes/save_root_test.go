package cassettes

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// TestSaveStaysInRoot: an adapter directory that is a symlink out of the
// project (a pull request can add one) does not carry a recording out of
// it; a real directory, existing or not yet, is written as usual.
func TestSaveStaysInRoot(t *testing.T) {
	project, outside := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(project, "cassettes"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(project, "cassettes", "evil")); err != nil {
		t.Fatal(err)
	}
	c := &Cassette{Version: 2, Adapter: "evil", Scenario: "s", Kind: cfgschema.KindHTTP, Path: filepath.Join(project, "cassettes", "evil", "s.yaml")}
	err := Save(c, SaveOptions{Root: project})
	if ce := outcome.AsError(err); err == nil || ce.Reason != outcome.EUsage || !strings.Contains(ce.Message, "outside the project") {
		t.Fatalf("Save through a symlink out: %v", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written outside the project: %v", entries)
	}
	c.Adapter, c.Path = "good", filepath.Join(project, "cassettes", "good", "new", "s.yaml")
	if err := Save(c, SaveOptions{Root: project}); err != nil {
		t.Fatalf("Save inside the project: %v", err)
	}
}
