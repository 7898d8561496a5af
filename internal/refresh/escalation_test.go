package refresh

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/report"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// TestEscalation runs sequences of weekly cycles; the count lives on the
// remote's state branch, so each cycle starts from a fresh clone, as a
// scheduled CI run on a new machine does.
func TestEscalation(t *testing.T) {
	const drift, clean = true, false
	tests := []struct {
		name      string
		seq       []bool
		wantCount []int
		wantEsc   []bool
		step      time.Duration // between cycles; 0 means a week
	}{
		{"hourly cycles on one day count each", []bool{drift, drift, drift}, []int{1, 2, 3}, []bool{false, false, true}, time.Hour},
		{"drift drift drift escalates", []bool{drift, drift, drift}, []int{1, 2, 3}, []bool{false, false, true}, 0},
		{"drift clean resets", []bool{drift, clean, drift}, []int{1, 0, 1}, []bool{false, false, false}, 0},
		{"escalation keeps counting", []bool{drift, drift, drift, drift, clean}, []int{1, 2, 3, 4, 0}, []bool{false, false, true, true, false}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t)
			fresh := p.dir
			for i, d := range tt.seq {
				if d {
					p.real.set(200, `{"pets":[],"n":`+string(rune('0'+i))+`}`)
				} else {
					p.real.set(200, `{"pets":[]}`)
				}
				p.dir = filepath.Join(t.TempDir(), "clone")
				runGit(t, p.env, filepath.Dir(p.dir), "clone", "--quiet", p.remote, p.dir)
				p.load()
				step := tt.step
				if step == 0 {
					step = 7 * 24 * time.Hour
				}
				r := p.cycle(week0.Add(time.Duration(i)*step), nil)
				if r.Err != nil {
					t.Fatal(r.Err)
				}
				pet := adapterResult(t, r, "petstore")
				if pet.Err != nil {
					t.Fatal(pet.Err)
				}
				if pet.Consecutive != tt.wantCount[i] || pet.Escalated != tt.wantEsc[i] {
					t.Fatalf("cycle %d: count %d escalated %v, want %d %v", i+1, pet.Consecutive, pet.Escalated, tt.wantCount[i], tt.wantEsc[i])
				}
				run := r.Report(p.cfg, report.Tool{Name: "cassette"}, "")
				if pet.Escalated {
					if run.Reason() != outcome.EEscalated {
						t.Errorf("cycle %d: reason %s, want E_ESCALATED", i+1, run.Reason())
					}
					if !strings.Contains(pet.PR.Body, "@pets-team") || !strings.Contains(pet.PR.Body, "Escalated") {
						t.Errorf("escalated PR body does not mention the owners:\n%s", pet.PR.Body)
					}
				}
			}
			_ = fresh
		})
	}
}

// TestGateFailsFilesIssue: the fake does not follow the real change, so
// the PR says so and a companion issue names the failing cases and how to
// replay them.
func TestGateFailsFilesIssue(t *testing.T) {
	p := newProject(t)
	p.real.set(200, `{"pets":[{"name":"rex"}]}`)
	r := p.cycle(week0, nil)
	pet := adapterResult(t, r, "petstore")
	if pet.Err != nil {
		t.Fatal(pet.Err)
	}
	if pet.Issue == nil {
		t.Fatal("no fake-drift issue")
	}
	for _, want := range []string{"fake-drift: petstore", "cassette verify --case petstore/list-pets", "git fetch origin cassette-refresh/petstore/2026-11-29"} {
		if !strings.Contains(pet.Issue.Title+"\n"+pet.Issue.Body, want) {
			t.Errorf("issue lacks %q:\n%s", want, pet.Issue.Body)
		}
	}
	run := r.Report(p.cfg, report.Tool{Name: "cassette"}, "")
	if run.Reason() != outcome.EFakeDrift {
		t.Errorf("reason %s, want E_FAKE_DRIFT", run.Reason())
	}
	dir := t.TempDir()
	if err := r.WriteProposals(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"petstore.pr.md", "petstore.issue.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("proposal %s not written: %v", f, err)
		}
	}
	if err := report.Write(filepath.Join(dir, "reports"), (*report.Run)(run), report.Options{Declared: map[string]string{"PETSTORE_TOKEN": token}}); err != nil {
		t.Fatalf("report.Write: %v", err)
	}
}

// TestInfrastructureFailures: each failure gives a report entry with its
// reason, exit class and a next step.
func TestInfrastructureFailures(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(p *project)
		mod    func(o *Options)
		reason outcome.Reason
		next   string
	}{
		{name: "real service 5xx", setup: func(p *project) { p.real.set(503, `{"message":"down"}`) }, reason: outcome.EProvider5xx},
		{name: "real service unreachable", setup: func(p *project) { p.real.Close() }, reason: outcome.ERealUnreachable},
		{name: "push declined by a hook", reason: outcome.EPushRejected, next: "cassette refresh --once",
			setup: func(p *project) {
				p.real.set(200, `{"pets":[],"total":0}`)
				hook := filepath.Join(p.remote, "hooks", "pre-receive")
				if err := os.WriteFile(hook, []byte("#!/bin/sh\necho 'protected: no pushes' >&2\nexit 1\n"), 0o755); err != nil {
					p.t.Fatal(err)
				}
			}},
		{name: "forge API error", reason: outcome.EForge, next: "gh api",
			setup: func(p *project) { p.real.set(200, `{"pets":[],"total":0}`) },
			mod:   func(o *Options) { o.Forge = failingForge{} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t)
			tt.setup(p)
			r := p.cycle(week0, tt.mod)
			if r.Err != nil && tt.reason != outcome.EPushRejected {
				t.Fatal(r.Err)
			}
			run := r.Report(p.cfg, report.Tool{Name: "cassette"}, "")
			var found bool
			for _, c := range run.Cases {
				if c.Adapter != "petstore" {
					continue
				}
				if c.Status != verdict.StatusError || c.Reason != tt.reason {
					t.Errorf("%s: status %s reason %s, want error %s (%s)", c.Scenario, c.Status, c.Reason, tt.reason, c.Message)
				}
				if c.NextStep == "" || !strings.Contains(c.NextStep, tt.next) {
					t.Errorf("%s: next step %q, want one containing %q", c.Scenario, c.NextStep, tt.next)
				}
				if strings.Contains(c.Message+c.NextStep, token) {
					t.Errorf("the token leaked into the report entry")
				}
				found = true
			}
			if !found {
				t.Fatal("no petstore case")
			}
			if run.Exit() != outcome.ExitInfra {
				t.Errorf("exit %d (%s), want 3", run.Exit(), run.Reason())
			}
		})
	}
}

type failingForge struct{}

func (failingForge) Kind() string { return "test" }
func (failingForge) OpenPR(context.Context, string) (*PR, error) {
	return nil, nil
}
func (failingForge) PublishPR(context.Context, PRRequest) (*PR, error) {
	return nil, &outcome.Error{Reason: outcome.EForge, Message: "GitHub API: 502", NextStep: "gh api repos/o/r"}
}
func (failingForge) PublishIssue(context.Context, IssueRequest) (*Issue, error) {
	return nil, errors.New("unused")
}

// TestDryRun: nothing reaches the remote; the PR text is still produced.
func TestDryRun(t *testing.T) {
	p := newProject(t)
	p.real.set(200, `{"pets":[],"total":0}`)
	before := p.remoteGit("for-each-ref")
	r := p.cycle(week0, func(o *Options) { o.DryRun = true })
	pet := adapterResult(t, r, "petstore")
	if pet.Err != nil || pet.PR == nil || pet.Pushed {
		t.Fatalf("dry run: err %v PR %v pushed %v", pet.Err, pet.PR, pet.Pushed)
	}
	if after := p.remoteGit("for-each-ref"); after != before {
		t.Fatalf("the dry run changed the remote:\n%s\n→\n%s", before, after)
	}
}

// TestCrashMidCycleIsResumed kills a child process running a cycle right
// after it wrote the first new cassette. Nothing half-written is left, and
// the next cycle does the whole job.
func TestCrashMidCycleIsResumed(t *testing.T) {
	if dir := os.Getenv("REFRESH_CRASH_DIR"); dir != "" {
		crashChild(t, dir)
		return
	}
	needSIGKILL(t)
	p := newProject(t)
	p.real.set(200, `{"pets":[],"total":0}`)
	p.fake.set(200, `{"pets":[],"total":0}`)
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashMidCycleIsResumed$")
	cmd.Env = append(append(os.Environ(), p.env...), "REFRESH_CRASH_DIR="+p.dir, "REFRESH_CRASH_REAL="+p.real.URL)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child: want killed by SIGKILL, got %v\n%s", err, out)
	}
	// The crash left a work tree with one cassette; whatever is there parses.
	wt := filepath.Join(p.dir, ".git", "cassette-refresh", "petstore")
	filepath.Walk(wt, func(path string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(path, ".yaml") && strings.Contains(path, "cassettes") {
			if _, lerr := cassettes.Load(path, cassettes.LoadOptions{}); lerr != nil {
				t.Errorf("half-written cassette %s: %v", path, lerr)
			}
		}
		return nil
	})
	if heads := p.remoteGit("for-each-ref", "refs/heads/cassette-refresh/petstore/"); heads != "" {
		t.Fatalf("the killed cycle pushed: %s", heads)
	}
	r := p.cycle(week0, nil)
	pet := adapterResult(t, r, "petstore")
	if pet.Err != nil || !pet.Pushed {
		t.Fatalf("resumed cycle: err %v pushed %v", pet.Err, pet.Pushed)
	}
	files := p.remoteGit("diff", "--name-only", "main", pet.Branch)
	if files != "cassettes/petstore/get-pet.yaml\ncassettes/petstore/list-pets.yaml" {
		t.Errorf("files on the resumed branch:\n%s", files)
	}
	if out := runGit(t, p.env, p.dir, "worktree", "list"); strings.Contains(out, "cassette-refresh") {
		t.Errorf("the crashed work tree is still registered:\n%s", out)
	}
}

// crashChild runs a cycle in the child process and kills itself after the
// first cassette is written.
func crashChild(t *testing.T, dir string) {
	p := &project{t: t, dir: dir, env: nil}
	p.load()
	p.lookup = func(k string) (string, bool) { return token, k == "PETSTORE_TOKEN" }
	p.real = &service{}
	p.fake = &service{}
	o := p.options(new(bytes.Buffer))
	o.Gate = nil
	o.AfterWrite = func(string) error {
		killSelf()
		select {} // the signal is on its way
	}
	Cycle(context.Background(), week0, o)
	t.Fatal("the child was not killed")
}
