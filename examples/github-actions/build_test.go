package githubactions_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// buildStep is the script of the action's "Build cassette" step.
func buildStep(t *testing.T) string {
	t.Helper()
	var a struct {
		Runs struct {
			Steps []step `yaml:"steps"`
		} `yaml:"runs"`
	}
	loose(t, "action.yml", &a)
	for _, s := range a.Runs.Steps {
		if s.Name == "Build cassette" {
			if strings.Contains(s.Run, "go install") {
				t.Errorf("the build step runs go install, of a module path the proxy does not serve:\n%s", s.Run)
			}
			return s.Run
		}
	}
	t.Fatal("action.yml has no step named Build cassette")
	return ""
}

// TestActionBuildsFromItsCheckout runs the action's build step as the
// runner would for `uses: cassette-dev/cassette/examples/github-actions@REF`
// (GITHUB_ACTION_PATH is this directory of a checkout of the repository):
// it builds cassette from that checkout, puts it on the job's PATH, and the
// binary runs. A copy of the action in another repository, without a
// source input, stops with exit 2 and says what to do; with one, it builds.
func TestActionBuildsFromItsCheckout(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cassette (-short)")
	}
	script := buildStep(t)
	here, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	runStep := func(actionPath, source string) (string, string, error) {
		tmp := t.TempDir()
		ghPath := filepath.Join(tmp, "github_path")
		cmd := exec.Command("bash", "-c", script)
		cmd.Env = append(os.Environ(), "GITHUB_ACTION_PATH="+actionPath, "RUNNER_TEMP="+tmp, "GITHUB_PATH="+ghPath, "CASSETTE_SOURCE="+source)
		out, err := cmd.CombinedOutput()
		added, _ := os.ReadFile(ghPath)
		return string(out), strings.TrimSpace(string(added)), err
	}

	out, added, err := runStep(here, "")
	if err != nil {
		t.Fatalf("the build step: %v\n%s", err, out)
	}
	if v, err := exec.Command(filepath.Join(added, "cassette"), "version").Output(); err != nil || len(v) == 0 {
		t.Errorf("the cassette it put on PATH (%s): %v %q", added, err, v)
	}

	copied := filepath.Join(t.TempDir(), ".github", "actions", "cassette")
	if err := os.MkdirAll(copied, 0o755); err != nil {
		t.Fatal(err)
	}
	out, _, err = runStep(copied, "")
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(out, "::error::") || !strings.Contains(out, "source input") {
		t.Errorf("a copied action without source: %v\n%s", err, out)
	}
	if out, added, err = runStep(copied, filepath.Join(here, "..", "..")); err != nil || added == "" {
		t.Errorf("a copied action with source: %v\n%s", err, out)
	}
}

// loose decodes a YAML file without KnownFields (a step's
// working-directory and the like).
func loose(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
