package refresh

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/normalize"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/recording"
	"github.com/cassette-dev/cassette/internal/report"
	"github.com/cassette-dev/cassette/internal/verdict"
	"github.com/cassette-dev/cassette/internal/verify"
)

// service is an HTTP server whose answer to GET /v1/pets the test changes:
// it plays the real pet store, or the fake.
type service struct {
	*httptest.Server
	mu     sync.Mutex
	body   string
	status int
	auth   []string // the Authorization header of each request, in order
}

func newService(t *testing.T, body string) *service {
	s := &service{body: body, status: 200}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		body, status := s.body, s.status
		s.auth = append(s.auth, r.Header.Get("Authorization"))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *service) set(status int, body string) {
	s.mu.Lock()
	s.status, s.body = status, body
	s.mu.Unlock()
}

// project is a git work tree (cloned from a bare remote in a temp dir) with
// cassette.yaml and one committed cassette per scenario.
type project struct {
	t          *testing.T
	dir        string // the clone
	remote     string // the bare remote
	env        []string
	cfg        *cfgschema.Config
	real, fake *service
	lookup     func(string) (string, bool)
}

const token = "tok-5ecret-value-123"

func gitEnv(t *testing.T) []string {
	home := t.TempDir()
	return []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + filepath.Join(home, "none")}
}

func runGit(t *testing.T, env []string, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=test", "-c", "user.email=test@example.com"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

var scenarios = []string{"list-pets", "get-pet"}

func newProject(t *testing.T) *project {
	t.Helper()
	p := &project{t: t, env: gitEnv(t), real: newService(t, `{"pets":[]}`), fake: newService(t, `{"pets":[]}`)}
	p.lookup = func(k string) (string, bool) {
		if k == "PETSTORE_TOKEN" {
			return token, true
		}
		return "", false
	}
	root := t.TempDir()
	p.remote = filepath.Join(root, "remote.git")
	p.dir = filepath.Join(root, "work")
	runGit(t, p.env, root, "init", "--quiet", "--bare", "-b", "main", p.remote)
	runGit(t, p.env, root, "clone", "--quiet", p.remote, p.dir)
	runGit(t, p.env, p.dir, "checkout", "--quiet", "-b", "main")
	cfg := fmt.Sprintf(`version: 1
adapters:
  petstore:
    kind: http
    real:
      base_url: %s
      credentials: [PETSTORE_TOKEN]
      headers: {Authorization: "Bearer ${PETSTORE_TOKEN}"}
    fake: {base_url: %s}
    owners: ["@pets-team"]
    contract_headers: [Content-Type]
  nocreds:
    kind: http
    real: {base_url: %s, credentials: [NOCREDS_TOKEN]}
    fake: {base_url: %s}
refresh:
  forge: {kind: git, remote: origin}
  escalate_after: 3
`, p.real.URL, p.fake.URL, p.real.URL, p.fake.URL)
	if err := os.WriteFile(filepath.Join(p.dir, "cassette.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	p.load()
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for _, adapter := range []string{"petstore", "nocreds"} {
		for _, sc := range scenarios {
			c := &cassettes.Cassette{Cassette: 1, Version: 2, Adapter: adapter, Scenario: sc, Kind: cfgschema.KindHTTP, RecordedAt: &at,
				Path: filepath.Join(p.dir, "cassettes", adapter, sc+".yaml"),
				Interactions: []cassettes.Interaction{{Request: cassettes.Request{Method: "GET", URL: p.real.URL + "/v1/pets?s=" + sc,
					Headers: http.Header{"Authorization": {"[REDACTED]"}}},
					Response: cassettes.Response{Code: 200, Status: "200 OK", Headers: http.Header{"Content-Type": {"application/json"}}, Body: `{"pets":[]}`}}}}
			if err := cassettes.Save(c, cassettes.SaveOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	runGit(t, p.env, p.dir, "add", ".")
	runGit(t, p.env, p.dir, "commit", "--quiet", "-m", "cassettes")
	runGit(t, p.env, p.dir, "push", "--quiet", "origin", "main")
	return p
}

func (p *project) load() {
	cfg, err := cassettes.LoadConfig(filepath.Join(p.dir, "cassette.yaml"), cassettes.ConfigOptions{Normalizers: normalize.Builtins()})
	if err != nil {
		p.t.Fatal(err)
	}
	p.cfg = cfg
}

func (p *project) git() *Git {
	return &Git{Dir: p.dir, Env: p.env, Secrets: map[string]string{"PETSTORE_TOKEN": token}}
}

func (p *project) options(log *bytes.Buffer) Options {
	g := p.git()
	return Options{Config: p.cfg, LookupEnv: p.lookup, Git: g, Forge: &GitForge{Git: g, Remote: "origin", Base: "main"}, Log: log,
		Recorder: recording.Live{Config: p.cfg, LookupEnv: p.lookup, Policy: noSleepPolicy()},
		Gate: func(ctx context.Context, cases []verify.Case) *verify.Outcome {
			return verify.Run(ctx, cases, verify.Options{Config: p.cfg, Jobs: 1,
				HTTP: map[string]verify.HTTPTarget{"petstore": {BaseURL: p.fake.URL, Client: p.fake.Client()}, "nocreds": {BaseURL: p.fake.URL, Client: p.fake.Client()}}})
		}}
}

func (p *project) cycle(now time.Time, mod func(*Options)) *Result {
	p.t.Helper()
	var log bytes.Buffer
	o := p.options(&log)
	if mod != nil {
		mod(&o)
	}
	r := Cycle(context.Background(), now, o)
	p.t.Logf("cycle %s:\n%s", now.Format(time.DateOnly), log.String())
	return r
}

func (p *project) remoteGit(args ...string) string {
	return runGit(p.t, p.env, p.remote, args...)
}

func adapterResult(t *testing.T, r *Result, name string) *AdapterResult {
	t.Helper()
	for _, ar := range r.Adapters {
		if ar.Name == name {
			return ar
		}
	}
	t.Fatalf("no result for adapter %s", name)
	return nil
}

var week0 = time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC) // a Sunday

// TestCycleRerecordsThroughTheSession runs a cycle with its own recorder
// (Options.Recorder nil: the adapter's recording.Session) against the real
// side's server: the re-recordings send the credential the cycle's
// LookupEnv holds (the session's lookup, not the process environment, which
// does not hold it) and pass.
func TestCycleRerecordsThroughTheSession(t *testing.T) {
	p := newProject(t)
	if _, ok := os.LookupEnv("PETSTORE_TOKEN"); ok {
		t.Skip("PETSTORE_TOKEN is set in this environment: the test needs it to come from the cycle's LookupEnv alone")
	}
	r := p.cycle(week0, func(o *Options) { o.Recorder = nil })
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if c := r.Report(p.cfg, report.Tool{Name: "cassette"}, "").Counts(); c.Pass != 2 {
		t.Fatalf("counts %+v, want the 2 petstore cases re-recorded and passing", c)
	}
	p.real.mu.Lock()
	defer p.real.mu.Unlock()
	if want := []string{"Bearer " + token, "Bearer " + token}; !slices.Equal(p.real.auth, want) {
		t.Fatalf("the real side saw Authorization %q, want %q", p.real.auth, want)
	}
}

func TestCycleNoDriftNoCredentials(t *testing.T) {
	p := newProject(t)
	r := p.cycle(week0, nil)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	pet := adapterResult(t, r, "petstore")
	if pet.PR != nil || pet.Branch != "" {
		t.Fatalf("no drift, yet a PR/branch: %+v", pet)
	}
	nc := adapterResult(t, r, "nocreds")
	if !strings.Contains(nc.Skipped, "NOCREDS_TOKEN") {
		t.Fatalf("nocreds skipped = %q, want the missing variable named", nc.Skipped)
	}
	run := r.Report(p.cfg, report.Tool{Name: "cassette"}, "")
	if run.Exit() != outcome.ExitPass {
		t.Fatalf("exit %d (%s), want 0", run.Exit(), run.Reason())
	}
	if c := run.Counts(); c.Pass != 2 || c.Skipped != 2 {
		t.Fatalf("counts %+v, want 2 pass, 2 skipped", c)
	}
	if heads := p.remoteGit("for-each-ref", "--format=%(refname)", "refs/heads/cassette-refresh/petstore"); heads != "" {
		t.Fatalf("refresh branches pushed without drift: %s", heads)
	}
	// the state branch records the run
	st, err := ParseState([]byte(p.remoteGit("show", StateBranch+":"+StateFile)))
	if err != nil || !st.LastRun.Equal(week0) {
		t.Fatalf("state = %+v, %v", st, err)
	}
}

func TestCycleDriftOpensThenUpdatesRefreshBranch(t *testing.T) {
	p := newProject(t)
	p.real.set(200, `{"pets":[],"total":0}`)
	p.fake.set(200, `{"pets":[],"total":0}`) // the fake already follows: the gate passes
	r := p.cycle(week0, nil)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	pet := adapterResult(t, r, "petstore")
	if pet.Err != nil {
		t.Fatal(pet.Err)
	}
	wantBranch := "cassette-refresh/petstore/2026-11-29"
	if pet.Branch != wantBranch || !pet.Pushed || pet.PR == nil {
		t.Fatalf("branch %q pushed=%v PR=%v, want %s pushed with a PR", pet.Branch, pet.Pushed, pet.PR, wantBranch)
	}
	if pet.PR.Title != "contract-refresh: 2026-11-29 (petstore)" {
		t.Errorf("PR title %q", pet.PR.Title)
	}
	for _, want := range []string{"petstore/list-pets", "petstore/get-pet", "schema", "$.total", "fake passes"} {
		if !strings.Contains(pet.PR.Body, want) {
			t.Errorf("PR body lacks %q:\n%s", want, pet.PR.Body)
		}
	}
	// The commit on the remote branch: its message names the drifting
	// scenarios, its files are the two re-recorded cassettes, nothing else.
	msg := p.remoteGit("log", "-1", "--format=%B", wantBranch)
	for _, want := range []string{"contract-refresh: 2026-11-29 (petstore)", "- list-pets (schema)", "- get-pet (schema)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("commit message lacks %q:\n%s", want, msg)
		}
	}
	files := p.remoteGit("diff", "--name-only", "main", wantBranch)
	if files != "cassettes/petstore/get-pet.yaml\ncassettes/petstore/list-pets.yaml" {
		t.Errorf("files changed on the branch:\n%s", files)
	}
	body := p.remoteGit("show", wantBranch+":cassettes/petstore/list-pets.yaml")
	if !strings.Contains(body, `"total":0`) || strings.Contains(body, token) {
		t.Errorf("new cassette: want the new body and no token:\n%s", body)
	}
	// The report: real drift, exit 1, the next step says to review the branch.
	run := r.Report(p.cfg, report.Tool{Name: "cassette"}, "proposals")
	if run.Reason() != outcome.ERealDrift || run.Exit() != outcome.ExitFail {
		t.Errorf("report reason %s exit %d, want E_REAL_DRIFT exit 1", run.Reason(), run.Exit())
	}
	if ns := run.NextStepCommand(); !strings.Contains(ns, wantBranch) {
		t.Errorf("next step %q does not name the branch", ns)
	}

	// A week later, same drift plus a new one: the same branch is updated
	// (one new commit), not a second branch.
	p.real.set(200, `{"pets":[],"total":0,"page":1}`)
	p.fake.set(200, `{"pets":[],"total":0,"page":1}`)
	r2 := p.cycle(week0.AddDate(0, 0, 7), nil)
	pet2 := adapterResult(t, r2, "petstore")
	if pet2.Err != nil {
		t.Fatal(pet2.Err)
	}
	if pet2.Branch != wantBranch {
		t.Fatalf("second cycle used branch %q, want the open one %q", pet2.Branch, wantBranch)
	}
	if heads := p.remoteGit("for-each-ref", "--format=%(refname:short)", "refs/heads/cassette-refresh/petstore/"); heads != wantBranch {
		t.Fatalf("refresh branches on the remote:\n%s\nwant only %s", heads, wantBranch)
	}
	if n := p.remoteGit("rev-list", "--count", "main.."+wantBranch); n != "2" {
		t.Errorf("commits on the branch = %s, want 2", n)
	}
	if pet2.PR.Title != "contract-refresh: 2026-12-06 (petstore)" {
		t.Errorf("updated PR title %q", pet2.PR.Title)
	}
	// A third cycle with nothing new: the branch is not moved.
	before := p.remoteGit("rev-parse", wantBranch)
	p.cycle(week0.AddDate(0, 0, 7), nil)
	if after := p.remoteGit("rev-parse", wantBranch); after != before {
		t.Errorf("a cycle with nothing new moved the branch")
	}
	// No work tree is left behind.
	if out := runGit(t, p.env, p.dir, "worktree", "list"); strings.Count(out, "\n") != 0 {
		t.Errorf("work trees left:\n%s", out)
	}
	if st := runGit(t, p.env, p.dir, "status", "--porcelain"); st != "" {
		t.Errorf("the user's work tree was touched:\n%s", st)
	}
}

// noSleepPolicy is the live retry policy of specs/000 with waits recorded
// instead of slept.
func noSleepPolicy() *recording.Policy {
	pol := recording.DefaultPolicy()
	pol.Sleep = func(ctx context.Context, d time.Duration) error { return ctx.Err() }
	return &pol
}

// TestCycleSkipsMutatingScenarios: a cassette marked mutating is not re-run
// against the real service unless the adapter allows it.
func TestCycleSkipsMutatingScenarios(t *testing.T) {
	p := newProject(t)
	path := filepath.Join(p.dir, "cassettes", "petstore", scenarios[0]+".yaml")
	c, err := cassettes.Load(path, cassettes.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c.Mutating = true
	if err := cassettes.Save(c, cassettes.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	p.real.set(200, `{"pets":[],"total":0}`) // would drift if re-recorded
	p.fake.set(200, `{"pets":[],"total":0}`)
	for _, allow := range []bool{false, true} {
		p.cfg.Adapters["petstore"].AllowMutating = allow
		r := p.cycle(week0, func(o *Options) { o.DryRun = true })
		var got *CaseResult
		for _, cr := range adapterResult(t, r, "petstore").Cases {
			if cr.Old.Scenario == scenarios[0] {
				got = cr
			}
		}
		if got == nil {
			t.Fatalf("allow_mutating=%v: no result for %s", allow, scenarios[0])
		}
		if skipped := got.Status == verdict.StatusSkipped; skipped == allow {
			t.Errorf("allow_mutating=%v: status %s (%s)", allow, got.Status, got.Message)
		}
	}
}
