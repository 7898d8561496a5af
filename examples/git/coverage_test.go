package git_test

// End-to-end tests of cassette coverage on the git example: gitsummary (a
// tool that shells out to git) is tested with `go test` under `cassette
// observe`, whose shim runs the fake git; `cassette coverage` holds its
// calls against the cassettes recorded from the real git.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/examples/internal/e2e"
)

// newToolExample is the example with its program under test.
func newToolExample(t *testing.T) *e2e.Example {
	t.Helper()
	e := newExample(t)
	e2e.CopyTree(t, "gitsummary", e.Path("gitsummary"))
	return e
}

// observeTests runs the example's Go tests under cassette observe; they
// must pass.
func observeTests(t *testing.T, e *e2e.Example) {
	t.Helper()
	out, errOut, code := e.Run(nil, cassetteBin, "observe", "--", "go", "test", "./...")
	if code != 0 || !strings.Contains(out, "ok  \texample.com/gitexample/gitsummary") {
		t.Fatalf("cassette observe -- go test ./...: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestToolFullyCovered is the CI step of the example: every git call
// gitsummary's tests make has a cassette, and no cassette is stale.
func TestToolFullyCovered(t *testing.T) {
	e := newToolExample(t)
	observeTests(t, e)
	out := e.Must(nil, cassetteBin, "coverage")
	if !strings.Contains(out, "ok    git  coverage: 100.0% of call shapes (6 of 6)\n") || strings.Contains(out, "stale") {
		t.Errorf("coverage:\n%s", out)
	}
	if strings.Contains(e2e.ReadFile(t, e.Observed("shim-git.jsonl")), `"GOFLAGS`) {
		t.Error("observations hold the environment")
	}
}

// TestNewCallShapeNeedsACassette is README's "See an uncovered call": the
// tool starts asking git for the abbreviated id; coverage fails naming
// the shape, the adapter and the test; the record command it prints,
// run against the real git, records the cassette that makes it pass; the
// fake answers it too, so verify passes.
func TestNewCallShapeNeedsACassette(t *testing.T) {
	e := newToolExample(t)
	e.Patch("gitsummary/gitsummary.go", "s.Short = abbrev(s.Head)",
		`if s.Short, err = git(ctx, dir, "rev-parse", "--short", "HEAD"); err != nil { return nil, err }`)
	observeTests(t, e)
	out, errOut, code := e.Run(nil, cassetteBin, "coverage")
	if code != 1 {
		t.Fatalf("coverage: exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"FAIL  git  coverage: 85.7% of call shapes (6 of 7)",
		"uncovered  git rev-parse --short  (2 calls by TestRead, TestReadFewerCommits)",
		"record: cassette record --adapter git --scenario rev-parse-short -- git rev-parse --short HEAD"} {
		if !strings.Contains(out, want) {
			t.Errorf("coverage output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "error[E_UNCOVERED_CALL]: adapter git covers 85.7%") {
		t.Errorf("stderr:\n%s", errOut)
	}
	next := ""
	for _, l := range strings.Split(errOut, "\n") {
		if s, ok := strings.CutPrefix(l, "next: "); ok {
			next = s
		}
	}
	if next != "cassette record --adapter git --scenario rev-parse-short -- git rev-parse --short HEAD" {
		t.Fatalf("next step %q", next)
	}

	// The printed command, against the real git.
	e.Must(nil, "./make-repo.sh", ".cassette/repo")
	path := "PATH=" + filepath.Dir(cassetteBin) + string(os.PathListSeparator) + os.Getenv("PATH")
	_, recErr := e.MustBoth([]string{path}, "sh", "-c", next)
	if !strings.Contains(recErr, "recorded cassettes/git/rev-parse-short.yaml") {
		t.Fatalf("the record command recorded nothing:\n%s", recErr)
	}
	short := strings.TrimSpace(e.Must(nil, "git", "-C", ".cassette/repo", "rev-parse", "--short", "HEAD"))
	if !strings.Contains(e2e.ReadFile(t, e.Path("cassettes/git/rev-parse-short.yaml")), short) {
		t.Errorf("the cassette does not hold the real git's answer %s", short)
	}
	if out := e.Must(nil, cassetteBin, "coverage"); !strings.Contains(out, "ok    git  coverage: 100.0% of call shapes (7 of 7)") {
		t.Errorf("coverage after recording:\n%s", out)
	}
	if out := e.Must(nil, cassetteBin, "verify"); !strings.Contains(out, "PASS  git/rev-parse-short") || !strings.Contains(out, "7 passed, 0 failed") {
		t.Errorf("verify after recording:\n%s", out)
	}
}

// TestNoCassettesFails: the fake is wired into the tool's tests but the
// adapter has no cassette: coverage fails with the seed ADR's rule,
// whatever the minimum.
func TestNoCassettesFails(t *testing.T) {
	e := newToolExample(t)
	if err := os.RemoveAll(e.Path("cassettes/git")); err != nil {
		t.Fatal(err)
	}
	observeTests(t, e)
	out, errOut, code := e.Run(nil, cassetteBin, "coverage", "--min", "0")
	if code != 1 || !strings.Contains(out, "FAIL  git  coverage: 0.0% of call shapes (0 of 6; min 0.0%)") ||
		!strings.Contains(out, "the seed ADR's rule") || !strings.Contains(errOut, "adapter git has no cassette for the 6 call shapes its fake answered") {
		t.Errorf("coverage: exit %d\n%s\n%s", code, out, errOut)
	}
}
