package e2e

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// StartServer builds the Go package pkg in buildDir, runs it with args in
// runDir with env (nil: the test's) and returns the URL it prints after
// "listening on" (the kernel picks the port); t's cleanup stops it.
func StartServer(t testing.TB, buildDir, runDir string, env []string, pkg string, args ...string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), filepath.Base(pkg))
	build := exec.Command("go", "build", "-o", bin, pkg)
	build.Dir, build.Env = buildDir, env
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = runDir, env
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if _, u, ok := strings.Cut(sc.Text(), "listening on "); ok {
			go func() { _, _ = io.Copy(io.Discard, out) }()
			return strings.TrimSpace(u)
		}
	}
	t.Fatalf("%s exited before listening", pkg)
	return ""
}

// NeedGitHubRecording skips the test when the real gh or the recording of
// GitHub (@octokit/fixtures, installed in fixtures by `npm ci` in
// examples/github/upstream) is missing, except in CI, where .ci/run
// installs them and their absence is a failure.
func NeedGitHubRecording(t testing.TB, fixtures string) {
	t.Helper()
	missing := ""
	if _, err := exec.LookPath("gh"); err != nil {
		missing = "gh (sudo apt-get install gh)"
	} else if _, err := os.Stat(fixtures); err != nil {
		missing = "@octokit/fixtures ((cd examples/github/upstream && npm ci))"
	}
	if missing == "" {
		return
	}
	if os.Getenv("CI") != "" || os.Getenv("CASSETTE_REQUIRE_BINDINGS") != "" {
		t.Fatalf("%s is not installed: .ci/run installs it", missing)
	}
	t.Skipf("%s is not installed", missing)
}
