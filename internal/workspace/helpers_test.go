package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/normalize"
)

// builtins is the registry the fixture project is checked against.
var builtins = normalize.Builtins()

// testConfig is the fixture project's cassette.yaml (adapters github and
// gh), loaded as every command loads it.
func testConfig(t *testing.T) *cfgschema.Config {
	t.Helper()
	p, err := Load(filepath.Join("testdata", "cassette.yaml"))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return p.Config
}

// goodCLI is a CLI cassette of the fixture's adapter gh
// (testdata/pr-list.yaml).
var goodCLI = func() string {
	b, err := os.ReadFile(filepath.Join("testdata", "pr-list.yaml"))
	if err != nil {
		panic(err)
	}
	return string(b)
}()
