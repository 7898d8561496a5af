package pythonteam_test

// End to end, the seed team's whole loop in pytest, as such a team runs it:
// the real cassette binary (built once), Debian's python3 with pytest and
// the repository's pytest plugin (vendored: ../../python on PYTHONPATH),
// the real git on the repository ../git/make-repo.sh builds, and the real gh
// against @octokit/fixtures (responses the Octokit project recorded from
// GitHub's REST API) served by ../github/upstream on loopback: a recording
// of GitHub, not GitHub, which cannot be reached from where this runs.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/examples/internal/e2e"
)

var cassetteBin string

func TestMain(m *testing.M) { os.Exit(e2e.Main(m, "cassette-python-team-e2e-", &cassetteBin)) }

// fixtures are @octokit/fixtures' scenarios, as `npm ci` installs them in
// ../github/upstream (.ci/run does).
var fixtures = filepath.Join("..", "github", "upstream", "node_modules", "@octokit", "fixtures", "scenarios", "api.github.com")

// newExample copies the example with Debian's python3 first on PATH (as
// python3, the name fake.test runs), the plugin on PYTHONPATH and none of
// the user's gh, proxy or cassette variables.
func newExample(t *testing.T) *e2e.Example {
	t.Helper()
	py := e2e.Python(t)
	bin := t.TempDir()
	if err := os.Symlink(py, filepath.Join(bin, "python3")); err != nil {
		t.Fatal(err)
	}
	plugin, err := filepath.Abs(filepath.Join("..", "..", "python"))
	if err != nil {
		t.Fatal(err)
	}
	return e2e.NewExample(t, ".", e2e.Config{
		Cassette: cassetteBin,
		Files:    []string{"cassette.yaml", ".gitignore", "pytest.ini", "conftest.py", "record.sh", "teamtool", "tests", "cassettes"},
		Module:   "example.com/pythonteam",
		Env: []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "PYTHONPATH=" + plugin, "CASSETTE_BIN=" + cassetteBin,
			"PYTEST_DISABLE_PLUGIN_AUTOLOAD=1", "PYTHONDONTWRITEBYTECODE=1", "GIT_CONFIG_NOSYSTEM=1"},
		Drop: func(name string) bool {
			return name == "PATH" || name == "PYTHONPATH" || strings.HasPrefix(name, "GH_") || strings.HasPrefix(name, "GITHUB_") ||
				strings.HasPrefix(name, "CASSETTE") || strings.HasPrefix(name, "PYTEST") || strings.HasSuffix(strings.ToLower(name), "_proxy")
		},
	})
}

// needRealSide skips the test when gh or the fixtures are missing, except
// in CI (.ci/run installs them).
func needRealSide(t *testing.T) { t.Helper(); e2e.NeedGitHubRecording(t, fixtures) }

// startUpstream serves the fixtures of dir with ../github/upstream and
// points the gh adapter's base_url at it.
func startUpstream(t *testing.T, e *e2e.Example, dir string) string {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	u := e2e.StartServer(t, filepath.Join("..", "github"), "", nil, "./upstream", "--fixtures", abs)
	e.Patch("cassette.yaml", "base_url: http://127.0.0.1:3000", "base_url: "+u)
	return u
}

// observe runs the suite under cassette observe; it must pass.
func observe(t *testing.T, e *e2e.Example) {
	t.Helper()
	out, errOut, code := e.Run(nil, cassetteBin, "observe", "--", "python3", "-m", "pytest", "-q", "-p", "no:cacheprovider")
	if code != 0 || !strings.Contains(errOut, "observe: git → in process") || !strings.Contains(errOut, "observe: gh → in process") {
		t.Fatalf("cassette observe -- python3 -m pytest: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestObserveThenCoverage is the team's CI step: the suite passes under
// observe (no shim: the fakes observe themselves), and every call shape
// teamtool's tests make has a cassette.
func TestObserveThenCoverage(t *testing.T) {
	e := newExample(t)
	observe(t, e)
	out := e.Must(nil, cassetteBin, "coverage")
	for _, want := range []string{"ok    git  coverage: 100.0% of call shapes (2 of 2)\n", "ok    gh   coverage: 100.0% of call shapes (2 of 2)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("coverage lacks %q:\n%s", want, out)
		}
	}
	if s := e2e.ReadFile(t, e.Observed("pytest-"+pidOf(t, e)+".jsonl")); !strings.Contains(s, `"test":"tests/test_teamtool.py::test_github_repo"`) {
		t.Errorf("the observations do not name pytest's test:\n%s", s)
	}
}

// pidOf is the pid in the name of the one pytest observation file of the
// latest run.
func pidOf(t *testing.T, e *e2e.Example) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(e.Observed("x")), "pytest-*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("want one pytest observation file in the latest run, got %v", files)
	}
	return strings.TrimSuffix(strings.TrimPrefix(filepath.Base(files[0]), "pytest-"), ".jsonl")
}

// TestNewEndpointNeedsACassette: teamtool starts listing a repository's
// issues (a new gh api endpoint, which coverage used to take for any gh api
// call); coverage fails naming the endpoint, and the record command it
// prints, run as printed against the recording of GitHub, records it.
func TestNewEndpointNeedsACassette(t *testing.T) {
	needRealSide(t)
	e := newExample(t)
	startUpstream(t, e, fixtures)
	e.Patch("teamtool/__init__.py", "    def report(self, owner, repo):", `    def issues(self, owner, repo):
        """The titles of the first three issues."""
        return self._out(self.gh, ["api", "repos/%s/%s/issues?per_page=3" % (owner, repo), "--jq", ".[].title"]).splitlines()

    def report(self, owner, repo):`)
	e.Patch("teamtool/fakes.py", "        kind, _, name = args[1].partition(\"/\")", `        if args[1].endswith("/issues?per_page=3") and args[3] == ".[].title":
            return _done(args, 0, "Test issue 13\nTest issue 12\nTest issue 11\n")
        kind, _, name = args[1].partition("/")`)
	e2e.WriteFile(t, e.Path("tests/test_issues.py"), `from test_teamtool import tool  # noqa: F401 (the fixture)


def test_issues(tool):
    assert len(tool.issues("octokit-fixture-org", "paginate-issues")) == 3
`)
	observe(t, e)
	out, errOut, code := e.Run(nil, cassetteBin, "coverage")
	if code != 1 || !strings.Contains(out, "uncovered  gh api repos/{}/{}/issues?per_page --jq  (1 call by tests/test_issues.py::test_issues)") {
		t.Fatalf("coverage: exit %d, want 1 naming the new endpoint\n%s\n%s", code, out, errOut)
	}
	var record string
	for _, line := range strings.Split(out, "\n") {
		if r, ok := strings.CutPrefix(strings.TrimSpace(line), "record: "); ok {
			record = r
		}
	}
	if !strings.Contains(record, "cassette record --adapter gh") {
		t.Fatalf("no record command for the new endpoint:\n%s", out)
	}
	e.Must([]string{"GH_TOKEN=recorded-fixtures-take-any-token", "PATH=" + filepath.Dir(cassetteBin) + string(os.PathListSeparator) + envOf(e, "PATH")}, "sh", "-c", record)
	if out := e.Must(nil, cassetteBin, "coverage"); !strings.Contains(out, "ok    gh   coverage: 100.0% of call shapes (3 of 3)") {
		t.Errorf("coverage after recording the printed command:\n%s", out)
	}
}

func envOf(e *e2e.Example, name string) string {
	v := ""
	for _, kv := range e.Env {
		if val, ok := strings.CutPrefix(kv, name+"="); ok {
			v = val
		}
	}
	return v
}

// TestRefreshRunsPytestAsTheGate is the refresh cycle against a local bare
// remote: the recorded GitHub changes (the repository's default branch is
// main in a copy of the fixtures); refresh re-records, runs the adapters'
// fake.test (pytest, in the refresh work tree) as the replay gate, and
// files the fake-drift issue naming the failing pytest case; with the fake
// fixed on the refresh branch, the next cycle's PR says the gate passed.
func TestRefreshRunsPytestAsTheGate(t *testing.T) {
	needRealSide(t)
	e := newExample(t)
	changed := filepath.Join(t.TempDir(), "api.github.com")
	for _, s := range []string{"get-repository", "get-organization"} {
		e2e.CopyTree(t, filepath.Join(fixtures, s), filepath.Join(changed, s))
	}
	repo := filepath.Join(changed, "get-repository", "normalized-fixture.json")
	e2e.WriteFile(t, repo, strings.ReplaceAll(e2e.ReadFile(t, repo), `"default_branch": "master"`, `"default_branch": "main"`))

	remote := filepath.Join(t.TempDir(), "remote.git")
	git := func(args ...string) string {
		return e.Must(nil, "git", append([]string{"-c", "user.name=Grace Hopper", "-c", "user.email=grace@example.com"}, args...)...)
	}
	git("init", "-q", "--bare", remote)
	git("init", "-q", "-b", "main")
	git("remote", "add", "origin", remote)
	makeRepo, err := filepath.Abs(filepath.Join("..", "git", "make-repo.sh"))
	if err != nil {
		t.Fatal(err)
	}
	e.Must(nil, makeRepo, ".cassette/repo") // the git example's repository, the git adapter's real.dir
	git("add", ".")
	git("commit", "-q", "-m", "teamtool and its cassettes")
	git("push", "-q", "origin", "main")

	startUpstream(t, e, changed) // the real side changed
	token := []string{"GH_TOKEN=recorded-fixtures-take-any-token"}
	files := e.RefreshDrift(cassetteBin, remote, "gh", token)
	if strings.Join(files, " ") != "cassettes/gh/repo.yaml" {
		t.Errorf("the refresh branch changes %v, want cassettes/gh/repo.yaml", files)
	}
	pr := e2e.ReadFile(t, e.Path(".cassette/reports/refresh/gh.pr.md"))
	if !strings.Contains(pr, "Replay gate: `python3 -m pytest -q tests/contracts` fails 1 of its 2 contract tests of `gh` on the new cassettes") {
		t.Errorf("the PR does not say the pytest gate failed:\n%s", pr)
	}
	issue := e2e.ReadFile(t, e.Path(".cassette/reports/refresh/gh.issue.md"))
	for _, want := range []string{"gh/repo (tests/contracts/test_contracts.py::test_gh[gh/repo])", "-m pytest 'tests/contracts/test_contracts.py::test_gh[gh/repo]'"} {
		if !strings.Contains(issue, want) {
			t.Errorf("the fake-drift issue lacks %q:\n%s", want, issue)
		}
	}

	// The team fixes the fake on the refresh branch.
	git("checkout", "-q", "-b", "fix", "FETCH_HEAD")
	e.Patch("teamtool/fakes.py", `"default_branch": "master"`, `"default_branch": "main"`)
	git("commit", "-q", "-m", "FakeGitHub: the default branch is main now", "teamtool/fakes.py")
	branch := strings.TrimSpace(e.Must(nil, "sh", "-c", "git ls-remote --heads origin 'cassette-refresh/gh/*' | sed 's|.*refs/heads/||'"))
	git("push", "-q", "origin", "HEAD:"+branch)
	git("checkout", "-q", "main")
	e.RefreshDrift(cassetteBin, remote, "gh", token)
	pr = e2e.ReadFile(t, e.Path(".cassette/reports/refresh/gh.pr.md"))
	if !strings.Contains(pr, "Replay gate: `python3 -m pytest -q tests/contracts` passes its 2 contract tests of `gh` on the new cassettes") {
		t.Errorf("with the fake fixed, the PR does not say the gate passed:\n%s", pr)
	}
}
