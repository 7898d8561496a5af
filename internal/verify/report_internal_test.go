package verify

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRelThroughSymlink: a project reached through a symlinked directory
// gets the same report paths as through its real path.
func TestRelThroughSymlink(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "real")
	if err := os.MkdirAll(filepath.Join(real, "proj", "cassettes"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	got := rel(real, filepath.Join(link, "proj", "cassettes", "a.yaml"))
	if got != "proj/cassettes/a.yaml" {
		t.Errorf("rel = %q, want proj/cassettes/a.yaml", got)
	}
}
