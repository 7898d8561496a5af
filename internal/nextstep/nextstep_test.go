package nextstep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTestCommandOf: the observe next step runs the test command the
// project's own files name, and with none of them asks observe's help
// (an earlier build printed `go test ./...` in projects without Go, which
// then failed as printed).
func TestTestCommandOf(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{"go.mod", "go test ./..."},
		{"package.json", "npm test"},
		{"pyproject.toml", "pytest"},
		{"conftest.py", "pytest"},
		{"Makefile", "make test"},
		{"tests.sh", ""},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, c.file), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(TestCommand(dir), " "); got != c.want {
			t.Errorf("with %s: %q, want %q", c.file, got, c.want)
		}
	}
}
