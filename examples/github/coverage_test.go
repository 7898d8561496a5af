package github_test

// End-to-end tests of cassette coverage on the github example: labelsync
// (a Go client of GitHub's REST API) is tested with `go test` under
// `cassette observe`, which starts the fake GitHub API behind an observing
// proxy; `cassette coverage` holds its calls against the cassettes
// recorded from the recording of GitHub.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/examples/internal/e2e"
)

// newClientExample is the example with its program under test.
func newClientExample(t *testing.T) *e2e.Example {
	t.Helper()
	e := newExample(t)
	e2e.CopyTree(t, "labelsync", e.Path("labelsync"))
	return e
}

func observeTests(t *testing.T, e *e2e.Example) {
	t.Helper()
	out, errOut, code := e.Run(nil, cassetteBin, "observe", "--", "go", "test", "./...")
	if code != 0 || !strings.Contains(out, "ok  \texample.com/ghexample/labelsync") ||
		!strings.Contains(errOut, "observe: github → http://127.0.0.1:") {
		t.Fatalf("cassette observe -- go test ./...: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestClientFullyCovered is the CI step of the example: every API call of
// labelsync's tests has a cassette; gh, which they do not call, is shown
// as not observed and fails nothing.
func TestClientFullyCovered(t *testing.T) {
	e := newClientExample(t)
	observeTests(t, e)
	out := e.Must(nil, cassetteBin, "coverage")
	for _, want := range []string{"?     gh      [no calls observed; 5 cassettes]\n", "ok    github  coverage: 100.0% of call shapes (5 of 5)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("coverage lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "stale") {
		t.Errorf("a cassette of github is stale:\n%s", out)
	}
	obs := e2e.ReadFile(t, e.Observed("proxy-github.jsonl"))
	if strings.Contains(obs, "test-token") || !strings.Contains(obs, `"test":"TestSync"`) {
		t.Errorf("observations: the token must be gone and the tests named:\n%s", obs)
	}
}

// TestClientNewQueryParameter: labelsync starts asking for 100 labels a
// page; that call shape has no cassette: coverage fails naming it, the
// adapter and the tests, and prints the curl that records it from the
// real side, with the token left to the shell.
func TestClientNewQueryParameter(t *testing.T) {
	e := newClientExample(t)
	e.Patch("labelsync/labelsync.go", "c.do(ctx, http.MethodGet, c.labelsURL(owner, repo), nil, &out)",
		`c.do(ctx, http.MethodGet, c.labelsURL(owner, repo)+"?per_page=100", nil, &out)`)
	observeTests(t, e)
	out, errOut, code := e.Run(nil, cassetteBin, "coverage")
	if code != 1 {
		t.Fatalf("coverage: exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"FAIL  github  coverage: 80.0% of call shapes (4 of 5)",
		"uncovered  GET /repos/{}/{}/labels?per_page  (6 calls by TestList, TestSync, TestSyncPrune)",
		`record: cassette record --adapter github --scenario get-repos-labels -- sh -c 'curl -sS -H "Accept: application/vnd.github+json" -H "Authorization: Bearer ${GITHUB_TOKEN}" '\''http://127.0.0.1:3000/repos/octokit-fixture-org/labels/labels?per_page=100'\'''` + "\n",
		"stale      cassettes/github/labels-list.yaml",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("coverage lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "error[E_UNCOVERED_CALL]: adapter github covers 80.0%") {
		t.Errorf("stderr:\n%s", errOut)
	}
	if _, err := os.Stat(e.Path(".cassette/reports/coverage/coverage.json")); err != nil {
		t.Error(err)
	}
}

// TestProxyObserveMode is the setup where the tests start their own fake:
// the fake GitHub API runs on its own, `cassette proxy --mode observe`
// stands in front of it, and labelsync's tests reach it through the proxy
// (CASSETTE_GITHUB_URL, set here as such a setup would). coverage then
// reads the calls the proxy wrote.
func TestProxyObserveMode(t *testing.T) {
	e := newClientExample(t)
	fake := startServer(t, e, "./fakes/github") // its $PORT unset: a free port
	proxyURL := e.StartProxy(t, cassetteBin, "--mode", "observe", "--upstream", fake, "--adapter", "github")
	out, errOut, code := e.Run([]string{"CASSETTE_GITHUB_URL=" + proxyURL}, "go", "test", "-count=1", "./labelsync/")
	if code != 0 {
		t.Fatalf("go test through the observing proxy: exit %d\n%s\n%s", code, out, errOut)
	}
	// a run of the proxy's own, as every observation writer's, not a loose file
	if _, err := os.Stat(e.Path(".cassette/observed/proxy-github.jsonl")); err == nil {
		t.Error("the proxy wrote a loose observation file, not a run of its own")
	}
	obs := e2e.ReadFile(t, e.Observed("proxy-github.jsonl"))
	if !strings.Contains(obs, `"source":"proxy"`) || !strings.Contains(obs, `"test":"TestGetCreatedThenDeleted"`) {
		t.Errorf("observations:\n%s", obs)
	}
	if out := e.Must(nil, cassetteBin, "coverage"); !strings.Contains(out, "ok    github  coverage: 100.0% of call shapes (5 of 5)") {
		t.Errorf("coverage:\n%s", out)
	}
}

// TestPrintedRecordCommandRuns: the record command coverage prints for an
// uncovered call, run as printed (the credential from the environment),
// records that call from the real side, and coverage then passes. The real
// side is the recording of GitHub (./upstream): it holds no answer for
// per_page=100, so the cassette holds its 404, and verify shows how the
// fake, which answers the labels, differs from it.
func TestPrintedRecordCommandRuns(t *testing.T) {
	needRealSide(t)
	e := newClientExample(t)
	up := startUpstream(t, e, fixtures)
	e.Patch("cassette.yaml", "base_url: http://127.0.0.1:3000           # ./record.sh", "base_url: "+up+"  # ./record.sh")
	e.Patch("labelsync/labelsync.go", "c.do(ctx, http.MethodGet, c.labelsURL(owner, repo), nil, &out)",
		`c.do(ctx, http.MethodGet, c.labelsURL(owner, repo)+"?per_page=100", nil, &out)`)
	observeTests(t, e)
	_, errOut, code := e.Run(nil, cassetteBin, "coverage")
	next := ""
	for _, l := range strings.Split(errOut, "\n") {
		if s, ok := strings.CutPrefix(l, "next: "); ok {
			next = s
		}
	}
	if code != 1 || !strings.HasPrefix(next, "cassette record --adapter github --scenario get-repos-labels -- sh -c ") || !strings.Contains(next, up) {
		t.Fatalf("coverage: exit %d, next step %q, want exit 1 and the record command against %s\n%s", code, next, up, errOut)
	}
	path := "PATH=" + filepath.Dir(cassetteBin) + string(os.PathListSeparator) + os.Getenv("PATH")
	_, recErr := e.MustBoth([]string{path, "GITHUB_TOKEN=test-token"}, "sh", "-c", next)
	if !strings.Contains(recErr, "recorded cassettes/github/get-repos-labels.yaml") {
		t.Fatalf("the printed command recorded nothing:\n%s", recErr)
	}
	cassette := e2e.ReadFile(t, e.Path("cassettes/github/get-repos-labels.yaml"))
	if !strings.Contains(cassette, "per_page=100") || !strings.Contains(cassette, "no recorded response for GET") || strings.Contains(cassette, "test-token") {
		t.Errorf("the cassette should hold the call and the recording's 404, and no token:\n%s", cassette)
	}
	if out := e.Must(nil, cassetteBin, "coverage"); !strings.Contains(out, "ok    github  coverage: 100.0% of call shapes (5 of 5)") {
		t.Errorf("coverage after recording:\n%s", out)
	}
	out, _, code := e.Run(nil, cassetteBin, "verify", "--case", "github/get-repos-labels")
	if code != 1 || !strings.Contains(out, "status drift at interactions[0].response.code: value changed (want 404 Not Found, got 200 OK)") {
		t.Errorf("verify of the new cassette: exit %d, want 1 (the fake answers 200, the recording 404)\n%s", code, out)
	}
}
