package git_test

// End-to-end tests of the git example, run as a user would run it: the real
// cassette binary (built once), the real git on a repository make-repo.sh
// builds in a temporary copy of the example, and the fake git built by
// verify from fakes/git.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// cassetteBin is the cassette binary built for this test run.
var cassetteBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cassette-git-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// CASSETTE_E2E_BIN runs the tests against a cassette binary built elsewhere.
	cassetteBin = os.Getenv("CASSETTE_E2E_BIN")
	if cassetteBin == "" {
		cassetteBin = filepath.Join(dir, "cassette")
	}
	build := exec.Command("go", "build", "-o", cassetteBin, "github.com/cassette-dev/cassette/cmd/cassette")
	if os.Getenv("CASSETTE_E2E_BIN") != "" {
		build = exec.Command(cassetteBin, "version")
	}
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building cassette: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// example is a copy of the example in a temporary directory, with the
// environment its commands run in.
type example struct {
	t   *testing.T
	dir string
	env []string
}

// newExample copies the example's committed files (not .cassette/) into a
// temporary directory, with a go.mod so that verify can build the fake
// there, and an environment with no user git configuration.
func newExample(t *testing.T) *example {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "example")
	for _, name := range []string{"cassette.yaml", ".gitignore", "make-repo.sh", "record.sh", "fakes", "cassettes"} {
		copyTree(t, name, filepath.Join(dir, name))
	}
	writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/gitexample\n\ngo 1.26\n")
	home := t.TempDir()
	env := []string{"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "CASSETTE=" + cassetteBin,
		"CASSETTE_CA_DIR=" + filepath.Join(home, "ca"), "NO_COLOR=1", "GOFLAGS=", "GOWORK=off"}
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} { // keep Go's caches warm despite the new HOME
		out, err := exec.Command("go", "env", v).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", v, err)
		}
		env = append(env, v+"="+strings.TrimSpace(string(out)))
	}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name != "HOME" && !strings.HasPrefix(name, "GIT_") && !strings.HasPrefix(name, "CASSETTE") &&
			name != "GOFLAGS" && name != "GOWORK" && name != "NO_COLOR" && !strings.HasPrefix(name, "GOCACHE") &&
			name != "GOMODCACHE" && name != "GOPATH" {
			env = append(env, kv)
		}
	}
	return &example{t: t, dir: dir, env: env}
}

// run runs a command in the example's directory and returns its output and
// exit code; a command that cannot be started fails the test.
func (e *example) run(name string, args ...string) (stdout, stderr string, code int) {
	e.t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = e.dir, e.env
	var o, s bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &s
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		e.t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return o.String(), s.String(), code
}

// must runs a command that has to succeed.
func (e *example) must(name string, args ...string) string {
	e.t.Helper()
	out, errOut, code := e.run(name, args...)
	if code != 0 {
		e.t.Fatalf("%s %s: exit %d\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), code, out, errOut)
	}
	return out
}

func (e *example) path(rel string) string { return filepath.Join(e.dir, filepath.FromSlash(rel)) }

// patch replaces old with new in a file of the example, which must contain it.
func (e *example) patch(rel, old, new string) {
	e.t.Helper()
	data, err := os.ReadFile(e.path(rel))
	if err != nil {
		e.t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(old)) {
		e.t.Fatalf("%s does not contain %q", rel, old)
	}
	writeFile(e.t, e.path(rel), strings.Replace(string(data), old, new, 1))
}

// summary reads the summary.json of the last verify run.
func (e *example) summary() (exitCode int, reason string) {
	e.t.Helper()
	data, err := os.ReadFile(e.path(".cassette/reports/summary.json"))
	if err != nil {
		e.t.Fatal(err)
	}
	var s struct {
		ExitCode   int    `json:"exit_code"`
		ReasonCode string `json:"reason_code"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		e.t.Fatalf("summary.json: %v", err)
	}
	return s.ExitCode, s.ReasonCode
}

var scenarios = []string{"branch-current", "log-oneline", "rev-parse-head", "show-stat-head", "show-toplevel", "status-porcelain"}

// TestCommittedCassettesVerify is what CI checks on every change: the
// committed cassettes are valid and the fake answers them.
func TestCommittedCassettesVerify(t *testing.T) {
	e := newExample(t)
	e.must(cassetteBin, "validate")
	out := e.must(cassetteBin, "verify")
	for _, s := range scenarios {
		if !strings.Contains(out, "PASS  git/"+s) {
			t.Errorf("verify did not pass git/%s:\n%s", s, out)
		}
	}
	if code, reason := e.summary(); code != 0 || reason != "" {
		t.Errorf("summary.json: exit %d, reason %q; want 0, none", code, reason)
	}
}

// TestRecordThenVerify re-records every cassette from the real git on a
// fresh repository (new SHAs, new dates) with record.sh, then verifies the
// unchanged fake against them: only the normalizers make them equal.
func TestRecordThenVerify(t *testing.T) {
	e := newExample(t)
	old := readFile(t, e.path("cassettes/git/rev-parse-head.yaml"))
	if err := os.RemoveAll(e.path("cassettes/git")); err != nil {
		t.Fatal(err)
	}
	out := e.must("./record.sh")
	for _, s := range scenarios {
		if !strings.Contains(out, "recorded cassettes/git/"+s+".yaml") {
			t.Errorf("record.sh did not record %s:\n%s", s, out)
		}
	}
	head := strings.TrimSpace(e.must("git", "-C", ".cassette/repo", "rev-parse", "HEAD"))
	now := readFile(t, e.path("cassettes/git/rev-parse-head.yaml"))
	if !strings.Contains(now, head) || strings.Contains(old, head) {
		t.Fatalf("the new cassette should hold the new HEAD %s and the committed one should not:\nnew:\n%s\ncommitted:\n%s", head, now, old)
	}
	e.must(cassetteBin, "validate")
	out = e.must(cassetteBin, "verify")
	if !strings.Contains(out, "6 passed, 0 failed") {
		t.Errorf("verify:\n%s", out)
	}
}

// TestFakeDriftFails changes what the fake says about the repository: the
// cases that show the changed commit fail with E_CONTRACT_DRIFT, with a diff,
// and the others still pass.
func TestFakeDriftFails(t *testing.T) {
	e := newExample(t)
	e.patch("fakes/git/repo.go", `"Document how to run it"`, `"Document it"`)
	out, errOut, code := e.run(cassetteBin, "verify")
	if code != 1 {
		t.Fatalf("verify: exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"FAIL  git/log-oneline", "FAIL  git/show-stat-head", "PASS  git/rev-parse-head",
		"PASS  git/status-porcelain", "Document how to run it", "Document it\n", "next: cassette verify --case git/log-oneline"} {
		if !strings.Contains(out, want) {
			t.Errorf("verify output lacks %q:\n%s", want, out)
		}
	}
	if code, reason := e.summary(); code != 1 || reason != "E_CONTRACT_DRIFT" {
		t.Errorf("summary.json: exit %d, reason %q; want 1, E_CONTRACT_DRIFT", code, reason)
	}
	sarif := readFile(t, e.path(".cassette/reports/sarif.json"))
	if !strings.Contains(sarif, "cassettes/git/log-oneline.yaml") {
		t.Errorf("sarif.json names no drift in cassettes/git/log-oneline.yaml:\n%s", sarif)
	}
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestRefreshLoop is the whole loop against a local bare remote: record and
// commit the cassettes, verify passes; the real side changes (the last
// commit's message is amended); `cassette refresh --once` re-records, pushes
// a refresh branch with the new cassettes and writes the fake-drift issue;
// on that branch verify fails against the unchanged fake; fixing the fake
// makes it pass.
func TestRefreshLoop(t *testing.T) {
	e := newExample(t)
	if _, errOut, code := e.run(cassetteBin, "refresh", "--help"); code != 0 {
		t.Fatalf("this cassette has no refresh command (exit %d): %s", code, errOut)
	}
	remote := filepath.Join(t.TempDir(), "remote.git")
	gitID := []string{"-c", "user.name=Grace Hopper", "-c", "user.email=grace@example.com"}
	e.must("git", "init", "-q", "--bare", remote)
	e.must("git", "init", "-q", "-b", "main")
	e.must("git", "remote", "add", "origin", remote)
	e.must("./record.sh")
	e.must("git", append(gitID, "add", ".")...)
	e.must("git", append(gitID, "commit", "-q", "-m", "git example: cassettes")...)
	e.must("git", "push", "-q", "origin", "main")
	e.must(cassetteBin, "verify")

	// The real side changes.
	e.must("git", append(append([]string{"-C", ".cassette/repo"}, gitID...), "commit", "-q", "--amend", "--only", "-m", "Explain how to run greet")...)

	out, errOut, code := e.run(cassetteBin, "refresh", "--once")
	if code != 1 {
		t.Fatalf("refresh --once: exit %d, want 1 (drift)\n%s\n%s", code, out, errOut)
	}
	refs := e.must("git", "ls-remote", "--heads", remote)
	var branch string
	for _, line := range strings.Split(refs, "\n") {
		if _, ref, ok := strings.Cut(line, "\trefs/heads/"); ok && strings.HasPrefix(ref, "cassette-refresh/git/") {
			branch = ref
		}
	}
	if branch == "" {
		t.Fatalf("refresh pushed no cassette-refresh/git/... branch; remote has:\n%s\nrefresh said:\n%s\n%s", refs, out, errOut)
	}
	e.must("git", "fetch", "-q", "origin", branch)
	changed := e.must("git", "diff", "--name-only", "main", "FETCH_HEAD")
	for _, f := range []string{"cassettes/git/log-oneline.yaml", "cassettes/git/show-stat-head.yaml"} {
		if !strings.Contains(changed, f) {
			t.Errorf("the refresh branch does not change %s; it changes:\n%s", f, changed)
		}
	}
	if strings.Contains(changed, "fakes/") {
		t.Errorf("refresh must not touch the fake; it changed:\n%s", changed)
	}
	issue := readFile(t, e.path(".cassette/reports/refresh/git.issue.md"))
	if !strings.Contains(issue, "log-oneline") || !strings.Contains(issue, "show-stat-head") {
		t.Errorf("the fake-drift issue does not name the drifting cases:\n%s", issue)
	}

	// On the refresh branch, the unchanged fake fails.
	e.must("git", "checkout", "-q", "FETCH_HEAD")
	if got := readFile(t, e.path("cassettes/git/log-oneline.yaml")); !strings.Contains(got, "Explain how to run greet") {
		t.Fatalf("the refreshed cassette does not hold the new commit message:\n%s", got)
	}
	out, errOut, code = e.run(cassetteBin, "verify")
	if code != 1 || !strings.Contains(out, "FAIL  git/log-oneline") || !strings.Contains(out, "FAIL  git/show-stat-head") ||
		!strings.Contains(out, "Document how to run it") || !strings.Contains(out, "Explain how to run greet") {
		t.Fatalf("verify on the refresh branch: exit %d, want 1 with log-oneline and show-stat-head drifting\n%s\n%s", code, out, errOut)
	}
	if code, reason := e.summary(); code != 1 || reason != "E_CONTRACT_DRIFT" {
		t.Errorf("summary.json: exit %d, reason %q; want 1, E_CONTRACT_DRIFT", code, reason)
	}

	// Fix the fake.
	e.patch("fakes/git/repo.go", `"Document how to run it"`, `"Explain how to run greet"`)
	if out := e.must(cassetteBin, "verify"); !strings.Contains(out, "6 passed, 0 failed") {
		t.Fatalf("verify after fixing the fake:\n%s", out)
	}
}
