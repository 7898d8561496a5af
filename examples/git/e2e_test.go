package git_test

// End-to-end tests of the git example, run as a user would run it: the real
// cassette binary (built once), the real git on a repository make-repo.sh
// builds in a temporary copy of the example, and the fake git built by
// verify from fakes/git.

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/examples/internal/e2e"
)

// cassetteBin is the cassette binary built for this test run.
var cassetteBin string

func TestMain(m *testing.M) { os.Exit(e2e.Main(m, "cassette-git-e2e-", &cassetteBin)) }

// newExample copies the example's committed files (not .cassette/) into a
// temporary directory, with a go.mod so that verify can build the fake
// there, and an environment with no user git configuration.
func newExample(t *testing.T) *e2e.Example {
	t.Helper()
	return e2e.NewExample(t, ".", e2e.Config{
		Cassette: cassetteBin,
		Files:    []string{"cassette.yaml", ".gitignore", "make-repo.sh", "record.sh", "fakes", "cassettes"},
		Module:   "example.com/gitexample",
		Env:      []string{"GIT_CONFIG_NOSYSTEM=1"},
		Drop: func(name string) bool {
			return strings.HasPrefix(name, "GIT_") || strings.HasPrefix(name, "CASSETTE") || strings.HasPrefix(name, "GOCACHE")
		},
	})
}

var scenarios = []string{"branch-current", "log-oneline", "rev-parse-head", "show-stat-head", "show-toplevel", "status-porcelain"}

// TestCommittedCassettesVerify is what CI checks on every change: the
// committed cassettes are valid and the fake answers them.
func TestCommittedCassettesVerify(t *testing.T) {
	newExample(t).VerifyCommitted(cassetteBin, "git", scenarios)
}

// TestRecordThenVerify re-records every cassette from the real git on a
// fresh repository (new SHAs, new dates) with record.sh, then verifies the
// unchanged fake against them: only the normalizers make them equal.
func TestRecordThenVerify(t *testing.T) {
	e := newExample(t)
	old := e2e.ReadFile(t, e.Path("cassettes/git/rev-parse-head.yaml"))
	if err := os.RemoveAll(e.Path("cassettes/git")); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := e.Run(nil, "./record.sh")
	if code != 0 {
		t.Fatalf("record.sh: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, s := range scenarios { // record's own messages go to stderr
		if !strings.Contains(errOut, "recorded cassettes/git/"+s+".yaml") {
			t.Errorf("record.sh did not record %s:\n%s", s, errOut)
		}
	}
	head := strings.TrimSpace(e.Must(nil, "git", "-C", ".cassette/repo", "rev-parse", "HEAD"))
	now := e2e.ReadFile(t, e.Path("cassettes/git/rev-parse-head.yaml"))
	if !strings.Contains(now, head) || strings.Contains(old, head) {
		t.Fatalf("the new cassette should hold the new HEAD %s and the committed one should not:\nnew:\n%s\ncommitted:\n%s", head, now, old)
	}
	e.Must(nil, cassetteBin, "validate")
	out = e.Must(nil, cassetteBin, "verify")
	if !strings.Contains(out, "6 passed, 0 failed") {
		t.Errorf("verify:\n%s", out)
	}
}

// TestFakeDriftFails changes what the fake says about the repository: the
// cases that show the changed commit fail with E_CONTRACT_DRIFT, with a diff,
// and the others still pass.
func TestFakeDriftFails(t *testing.T) {
	e := newExample(t)
	e.Patch("fakes/git/repo.go", `"Document how to run it"`, `"Document it"`)
	out, errOut, code := e.Run(nil, cassetteBin, "verify")
	if code != 1 {
		t.Fatalf("verify: exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"FAIL  git/log-oneline", "FAIL  git/show-stat-head", "PASS  git/rev-parse-head",
		"PASS  git/status-porcelain", "Document how to run it", "Document it\n", "next: cassette verify --case git/log-oneline"} {
		if !strings.Contains(out+errOut, want) { // next: is on stderr
			t.Errorf("verify output lacks %q:\n%s\n%s", want, out, errOut)
		}
	}
	if code, reason := e.Summary(); code != 1 || reason != "E_CONTRACT_DRIFT" {
		t.Errorf("summary.json: exit %d, reason %q; want 1, E_CONTRACT_DRIFT", code, reason)
	}
	sarif := e2e.ReadFile(t, e.Path(".cassette/reports/sarif.json"))
	if !strings.Contains(sarif, "cassettes/git/log-oneline.yaml") {
		t.Errorf("sarif.json names no drift in cassettes/git/log-oneline.yaml:\n%s", sarif)
	}
}

// TestRefreshLoop is the whole loop against a local bare remote: record and
// commit the cassettes, verify passes; the real side changes (the last
// commit's message is amended); `cassette refresh --once` re-records, pushes
// a refresh branch with the new cassettes and writes the fake-drift issue;
// on that branch verify fails against the unchanged fake; fixing the fake
// makes it pass.
func TestRefreshLoop(t *testing.T) {
	e := newExample(t)
	if _, errOut, code := e.Run(nil, cassetteBin, "refresh", "--help"); code != 0 {
		t.Fatalf("this cassette has no refresh command (exit %d): %s", code, errOut)
	}
	remote := filepath.Join(t.TempDir(), "remote.git")
	gitID := []string{"-c", "user.name=Grace Hopper", "-c", "user.email=grace@example.com"}
	e.Must(nil, "git", "init", "-q", "--bare", remote)
	e.Must(nil, "git", "init", "-q", "-b", "main")
	e.Must(nil, "git", "remote", "add", "origin", remote)
	e.Must(nil, "./record.sh")
	e.Must(nil, "git", append(gitID, "add", ".")...)
	e.Must(nil, "git", append(gitID, "commit", "-q", "-m", "git example: cassettes")...)
	e.Must(nil, "git", "push", "-q", "origin", "main")
	e.Must(nil, cassetteBin, "verify")

	// The real side changes.
	e.Must(nil, "git", append(append([]string{"-C", ".cassette/repo"}, gitID...), "commit", "-q", "--amend", "--only", "-m", "Explain how to run greet")...)

	changed := e.RefreshDrift(cassetteBin, remote, "git", nil)
	for _, f := range []string{"cassettes/git/log-oneline.yaml", "cassettes/git/show-stat-head.yaml"} {
		if !slices.Contains(changed, f) {
			t.Errorf("the refresh branch does not change %s; it changes:\n%s", f, changed)
		}
	}
	if strings.Contains(strings.Join(changed, " "), "fakes/") {
		t.Errorf("refresh must not touch the fake; it changed:\n%s", changed)
	}
	issue := e2e.ReadFile(t, e.Path(".cassette/reports/refresh/git.issue.md"))
	if !strings.Contains(issue, "log-oneline") || !strings.Contains(issue, "show-stat-head") {
		t.Errorf("the fake-drift issue does not name the drifting cases:\n%s", issue)
	}

	// On the refresh branch, the unchanged fake fails.
	e.Must(nil, "git", "checkout", "-q", "FETCH_HEAD")
	if got := e2e.ReadFile(t, e.Path("cassettes/git/log-oneline.yaml")); !strings.Contains(got, "Explain how to run greet") {
		t.Fatalf("the refreshed cassette does not hold the new commit message:\n%s", got)
	}
	out, errOut, code := e.Run(nil, cassetteBin, "verify")
	if code != 1 || !strings.Contains(out, "FAIL  git/log-oneline") || !strings.Contains(out, "FAIL  git/show-stat-head") ||
		!strings.Contains(out, "Document how to run it") || !strings.Contains(out, "Explain how to run greet") {
		t.Fatalf("verify on the refresh branch: exit %d, want 1 with log-oneline and show-stat-head drifting\n%s\n%s", code, out, errOut)
	}
	if code, reason := e.Summary(); code != 1 || reason != "E_CONTRACT_DRIFT" {
		t.Errorf("summary.json: exit %d, reason %q; want 1, E_CONTRACT_DRIFT", code, reason)
	}

	// Fix the fake.
	e.Patch("fakes/git/repo.go", `"Document how to run it"`, `"Explain how to run greet"`)
	if out := e.Must(nil, cassetteBin, "verify"); !strings.Contains(out, "6 passed, 0 failed") {
		t.Fatalf("verify after fixing the fake:\n%s", out)
	}
}

// TestLearnFromTheRealGit is issue 39's done-when on the real git: with
// every normalizer removed from a copy of the example, `cassette learn
// --apply` runs each scenario again on a repository make-repo.sh builds
// now (the committed cassettes, recorded on one built another day, are
// the other recordings: SHAs, dates and the top-level path differ), writes
// what it learned, and verify is green against the example's fake with no
// more normalizers than the hand-written ones plus one.
func TestLearnFromTheRealGit(t *testing.T) {
	e := newExample(t)
	hand := e.ForgetNormalizers()
	e.Must(nil, "./make-repo.sh", ".cassette/repo")
	if _, _, code := e.Run(nil, cassetteBin, "verify"); code != 1 {
		t.Fatalf("verify without normalizers: exit %d, want 1 (the fake's SHAs differ)", code)
	}
	out := e.LearnApply(cassetteBin, "git", hand["git"])
	if vout, verr, code := e.Run(nil, cassetteBin, "verify"); code != 0 || !strings.Contains(vout, "6 passed, 0 failed") {
		t.Fatalf("verify after learn --apply: exit %d\n%s\n%s\nlearn said:\n%s", code, vout, verr, out)
	}
}
