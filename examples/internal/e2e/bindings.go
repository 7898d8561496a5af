package e2e

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// Python is Debian's python3 with pytest, for the pytest binding's tests.
// Without it the test is skipped, saying what to install, unless
// CASSETTE_REQUIRE_BINDINGS is set (.ci/run installs it and sets it).
func Python(t testing.TB) string {
	t.Helper()
	const py = "/usr/bin/python3" // the first python3 on PATH may lack Debian's packages
	if out, err := exec.Command(py, "-c", "import pytest; print(pytest.__version__)").CombinedOutput(); err != nil {
		missing(t, "python3-pytest is not installed ("+strings.TrimSpace(string(out))+"): apt-get install python3-pytest")
	}
	return py
}

// Node is node 20 or later, for the node:test binding's tests; skipped
// like Python when missing.
func Node(t testing.TB) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		missing(t, "node is not installed: apt-get install nodejs")
		return ""
	}
	out, err := exec.Command(node, "-p", "process.versions.node.split('.')[0]").Output()
	if major, _ := strconv.Atoi(strings.TrimSpace(string(out))); err != nil || major < 20 {
		missing(t, "node 20 or later is needed for node:test (found "+strings.TrimSpace(string(out))+")")
	}
	return node
}

func missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CASSETTE_REQUIRE_BINDINGS") != "" {
		t.Fatal(why + " (CASSETTE_REQUIRE_BINDINGS is set: .ci/run installs it)")
	}
	t.Skip(why + " (.ci/run installs it)")
}
