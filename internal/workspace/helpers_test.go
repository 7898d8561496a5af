package workspace

import (
	"path/filepath"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/normalize"
)

// builtins is the registry the fixture project is checked against.
var builtins = normalize.Builtins()

// testConfig is the fixture project's cassette.yaml (adapters github and
// gh), loaded as every command loads it.
func testConfig(t *testing.T) *cassettes.Config {
	t.Helper()
	p, err := Load(filepath.Join("testdata", "cassette.yaml"))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return p.Config
}

// goodCLI is a CLI cassette of the fixture's adapter gh.
const goodCLI = `cassette: 1
version: 2
adapter: gh
scenario: pr-list
kind: cli
input:
  command: gh
  args: [pr, list]
  env: [GH_REPO]
output:
  stdout: "1\tfix\n"
  stderr: ""
  exit_code: 0
interactions: []
`
