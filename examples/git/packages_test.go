package git_test

// The bindings as a user installs them without a clone: the wheel and the
// npm tarball that `make python-wheel` and `make js-tarball` build offline,
// installed into a fresh virtual environment and a fresh npm project, and
// the example's contract tests run against the installed copies (nothing
// on PYTHONPATH, the module imported by its package name).

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/examples/internal/e2e"
)

// buildPackage runs a packaging target of the Makefile into a temporary
// directory and returns the one file it wrote there.
func buildPackage(t *testing.T, target, sub string) string {
	t.Helper()
	dir := t.TempDir()
	must(t, "..", "make", "-s", "-C", "..", target, "PACKAGES="+dir)
	files, _ := filepath.Glob(filepath.Join(dir, sub, "*"))
	if len(files) != 1 {
		t.Fatalf("make %s wrote %v", target, files)
	}
	return files[0]
}

// project copies the example's config, cassettes and the given binding's
// fake and contract test into a fresh directory, as a user's project.
func project(t *testing.T, binding string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"cassette.yaml", "cassettes"} {
		e2e.CopyTree(t, name, filepath.Join(dir, name))
	}
	e2e.CopyTree(t, binding, filepath.Join(dir, binding))
	os.RemoveAll(filepath.Join(dir, binding, "broken"))
	return dir
}

func must(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = bindingEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// bindingEnv is the test's environment without what would let a runner
// find the binding in the clone, with the cassette binary named.
func bindingEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "NODE_TEST_CONTEXT=") && !strings.HasPrefix(kv, "PYTHONPATH=") && !strings.HasPrefix(kv, "NODE_PATH=") {
			env = append(env, kv)
		}
	}
	return append(env, "CASSETTE_BIN="+cassetteBin, "PYTHONDONTWRITEBYTECODE=1", "NO_COLOR=1", "npm_config_audit=false", "npm_config_fund=false")
}

// TestWheelInstallsOffline: the wheel installs into a fresh venv without
// the network, and pytest there loads the installed plugin by its entry
// point and verifies FakeGit against every cassette.
func TestWheelInstallsOffline(t *testing.T) {
	py := e2e.Python(t)
	wheel := buildPackage(t, "python-wheel", "python")
	venv := filepath.Join(t.TempDir(), "venv")
	// Debian's pytest comes from the system's site packages; the plugin
	// only from the wheel.
	must(t, ".", py, "-m", "venv", "--system-site-packages", venv)
	vpy := filepath.Join(venv, "bin", "python")
	must(t, ".", vpy, "-m", "pip", "install", "-q", "--no-index", "--no-deps", wheel)
	dir := project(t, "python")
	where := must(t, dir, vpy, "-c", "import cassette_pytest; print(cassette_pytest.__file__)")
	if !strings.HasPrefix(strings.TrimSpace(where), venv) {
		t.Fatalf("cassette_pytest is imported from %s, not the venv %s", where, venv)
	}
	out := must(t, dir, vpy, "-m", "pytest", "-p", "no:cacheprovider", "-v", "python")
	for _, s := range scenarios {
		if !strings.Contains(out, "test_fake_git[git/"+s+"] PASSED") {
			t.Errorf("pytest from the installed wheel did not pass git/%s:\n%s", s, out)
		}
	}
}

// TestNpmTarballInstallsOffline: the tarball installs into a fresh npm
// project without the network, and node --test there verifies FakeGit
// through the installed module, imported as cassette-node-test.
func TestNpmTarballInstallsOffline(t *testing.T) {
	node := e2e.Node(t)
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm is not installed: apt-get install npm")
	}
	tarball := buildPackage(t, "js-tarball", "js")
	dir := project(t, "js")
	must(t, dir, npm, "init", "-y")
	must(t, dir, npm, "install", "--offline", "--no-audit", "--no-fund", tarball)
	test := filepath.Join(dir, "js", "fake_git.test.mjs")
	src, err := os.ReadFile(test)
	if err != nil {
		t.Fatal(err)
	}
	const inClone = "from '../../../js/cassette.mjs'"
	if !strings.Contains(string(src), inClone) {
		t.Fatalf("%s no longer imports %s", test, inClone)
	}
	e2e.WriteFile(t, test, strings.Replace(string(src), inClone, "from 'cassette-node-test'", 1))
	out := must(t, dir, node, "--test", "--test-reporter=spec", "js")
	for _, s := range scenarios {
		if !strings.Contains(out, "✔ git/"+s+" ") {
			t.Errorf("node --test through the installed module did not pass git/%s:\n%s", s, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "cassette-node-test", "cassette.mjs")); err != nil {
		t.Errorf("the module is not installed in the project: %v", err)
	}
}
