package cassettes

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// TestSaveRemovesLeftovers: the temp file of a killed save and the sidecars
// the previous version referred to are removed by the next save of that
// cassette; a sidecar another cassette of the directory uses is kept, and
// so are other cassettes' temp files.
func TestSaveRemovesLeftovers(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string, bodies ...string) *Cassette {
		c := &Cassette{Cassette: 1, Version: 2, Adapter: "a", Scenario: name, Kind: cfgschema.KindHTTP, Path: filepath.Join(dir, name+".yaml")}
		for _, b := range bodies {
			c.Interactions = append(c.Interactions, Interaction{Request: Request{URL: "http://x/", Method: "GET"},
				Response: Response{Code: 200, Body: Body(bytes.Repeat([]byte(b), 300))}})
		}
		return c
	}
	save := func(c *Cassette) {
		t.Helper()
		if err := Save(c, SaveOptions{SidecarThreshold: 100}); err != nil {
			t.Fatal(err)
		}
	}
	sidecars := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, "bodies", "sha256-*.bin"))
		for i := range m {
			m[i] = filepath.Base(m[i])
		}
		return m
	}
	save(mk("s", "old-only", "shared"))
	save(mk("other", "shared"))
	before := sidecars()
	if len(before) != 2 {
		t.Fatalf("sidecars after the first saves: %v", before)
	}
	// What a SIGKILL during a save leaves behind.
	killed := filepath.Join(dir, ".s.yaml.tmp-123456")
	otherTmp := filepath.Join(dir, ".other.yaml.tmp-99")
	for _, p := range []string{killed, otherTmp} {
		os.WriteFile(p, bytes.Repeat([]byte("x"), 1<<16), 0o644)
	}
	save(mk("s", "new-body", "shared"))
	after := sidecars()
	if len(after) != 2 {
		t.Errorf("sidecars after re-recording: %v (want the shared one and the new one)", after)
	}
	for _, c := range []*Cassette{mk("s", "new-body", "shared"), mk("other", "shared")} {
		if _, err := Load(c.Path, LoadOptions{}); err != nil {
			t.Errorf("%s no longer loads: %v", c.Path, err)
		}
	}
	oldOnly := ""
	for _, b := range before {
		if !slices.Contains(after, b) {
			oldOnly = b
		}
	}
	if oldOnly == "" {
		t.Error("the sidecar only the previous version used is still there")
	}
	if _, err := os.Stat(killed); err == nil {
		t.Error("the killed save's temp file is still there")
	}
	if _, err := os.Stat(otherTmp); err != nil {
		t.Error("another cassette's temp file was removed")
	}
}

// TestLoadTreeSpecialFiles: a directory holding a FIFO named like a
// cassette is one invalid file among the others (exit 2), not a hang; a
// symlink that stays inside the project loads.
func TestLoadTreeSpecialFiles(t *testing.T) {
	cfg := testConfig(t)
	root := t.TempDir()
	cfg.Dir = root
	dir := filepath.Join(root, "cassettes", "github")
	os.MkdirAll(dir, 0o755)
	good := filepath.Join(dir, "list-pulls.yaml")
	os.WriteFile(good, []byte(goodHTTP), 0o644)
	os.MkdirAll(filepath.Join(root, "shared"), 0o755)
	os.WriteFile(filepath.Join(root, "shared", "x.yaml"), []byte(strings.Replace(goodHTTP, "scenario: list-pulls", "scenario: linked", 1)), 0o644)
	symlink(t, filepath.Join(root, "shared", "x.yaml"), filepath.Join(dir, "linked.yaml"))
	mkfifo(t, filepath.Join(dir, "x.yaml"))
	list, err := LoadTree([]string{filepath.Join(root, "cassettes")}, LoadOptions{Config: cfg, Normalizers: builtins})
	ce := outcome.AsError(err)
	if ce == nil || ce.Exit() != outcome.ExitUser || len(ce.Problems) != 1 || ce.Problems[0].File != filepath.Join(dir, "x.yaml") || ce.Problems[0].Line != 1 {
		t.Fatalf("err = %v", err)
	}
	if len(list) != 2 {
		t.Errorf("%d cassettes loaded, want the regular one and the symlink inside the project", len(list))
	}
}
