package git_test

// The in-process fakes of the git example, in Python (python/) and in
// JavaScript (js/), verified against the same cassettes as the Go fake by
// their test runners through the bindings: pytest with the cassette_pytest
// plugin, node --test with js/cassette.mjs. Real child processes, the real
// cassette binary.

import (
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/examples/internal/e2e"
)

// runner runs a binding's test command in place (in this directory, which
// it leaves as it was: no cache, no bytecode, no report) and returns its
// combined output and exit code.
func runner(t *testing.T, name string, args ...string) (string, int) {
	t.Helper()
	abs, err := filepath.Abs("../../python")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(name, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "NODE_TEST_CONTEXT=") { // a runner's own: it would make this run a part of its
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "CASSETTE_BIN="+cassetteBin, "PYTHONPATH="+abs, "PYTHONDONTWRITEBYTECODE=1",
		"PYTEST_DISABLE_PLUGIN_AUTOLOAD=1", "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	code := 0
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatalf("%s: %v", name, err)
	}
	return string(out), code
}

func pytest(t *testing.T, args ...string) (string, int) {
	t.Helper()
	return runner(t, e2e.Python(t), append([]string{"-m", "pytest", "-p", "cassette_pytest", "-p", "no:cacheprovider", "-v"}, args...)...)
}

func nodeTest(t *testing.T, args ...string) (string, int) {
	t.Helper()
	return runner(t, e2e.Node(t), append([]string{"--test", "--test-reporter=spec"}, args...)...)
}

// TestPythonFakeGit: pytest verifies FakeGit, in process, against every
// cassette of the example.
func TestPythonFakeGit(t *testing.T) {
	out, code := pytest(t, "python")
	if code != 0 {
		t.Fatalf("pytest: exit %d\n%s", code, out)
	}
	for _, s := range scenarios {
		if !strings.Contains(out, "test_fake_git[git/"+s+"] PASSED") {
			t.Errorf("pytest did not pass git/%s:\n%s", s, out)
		}
	}
	if !strings.Contains(out, "cassette check cassette.yaml: 6 checked, 6 passed, 0 failed") {
		t.Errorf("pytest's summary of cassette check:\n%s", out)
	}
}

// TestJavaScriptFakeGit: node --test verifies FakeGit, in process, against
// every cassette of the example.
func TestJavaScriptFakeGit(t *testing.T) {
	out, code := nodeTest(t, "js")
	if code != 0 {
		t.Fatalf("node --test: exit %d\n%s", code, out)
	}
	for _, s := range scenarios {
		if !regexp.MustCompile(`(?m)^✔ git/` + s + ` `).MatchString(out) {
			t.Errorf("node --test did not pass git/%s:\n%s", s, out)
		}
	}
}

// verifyFailure is what `cassette verify` printed for a failing case.
type verifyFailure struct {
	message string   // the FAIL line's message
	explain []string // the lines under it
	where   string   // file:line, from the explanation
}

// verifyFailures runs cassette verify with the given fake command on a
// copy of the example and returns its failures by case id.
func verifyFailures(t *testing.T, fake string) map[string]verifyFailure {
	t.Helper()
	e := e2e.NewExample(t, ".", e2e.Config{Cassette: cassetteBin, Module: "example.com/gitexample",
		Files: []string{"cassette.yaml", "cassettes", "python", "js"}})
	cfg := e.Path("cassette.yaml")
	data := regexp.MustCompile(`(?m)^      build: .*\n      command: .*$`).ReplaceAllString(e2e.ReadFile(t, cfg), "      command: "+fake)
	e2e.WriteFile(t, cfg, data)
	out, errOut, code := e.Run(nil, cassetteBin, "verify")
	if code != 1 {
		t.Fatalf("verify with fake %s: exit %d, want 1\n%s%s", fake, code, out, errOut)
	}
	failures := map[string]verifyFailure{}
	lines := strings.Split(out, "\n")
	failLine := regexp.MustCompile(`^FAIL +(\S+) +\S+  (.*)$`)
	where := regexp.MustCompile(`\((cassettes/\S+:\d+)\)$`)
	for i, l := range lines {
		m := failLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		f := verifyFailure{message: m[2]}
		for _, x := range lines[i+1:] {
			if !strings.HasPrefix(x, "      ") {
				break
			}
			f.explain = append(f.explain, strings.TrimPrefix(x, "      "))
			if w := where.FindStringSubmatch(x); w != nil && f.where == "" {
				f.where = w[1]
			}
		}
		failures[m[1]] = f
	}
	if ids := slices.Sorted(maps.Keys(failures)); !slices.Equal(ids, []string{"git/log-oneline", "git/show-stat-head"}) {
		t.Fatalf("verify failed %v, want git/log-oneline and git/show-stat-head:\n%s", ids, out)
	}
	return failures
}

// holdsVerifysText requires the binding's output to show each of verify's
// failures the same: "file:line: message", then verify's explanation line
// for line (at whatever indentation the runner prints errors).
func holdsVerifysText(t *testing.T, runner, out string, failures map[string]verifyFailure) {
	t.Helper()
	lines := strings.Split(out, "\n")
	for id, f := range failures {
		if f.where == "" || !strings.Contains(out, f.where+": "+f.message+"\n") {
			t.Errorf("%s does not show %s as %q:\n%s", runner, id, f.where+": "+f.message, out)
			continue
		}
		start := slices.IndexFunc(lines, func(l string) bool { return strings.HasSuffix(l, f.explain[0]) })
		if start < 0 || start+len(f.explain) > len(lines) {
			t.Errorf("%s does not show verify's explanation of %s:\n%s", runner, id, out)
			continue
		}
		indent := strings.TrimSuffix(lines[start], f.explain[0])
		for i, want := range f.explain {
			if got := strings.TrimPrefix(lines[start+i], indent); strings.TrimRight(got, " ") != strings.TrimRight(want, " ") {
				t.Errorf("%s's explanation of %s, line %d: %q, verify's %q", runner, id, i+1, got, want)
			}
		}
	}
}

// TestBrokenPythonFakeDriftsAsVerifySays: the deliberately broken Python
// FakeGit fails under pytest with the drift text and file:line that
// `cassette verify` prints for the same fake run as a process.
func TestBrokenPythonFakeDriftsAsVerifySays(t *testing.T) {
	py := e2e.Python(t)
	failures := verifyFailures(t, "["+py+", python/broken/broken_fake_git.py]")
	out, code := pytest(t, "python/broken/broken_contract.py")
	if code != 1 || !strings.Contains(out, "2 failed, 4 passed") {
		t.Fatalf("pytest on the broken fake: exit %d, want 1 with 2 failed and 4 passed\n%s", code, out)
	}
	holdsVerifysText(t, "pytest", out, failures)
}

// TestBrokenJavaScriptFakeDriftsAsVerifySays: the same for node --test and
// the broken JavaScript FakeGit.
func TestBrokenJavaScriptFakeDriftsAsVerifySays(t *testing.T) {
	node := e2e.Node(t)
	failures := verifyFailures(t, "["+node+", js/broken/broken_fake_git.mjs]")
	out, code := nodeTest(t, "js/broken/broken_contract.mjs")
	if code != 1 || !strings.Contains(out, "ℹ pass 4\n") || !strings.Contains(out, "ℹ fail 2\n") {
		t.Fatalf("node --test on the broken fake: exit %d, want 1 with 4 passed and 2 failed\n%s", code, out)
	}
	holdsVerifysText(t, "node --test", out, failures)
}
