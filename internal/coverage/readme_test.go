package coverage

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/cfgschema"
)

// readmeBlock returns the first fenced block of lang after heading in the
// coverage page of the docs (docs/concepts/coverage.md).
func readmeBlock(t *testing.T, heading, lang string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "concepts", "coverage.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i := strings.Index(s, heading)
	if i < 0 {
		t.Fatalf("docs/concepts/coverage.md has no %q", heading)
	}
	s = s[i:]
	start := strings.Index(s, "```"+lang+"\n")
	if start < 0 {
		t.Fatalf("docs/concepts/coverage.md has no %s block after %q", lang, heading)
	}
	s = s[start+len("```"+lang+"\n"):]
	end := strings.Index(s, "```")
	return s[:end]
}

// TestReadmePythonWriter runs the Python example of the docs
// (docs/concepts/coverage.md) as it is printed and reads what it wrote:
// the format a stranger writes from the docs is the format coverage reads.
func TestReadmePythonWriter(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("python3 is not installed (.ci/run installs it)")
		}
		t.Skip("python3 is not installed")
	}
	code := readmeBlock(t, "## The observation format", "python")
	dir := t.TempDir()
	script := filepath.Join(dir, "observe.py")
	if err := os.WriteFile(script, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "observed")
	cmd := exec.Command(py, script)
	cmd.Env = append(os.Environ(), EnvDir+"="+out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("python3 observe.py: %v\n%s", err, b)
	}
	obs, probs, err := ReadDir(out)
	if err != nil || len(probs) > 0 || len(obs) != 1 {
		t.Fatalf("read %d observations, problems %v, error %v", len(obs), probs, err)
	}
	o := obs[0]
	r := rulesFor(t, cfgschema.Coverage{})
	if o.Adapter != "git" || o.Kind != cfgschema.KindCLI || o.Test != "test_last_commits" || o.Source != "python" || r.Of(o.Observation) != "git log --oneline -n" {
		t.Errorf("the docs' example wrote %+v (shape %q)", o, r.Of(o.Observation))
	}
}
