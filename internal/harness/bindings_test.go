package harness_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// skippedRe finds pytest's count of skipped tests in its closing line.
var skippedRe = regexp.MustCompile(`(?m)\b\d+ skipped\b`)

// nodeSkippedRe finds node --test's non-zero counts of skipped and todo tests.
var nodeSkippedRe = regexp.MustCompile(`(?m)^. (skipped|todo) [1-9]`)

// TestBindings runs the bindings' own test suites as real child processes
// against a cassette binary built from this tree: the pytest plugin's
// (python/tests, with pytest's pytester) and the node:test binding's
// (js/test). Each is skipped, saying what to install, when its runtime is
// missing, unless CASSETTE_REQUIRE_BINDINGS is set (.ci/run installs both
// and sets it).
func TestBindings(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the bindings' suites build cassette and run pytest and node")
	}
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "cassette")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/cassette").CombinedOutput(); err != nil {
		t.Fatalf("building cassette: %v\n%s", err, out)
	}
	env := []string{"CASSETTE_BIN=" + bin, "PYTHONDONTWRITEBYTECODE=1", "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1", "NO_COLOR=1"}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "NODE_TEST_CONTEXT=") {
			env = append(env, kv)
		}
	}
	t.Run("pytest", func(t *testing.T) {
		py := "/usr/bin/python3" // Debian's, with python3-pytest; the first python3 on PATH may be another
		if err := exec.Command(py, "-c", "import pytest").Run(); err != nil {
			missing(t, "python3-pytest is not installed: apt-get install python3-pytest")
		}
		cmd := exec.Command(py, "-m", "pytest", "-p", "no:cacheprovider", "-q", "tests")
		cmd.Dir, cmd.Env = filepath.Join(repo, "python"), env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("pytest python/tests: %v\n%s", err, out)
		}
		if os.Getenv("CASSETTE_REQUIRE_BINDINGS") != "" && skippedRe.Match(out) {
			t.Fatalf("pytest python/tests skipped tests where CASSETTE_REQUIRE_BINDINGS asks for every one to run:\n%s", out)
		}
	})
	t.Run("node", func(t *testing.T) {
		out, err := exec.Command("node", "-p", "process.versions.node.split('.')[0]").Output()
		if major, _ := strconv.Atoi(strings.TrimSpace(string(out))); err != nil || major < 20 {
			missing(t, "node 20 or later is not installed: apt-get install nodejs")
		}
		cmd := exec.Command("node", "--test", "test/")
		cmd.Dir, cmd.Env = filepath.Join(repo, "js"), env
		out, err = cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("node --test js/test: %v\n%s", err, out)
		}
		if os.Getenv("CASSETTE_REQUIRE_BINDINGS") != "" && nodeSkippedRe.Match(out) {
			t.Fatalf("node --test js/test skipped or left to do tests where CASSETTE_REQUIRE_BINDINGS asks for every one to run:\n%s", out)
		}
	})
}

func missing(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CASSETTE_REQUIRE_BINDINGS") != "" {
		t.Fatal(why + " (CASSETTE_REQUIRE_BINDINGS is set: .ci/run installs it)")
	}
	t.Skip(why + " (.ci/run installs it)")
}
