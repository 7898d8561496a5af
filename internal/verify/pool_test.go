package verify_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verdict"
	"github.com/cassette-dev/cassette/internal/verify"
)

// perCase returns n cases, each a copy of the cassette id under its own
// scenario name (and file, so each has its own log).
func perCase(t *testing.T, cfg *cfgschema.Config, list []*cassettes.Cassette, id string, n int) []verify.Case {
	t.Helper()
	var many []*cassettes.Cassette
	for _, c := range list {
		if c.ID() != id {
			continue
		}
		for i := range n {
			cp := *c
			cp.Scenario = fmt.Sprintf("%s-%03d", c.Scenario, i)
			cp.Path = filepath.Join(filepath.Dir(c.Path), cp.Scenario+".yaml")
			many = append(many, &cp)
		}
	}
	if len(many) != n {
		t.Fatalf("no cassette %s", id)
	}
	cases, err := verify.Plan(cfg, many, verify.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestFreshFakesStartedAheadAreOnePerCase: with the fakes started ahead,
// every case still runs against a process of its own. create-then-list
// lists the store after one create: a fake reused by a second case would
// list two pets and drift. Every third case's recording says "Max" where
// the fake answers "Rex": those drift, and keep their fake's log, a file
// of their own written by one process; a passing case keeps none (its
// fake's output was held in memory, fakelog.go).
func TestFreshFakesStartedAheadAreOnePerCase(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the demo's pet store fake")
	}
	cfg, list, reg := demo(t)
	bin := buildPetstore(t, cfg.Dir)
	a := *cfg.Adapters["petstore"]
	a.Fake.Build, a.Fake.Command, a.Fake.Shared = nil, []string{bin}, false
	cfg.Adapters["petstore"] = &a
	const n = 3 * verify.MaxFakesAhead // more cases than fakes ahead
	cases := perCase(t, cfg, list, "petstore/create-then-list", n)
	for i := 0; i < n; i += 3 {
		c := *cases[i].Cassette
		c.Interactions = append([]cassettes.Interaction(nil), c.Interactions...)
		last := &c.Interactions[len(c.Interactions)-1].Response
		last.Body = cassettes.Body(strings.ReplaceAll(string(last.Body), `"Rex"`, `"Max"`))
		cases[i].Cassette = &c
	}
	logDir := t.TempDir()
	o := verify.Run(context.Background(), cases, verify.Options{Config: cfg, Normalizers: reg, LogDir: logDir, Jobs: 2})
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	logs := map[string]bool{}
	for i, r := range o.Results {
		if r.Case.ID() != cases[i].ID() {
			t.Fatalf("result %d is %s, want %s: results must keep the plan order", i, r.Case.ID(), cases[i].ID())
		}
		want := verdict.StatusPass
		if i%3 == 0 {
			want = verdict.StatusFail
		}
		if r.Status != want {
			t.Errorf("%s: %s, want %s: %s\n%s", r.Case.ID(), r.Status, want, r.Message, r.Explain)
		}
		if want == verdict.StatusPass {
			if r.FakeLog != "" {
				t.Errorf("%s passed and kept a log: %s", r.Case.ID(), r.FakeLog)
			}
			continue
		}
		data, err := os.ReadFile(r.FakeLog)
		if err != nil || logs[r.FakeLog] || !strings.Contains(r.FakeLog, r.Case.Cassette.Scenario) {
			t.Fatalf("%s: log %q (%v): want a log of its own, named after it", r.Case.ID(), r.FakeLog, err)
		}
		logs[r.FakeLog] = true
		if k := strings.Count(string(data), "listening on"); k != 1 {
			t.Errorf("%s: %d processes wrote its log, want 1:\n%s", r.Case.ID(), k, data)
		}
	}
	if files, _ := os.ReadDir(logDir); len(files) != len(logs) {
		t.Errorf("%d files in the log directory, want the %d drifted cases' logs", len(files), len(logs))
	}
}

// TestInterruptStopsFakesStartedAhead: Ctrl-C (the run's context
// cancelled) while the first case runs stops every fake verify started,
// the ones started ahead for later cases included, before Run returns.
// Each fake is a real process (sh, then sleep in its place) that writes its
// pid; readiness is answered by a test server, which also cancels the run
// on the first case's request.
func TestInterruptStopsFakesStartedAhead(t *testing.T) {
	cfg, list, reg := demo(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == cfg.Adapters["petstore"].Fake.Ready {
			return // ready: 200
		}
		cancel() // Ctrl-C while a case runs
		w.WriteHeader(http.StatusNotFound)
	}))
	defer srv.Close()
	pids := filepath.Join(t.TempDir(), "pids")
	a := *cfg.Adapters["petstore"]
	a.Fake.Build, a.Fake.Shared, a.Fake.BaseURL = nil, false, srv.URL
	a.Fake.Command = []string{"sh", "-c", `echo $$ >> "$1"; exec sleep 300`, "fake", pids}
	cfg.Adapters["petstore"] = &a
	cases := perCase(t, cfg, list, "petstore/get-missing", 3*verify.MaxFakesAhead)
	o := verify.Run(ctx, cases, verify.Options{Config: cfg, Normalizers: reg, LogDir: t.TempDir(), Jobs: 1})
	interrupted := 0
	for _, r := range o.Results {
		if r.Reason == outcome.EInterrupted {
			interrupted++
		}
	}
	if interrupted < len(cases)-2 {
		t.Errorf("%d of %d cases interrupted; the run should have stopped after the first", interrupted, len(cases))
	}
	data, err := os.ReadFile(pids)
	if err != nil {
		t.Fatal(err)
	}
	started := strings.Fields(string(data))
	if len(started) < 2 {
		t.Fatalf("%d fakes started; want some started ahead of their cases", len(started))
	}
	for _, s := range started {
		pid, _ := strconv.Atoi(s)
		if gone, err := processGone(pid); !gone {
			t.Errorf("fake pid %d is still running after Run returned (kill 0: %v)", pid, err)
			killProcess(pid)
		}
	}
}

// TestPassingCasesFakesAreGoneWhenRunReturns: a passing case's fake is
// stopped in the background (its case does not wait for its exit), and Run
// still returns only once every one of them has exited and been reaped.
// Each fake is the demo's pet store, started by sh, which writes its pid
// first and then becomes the fake (exec: same pid).
func TestPassingCasesFakesAreGoneWhenRunReturns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the demo's pet store fake")
	}
	cfg, list, reg := demo(t)
	bin := buildPetstore(t, cfg.Dir)
	pids := filepath.Join(t.TempDir(), "pids")
	a := *cfg.Adapters["petstore"]
	a.Fake.Build, a.Fake.Shared = nil, false
	a.Fake.Command = []string{"sh", "-c", `echo $$ >> "$1"; exec "$2"`, "fake", pids, bin}
	cfg.Adapters["petstore"] = &a
	cases := perCase(t, cfg, list, "petstore/get-missing", verify.MaxFakesAhead+4)
	o := verify.Run(context.Background(), cases, verify.Options{Config: cfg, Normalizers: reg, LogDir: t.TempDir(), Jobs: 2})
	// Read at once: Run has returned, and nothing may still be running.
	data, err := os.ReadFile(pids)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range strings.Fields(string(data)) {
		pid, _ := strconv.Atoi(s)
		if gone, err := processGone(pid); !gone {
			t.Errorf("fake pid %d is still there after Run returned (kill 0: %v)", pid, err)
			killProcess(pid)
		}
	}
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	for _, r := range o.Results {
		if r.Status != verdict.StatusPass {
			t.Errorf("%s: %s %s", r.Case.ID(), r.Status, r.Message)
		}
	}
	if n := len(strings.Fields(string(data))); n != len(cases) {
		t.Errorf("%d fakes started for %d cases", n, len(cases))
	}
}

// buildPetstore builds the demo's pet store fake from the project in dir
// and returns the binary's path.
func buildPetstore(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "petstore")
	build := exec.Command("go", "build", "-o", bin, "./fakes/petstore")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
