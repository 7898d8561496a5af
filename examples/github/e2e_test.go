package github_test

// End-to-end tests of the github example, run as a user would run it: the
// real cassette binary (built once), the real gh CLI (Debian's gh) and, as
// its API, ./upstream serving @octokit/fixtures — responses the Octokit
// project recorded from GitHub's REST API. That upstream is a recording of
// GitHub, not GitHub: github.com cannot be reached from where this is tested.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/examples/internal/e2e"
)

// cassetteBin is the cassette binary built for this test run.
var cassetteBin string

func TestMain(m *testing.M) { os.Exit(e2e.Main(m, "cassette-github-e2e-", &cassetteBin)) }

var scenarios = []string{"issues-paginate", "label-invalid", "org", "repo", "search-issues"}

// fixtures is @octokit/fixtures' scenarios of api.github.com, as `npm ci`
// installs them (.ci/run does).
var fixtures = filepath.Join("upstream", "node_modules", "@octokit", "fixtures", "scenarios", "api.github.com")

// newExample copies the example (the installed fixtures linked, not
// copied) with an environment free of the user's gh and proxy variables.
func newExample(t *testing.T) *e2e.Example {
	t.Helper()
	e := e2e.NewExample(t, ".", e2e.Config{
		Cassette: cassetteBin,
		Files:    []string{"cassette.yaml", ".gitignore", "record.sh", "fakes", "cassettes", "upstream/main.go", "upstream/serve.sh", "upstream/package.json", "upstream/package-lock.json"},
		Module:   "example.com/ghexample",
		Drop: func(name string) bool {
			return strings.HasPrefix(name, "GH_") || strings.HasPrefix(name, "GITHUB_") || strings.HasPrefix(name, "CASSETTE") ||
				strings.HasSuffix(strings.ToLower(name), "_proxy")
		},
	})
	if abs, err := filepath.Abs(filepath.Join("upstream", "node_modules")); err == nil {
		if _, err := os.Stat(abs); err == nil {
			if err := os.Symlink(abs, e.Path("upstream/node_modules")); err != nil {
				t.Fatal(err)
			}
		}
	}
	return e
}

// needRealSide skips the test when gh or the fixtures are missing, except
// in CI, where .ci/run installs them and their absence is a failure.
func needRealSide(t *testing.T) { t.Helper(); e2e.NeedGitHubRecording(t, fixtures) }

// startUpstream builds and starts ./upstream on the fixtures of dir and
// returns its URL; t's cleanup stops it.
func startUpstream(t *testing.T, e *e2e.Example, dir string) string {
	t.Helper()
	return startServer(t, e, "./upstream", "--fixtures", dir)
}

// startServer builds the package pkg of the example, runs it with args
// and returns the URL it prints after "listening on"; t's cleanup stops it.
func startServer(t *testing.T, e *e2e.Example, pkg string, args ...string) string {
	t.Helper()
	return e2e.StartServer(t, e.Dir, e.Dir, e.Env, pkg, args...)
}

// TestCommittedCassettesVerify is what CI checks on every change, with or
// without gh: the committed cassettes are valid and the fake answers them.
func TestCommittedCassettesVerify(t *testing.T) {
	newExample(t).VerifyCommitted(cassetteBin, "gh", scenarios)
}

// TestRecordThenVerify re-records every cassette with record.sh from the
// real gh against the recording of GitHub, then verifies the fake.
func TestRecordThenVerify(t *testing.T) {
	needRealSide(t)
	e := newExample(t)
	if err := os.RemoveAll(e.Path("cassettes/gh")); err != nil {
		t.Fatal(err)
	}
	_, errOut := e.MustBoth(nil, "./record.sh")
	for _, s := range scenarios { // record's messages go to stderr
		if !strings.Contains(errOut, "recorded cassettes/gh/"+s+".yaml") {
			t.Errorf("record.sh did not record %s:\n%s", s, errOut)
		}
	}
	var c struct {
		Output       struct{ Stdout string }
		Interactions []struct {
			Request struct{ URL string }
		}
	}
	e2e.ReadYAML(t, e.Path("cassettes/gh/issues-paginate.yaml"), &c)
	if len(c.Interactions) != 5 || !strings.HasSuffix(c.Interactions[4].Request.URL, "/repositories/1000/issues?per_page=3&page=5") ||
		!strings.HasPrefix(c.Output.Stdout, "13 Test issue 13\n") {
		t.Errorf("gh --paginate should have followed the Link headers through the proxy, 5 pages: %+v", c)
	}
	if strings.Contains(e2e.ReadFile(t, e.Path("cassettes/gh/repo.yaml")), "recorded-fixtures-take-any-token") {
		t.Error("the token's value is in the cassette")
	}
	for _, s := range []string{"labels-list", "label-invalid-color", "label-lifecycle"} { // the API adapter, for labelsync
		if !strings.Contains(errOut, "recorded cassettes/github/"+s+".yaml") {
			t.Errorf("record.sh did not record github/%s:\n%s", s, errOut)
		}
	}
	e.Must(nil, cassetteBin, "validate")
	if out := e.Must(nil, cassetteBin, "verify"); !strings.Contains(out, "8 passed, 0 failed") {
		t.Fatalf("verify:\n%s", out)
	}
}

// TestFakeDriftFails makes the fake wrong about the repository's default
// branch: the case that prints it fails with a diff located in the cassette.
func TestFakeDriftFails(t *testing.T) {
	e := newExample(t)
	e.Patch("fakes/gh/github.go", `"default_branch": "master"`, `"default_branch": "main"`)
	out, errOut, code := e.Run(nil, cassetteBin, "verify")
	if code != 1 {
		t.Fatalf("verify: exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"FAIL  gh/repo", "body drift at output.stdout", "(cassettes/gh/repo.yaml:", "-master", "+main",
		"PASS  gh/org", "7 passed, 1 failed", "next: cassette verify --case gh/repo"} {
		if !strings.Contains(out+errOut, want) { // next: is on stderr
			t.Errorf("verify output lacks %q:\n%s\n%s", want, out, errOut)
		}
	}
	if code, reason := e.Summary(); code != 1 || reason != "E_CONTRACT_DRIFT" {
		t.Errorf("summary.json: exit %d, reason %q; want 1, E_CONTRACT_DRIFT", code, reason)
	}
}

// TestRefreshLoop is the whole loop against a local bare remote: record and
// commit; then the recorded GitHub changes (the test serves a copy of the
// fixtures where the repository's default branch is main — a stand-in for
// GitHub changing); `cassette refresh --once` re-runs gh, pushes a refresh
// branch with the drifting cassette and writes the fake-drift issue; on that
// branch verify fails against the unchanged fake; fixing the fake makes it
// pass. (Adapter github, whose GITHUB_TOKEN the test does not set, is
// skipped by refresh.)
func TestRefreshLoop(t *testing.T) {
	needRealSide(t)
	e := newExample(t)
	changed := filepath.Join(t.TempDir(), "api.github.com")
	e2e.CopyTree(t, filepath.Join(fixtures, "get-repository"), filepath.Join(changed, "get-repository"))
	repo := filepath.Join(changed, "get-repository", "normalized-fixture.json")
	e2e.WriteFile(t, repo, strings.ReplaceAll(e2e.ReadFile(t, repo), `"default_branch": "master"`, `"default_branch": "main"`))
	for _, s := range []string{"get-organization", "paginate-issues", "search-issues", "errors"} {
		e2e.CopyTree(t, filepath.Join(fixtures, s), filepath.Join(changed, s))
	}
	up := startUpstream(t, e, changed)
	e.Patch("cassette.yaml", "base_url: http://127.0.0.1:3000", "base_url: "+up)

	remote := filepath.Join(t.TempDir(), "remote.git")
	gitID := []string{"-c", "user.name=Grace Hopper", "-c", "user.email=grace@example.com"}
	e.Must(nil, "git", "init", "-q", "--bare", remote)
	e.Must(nil, "git", "init", "-q", "-b", "main")
	e.Must(nil, "git", "remote", "add", "origin", remote)
	e.Must(nil, "./record.sh") // its own upstream, on the installed fixtures
	e.Must(nil, "git", append(gitID, "add", ".")...)
	e.Must(nil, "git", append(gitID, "commit", "-q", "-m", "github example: cassettes")...)
	e.Must(nil, "git", "push", "-q", "origin", "main")
	e.Must(nil, cassetteBin, "verify")

	files := e.RefreshDrift(cassetteBin, remote, "gh", []string{"GH_TOKEN=recorded-fixtures-take-any-token"})
	if strings.Join(files, " ") != "cassettes/gh/repo.yaml" {
		t.Errorf("the refresh branch changes %v, want only cassettes/gh/repo.yaml", files)
	}
	if issue := e2e.ReadFile(t, e.Path(".cassette/reports/refresh/gh.issue.md")); !strings.Contains(issue, "repo") {
		t.Errorf("the fake-drift issue does not name the drifting case:\n%s", issue)
	}

	e.Must(nil, "git", "checkout", "-q", "FETCH_HEAD")
	out, errOut, code := e.Run(nil, cassetteBin, "verify")
	if code != 1 || !strings.Contains(out, "FAIL  gh/repo") || !strings.Contains(out, "+master") || !strings.Contains(out, "-main") {
		t.Fatalf("verify on the refresh branch: exit %d, want 1 with gh/repo drifting\n%s\n%s", code, out, errOut)
	}
	e.Patch("fakes/gh/github.go", `"default_branch": "master"`, `"default_branch": "main"`)
	if out := e.Must(nil, cassetteBin, "verify"); !strings.Contains(out, "8 passed, 0 failed") {
		t.Fatalf("verify after fixing the fake:\n%s", out)
	}
}

// TestLearnFromTheRecordingAndTheFake is issue 39's done-when on the
// github example: its real side is a stored recording of GitHub, which
// answers every call alike, so learning from reality alone finds nothing;
// `cassette learn` also runs the example's fake (built by go build, as
// verify builds it) on each cassette's input and learns where it differs
// from reality in a volatile way. With every normalizer removed from a
// copy, verify fails (the fake writes its JSON in another key order);
// learn --apply for gh learns nothing (the fake prints what gh prints),
// for github json.canonical (its ports are in the request URLs, which
// verify does not compare); verify is then green,
// with no more normalizers than the hand-written ones plus one. A fake
// that names a label wrong is then a drift learn reports, not a
// normalizer it proposes.
func TestLearnFromTheRecordingAndTheFake(t *testing.T) {
	needRealSide(t)
	e := newExample(t)
	hand := e.ForgetNormalizers()
	up := startUpstream(t, e, fixtures)
	// The recorded API takes any token; the variables must be set (record.sh sets them too).
	e.Env = append(e.Env, "GH_TOKEN=recorded-fixtures-take-any-token", "GITHUB_TOKEN=recorded-fixtures-take-any-token")
	if _, _, code := e.Run(nil, cassetteBin, "verify"); code != 1 {
		t.Fatalf("verify without normalizers: exit %d, want 1 (the fake's JSON is laid out differently)", code)
	}
	if out := e.Must(nil, cassetteBin, "learn", "--adapter", "gh", "--base-url", up, "--apply"); !strings.Contains(out, "and the fake's answer") ||
		!strings.Contains(out, "no change") {
		t.Errorf("learn --adapter gh should compare the fake and learn nothing:\n%s", out)
	}
	// The upstream is a recording: what learn sends it changes nothing.
	out := e.LearnApply(cassetteBin, "github", hand["github"], "--base-url", up, "--rerecord-unsafe")
	if !strings.Contains(out, "json.canonical (built-in)") {
		t.Errorf("learn did not propose json.canonical for the fake's key order:\n%s", out)
	}
	if vout, verr, code := e.Run(nil, cassetteBin, "verify"); code != 0 || !strings.Contains(vout, "8 passed, 0 failed") {
		t.Fatalf("verify after learn --apply: exit %d\n%s\n%s\nlearn said:\n%s", code, vout, verr, out)
	}

	e.Patch("fakes/github/api.go", `{"good first issue", "7057ff"`, `{"good-first-issue", "7057ff"`)
	e.LearnReportsDrift(cassetteBin, []string{"--adapter", "github", "--base-url", up, "--scenario", "labels-list", "--apply"},
		[]string{`$[4].name: reality "good first issue", the fake "good-first-issue"`}, []string{"--case", "github/labels-list"})
}
