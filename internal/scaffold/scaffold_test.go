package scaffold

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// TestInitWritesAProjectThatLoads: init's cassette.yaml loads as a
// project, cassettes/ exists, .cassette/ is ignored once; a second init
// refuses to overwrite without Force, and one below another project
// refuses to make a second.
func TestInitWritesAProjectThatLoads(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cassette.yaml")
	var out strings.Builder
	in := &Init{Path: path, Above: path, Schema: "https://example.test/cassette.yaml.schema.json", Out: &out}
	if err := in.Run(); err != nil {
		t.Fatal(err)
	}
	if _, err := workspace.Load(path); err != nil {
		t.Fatalf("the config init wrote does not load: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "cassettes")); err != nil || !fi.IsDir() {
		t.Errorf("no cassettes/: %v", err)
	}
	if !strings.Contains(out.String(), "added .cassette/") || !strings.HasSuffix(out.String(), "next: cassette validate --config "+path+"\n") {
		t.Errorf("init printed:\n%s", out.String())
	}
	if err := in.Run(); outcome.AsError(err).Reason != outcome.EUsage {
		t.Errorf("a second init: %v; want E_USAGE (not overwriting)", err)
	}
	in.Force = true
	if err := in.Run(); err != nil {
		t.Errorf("init --force: %v", err)
	}
	ignore, _ := os.ReadFile(filepath.Join(dir, ".gitignore"))
	if string(ignore) != ".cassette/\n" {
		t.Errorf(".gitignore after two inits = %q; want one .cassette/ line", ignore)
	}
	below := &Init{Path: filepath.Join(dir, "sub", "cassette.yaml"), Above: path, Out: &out}
	if err := below.Run(); outcome.AsError(err).Reason != outcome.EUsage {
		t.Errorf("init below a project: %v; want E_USAGE", err)
	}
}

// TestTemplate: the first line names the schema; --learn starts without
// normalizers and says how to learn them.
func TestTemplate(t *testing.T) {
	if first, _, _ := strings.Cut(Template("S", false), "\n"); first != "# yaml-language-server: $schema=S" {
		t.Errorf("first line %q", first)
	}
	learn := Template("S", true)
	if strings.Contains(learn, "normalizers: [headers.volatile") || !strings.Contains(learn, "cassette learn --adapter example --apply") {
		t.Errorf("the --learn template keeps the guessed normalizers:\n%s", learn)
	}
}
