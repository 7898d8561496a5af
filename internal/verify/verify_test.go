package verify_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/examples/demo/fakes/petstore/store"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/diff"
	"github.com/cassette-dev/cassette/internal/normalize"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/report"
	"github.com/cassette-dev/cassette/internal/verdict"
	"github.com/cassette-dev/cassette/internal/verify"
)

// demo loads the demo project: its config and the cassettes that were
// recorded from its real pet store and greet tool.
func demo(t *testing.T) (*cfgschema.Config, []*cassettes.Cassette, *normalize.Registry) {
	t.Helper()
	reg := normalize.Builtins()
	cfg, err := cassettes.LoadConfig(filepath.Join("..", "..", "examples", "demo", "cassette.yaml"), cassettes.ConfigOptions{Normalizers: reg})
	if err != nil {
		t.Fatal(err)
	}
	list, err := cassettes.LoadTree([]string{cfg.CassetteDir()}, cassettes.LoadOptions{Config: cfg, Normalizers: reg})
	if err != nil {
		t.Fatal(err)
	}
	return cfg, list, reg
}

// rewrite wraps the fake store and edits its JSON responses.
func rewrite(edit func(path string, code *int, doc map[string]any)) func() http.Handler {
	return func() http.Handler {
		s := store.New()
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, r)
			code := rec.Code
			var doc map[string]any
			body := rec.Body.Bytes()
			if json.Unmarshal(body, &doc) == nil {
				edit(r.Method+" "+r.URL.Path, &code, doc)
				body, _ = json.MarshalIndent(doc, "", "  ")
				body = append(body, '\n')
			}
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(code)
			w.Write(body)
		})
	}
}

// greetCLI is the greet fake in process; mutate changes its behaviour.
func greetCLI(mutate func(args []string, out *cassettes.Output)) verify.CLITarget {
	return func(ctx context.Context, inv verify.Invocation) (cassettes.Output, error) {
		var out cassettes.Output
		var b strings.Builder
		for _, a := range inv.Args {
			switch {
			case a == "--json":
			case strings.HasPrefix(a, "-"):
				return cassettes.Output{Stderr: cassettes.Body("greet: unknown flag " + a + "\n"), ExitCode: 2}, nil
			}
		}
		asJSON := len(inv.Args) > 0 && inv.Args[0] == "--json"
		for _, a := range inv.Args {
			if a == "--json" {
				continue
			}
			if asJSON {
				fmt.Fprintf(&b, "{\"greeting\":\"Hello, %s!\",\"name\":\"%s\"}\n", a, a)
			} else {
				fmt.Fprintf(&b, "Hello, %s!\n", a)
			}
		}
		out.Stdout = cassettes.Body(b.String())
		if mutate != nil {
			mutate(inv.Args, &out)
		}
		return out, nil
	}
}

// runDemo verifies the demo cassettes against in-process fakes.
func runDemo(t *testing.T, newHandler func() http.Handler, cli verify.CLITarget) map[string]verify.Result {
	t.Helper()
	cfg, list, reg := demo(t)
	cases, err := verify.Plan(cfg, list, verify.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 7 {
		t.Fatalf("the demo has %d cassettes, want at least 7: the tests below would prove nothing", len(cases))
	}
	out := map[string]verify.Result{}
	for _, c := range cases {
		srv := httptest.NewServer(newHandler())
		o := verify.Run(context.Background(), []verify.Case{c}, verify.Options{Config: cfg, Normalizers: reg,
			HTTP: map[string]verify.HTTPTarget{"petstore": {BaseURL: srv.URL, Client: srv.Client()}},
			CLI:  map[string]verify.CLITarget{"greet": cli}})
		srv.Close()
		if o.Err != nil {
			t.Fatalf("run error: %v", o.Err)
		}
		out[c.ID()] = o.Results[0]
	}
	return out
}

func TestCorrectFakePasses(t *testing.T) {
	for id, r := range runDemo(t, func() http.Handler { return store.New() }, greetCLI(nil)) {
		if r.Status != verdict.StatusPass {
			t.Errorf("%s: %s %s: %s\n%s", id, r.Status, r.Reason, r.Message, r.Explain)
		}
	}
}

// TestDriftIsCaught: each kind of wrong fake fails the case it breaks, with
// the drift's class, the cassette field and line, and a minimal explanation;
// the other cases still pass.
func TestDriftIsCaught(t *testing.T) {
	cases := []struct {
		name     string
		handler  func() http.Handler
		cli      verify.CLITarget
		failing  string
		class    string
		field    string
		explains string // substrings of the explanation, separated by |
		drifts   int    // 0 means 1
	}{
		{name: "changed field", failing: "petstore/create-then-list", class: "value", field: "interactions[0].response.body", explains: "$.tag|value changed:|- \"dog\"|+ \"cat\"",
			handler: rewrite(func(p string, _ *int, d map[string]any) {
				if p == "POST /v1/pets" {
					d["tag"] = "cat"
				}
			})},
		{name: "missing field", failing: "petstore/create-then-list petstore/create-then-get", class: "schema", field: "interactions[0].response.body", explains: `$.name|field removed: - "`,
			handler: rewrite(func(p string, _ *int, d map[string]any) {
				if p == "POST /v1/pets" {
					delete(d, "name")
				}
			})},
		{name: "wrong status", failing: "petstore/get-missing", class: "status", field: "interactions[0].response.code", explains: "- 404 Not Found|+ 410 Gone",
			handler: rewrite(func(p string, code *int, _ map[string]any) {
				if *code == 404 {
					*code = 410
				}
			})},
		{name: "wrong id", failing: "petstore/create-then-list", class: "value", field: "interactions[1].response.body", explains: `$.pets[0].id|- "<uuid:1>"|+ "<uuid:2>"`,
			handler: rewrite(func(p string, _ *int, d map[string]any) {
				if pets, ok := d["pets"].([]any); ok && len(pets) > 0 {
					pets[0].(map[string]any)["id"] = "0b9e4a3c-9d1e-4b6a-8c7d-2f3e4a5b6c7d" // not the id it created
				}
			})},
		{name: "wrong exit code", failing: "greet/bad-flag", class: "exit_code", field: "output.exit_code", explains: "output.exit_code|- 2|+ 1",
			cli: func(ctx context.Context, inv verify.Invocation) (cassettes.Output, error) {
				out, err := greetCLI(nil)(ctx, inv)
				if out.ExitCode == 2 {
					out.ExitCode = 1
				}
				return out, err
			}},
		{name: "changed stdout", failing: "greet/hello", class: "body", field: "output.stdout", explains: "+Hi, Ada!",
			cli: greetCLI(func(args []string, out *cassettes.Output) {
				if len(args) == 2 && args[0] != "--json" {
					out.Stdout = cassettes.Body(strings.Replace(string(out.Stdout), "Hello, Ada!", "Hi, Ada!", 1))
				}
			})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, cli := tc.handler, tc.cli
			if h == nil {
				h = func() http.Handler { return store.New() }
			}
			if cli == nil {
				cli = greetCLI(nil)
			}
			results := runDemo(t, h, cli)
			for _, id := range strings.Fields(tc.failing) {
				if _, ok := results[id]; !ok {
					t.Fatalf("case %s, which should fail, was not run", id)
				}
			}
			for id, r := range results {
				if !slices.Contains(strings.Fields(tc.failing), id) {
					if r.Status != verdict.StatusPass {
						t.Errorf("%s should pass, got %s: %s", id, r.Status, r.Message)
					}
					continue
				}
				if r.Status != verdict.StatusFail || r.Reason != outcome.EContractDrift {
					t.Fatalf("%s: got %s %s (%s), want fail E_CONTRACT_DRIFT", id, r.Status, r.Reason, r.Message)
				}
				d := r.Drifts[0]
				if d.Class != tc.class || d.Field != tc.field || d.Line == 0 {
					t.Errorf("drift = %+v, want class %s at %s with a line", d, tc.class, tc.field)
				}
				for _, want := range strings.Split(tc.explains, "|") {
					if !strings.Contains(r.Explain, want) {
						t.Errorf("explanation lacks %q:\n%s", want, r.Explain)
					}
				}
				if want := max(tc.drifts, 1); len(r.Drifts) != want {
					t.Errorf("want %d drift(s), got %d: %+v", want, len(r.Drifts), r.Drifts)
				}
			}
		})
	}
}

// TestFakeProcessUnavailable: a fake that exits before it is ready makes
// every case of its adapter an error with E_FAKE_UNAVAILABLE (exit 3), and
// its log is kept and quoted.
func TestFakeProcessUnavailable(t *testing.T) {
	cfg, list, reg := demo(t)
	a := *cfg.Adapters["petstore"]
	a.Fake.Build = nil
	a.Fake.Command = []string{"sh", "-c", "echo 'listen tcp: address already in use' >&2; exit 3"}
	a.Fake.Shared = true
	cfg.Adapters["petstore"] = &a
	cases, _ := verify.Plan(cfg, list, verify.Selection{Adapters: []string{"petstore"}})
	logDir := t.TempDir()
	o := verify.Run(context.Background(), cases, verify.Options{Config: cfg, Normalizers: reg, LogDir: logDir})
	if o.Err == nil || o.Err.Reason != outcome.EFakeUnavailable || o.Err.Exit() != outcome.ExitInfra {
		t.Fatalf("run error = %v, want E_FAKE_UNAVAILABLE", o.Err)
	}
	if !strings.Contains(o.Err.Error(), "address already in use") || o.Err.NextStep == "" {
		t.Errorf("the error should quote the fake's log and give a next step:\n%v\nnext: %s", o.Err, o.Err.NextStep)
	}
	for _, r := range o.Results {
		if r.Status != verdict.StatusError || r.Reason != outcome.EFakeUnavailable || r.FakeLog == "" {
			t.Errorf("%s: %s %s log=%q", r.Case.ID(), r.Status, r.Reason, r.FakeLog)
		}
	}
	run := o.Report(cfg, verify.Meta{})
	if run.Exit() != outcome.ExitInfra {
		t.Errorf("run exit = %d, want 3", run.Exit())
	}
}

// TestFakeProcess runs the demo's real fake binaries, built by fake.build,
// as verify does from the command line: one process per case.
func TestFakeProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the demo fakes")
	}
	cfg, list, reg := demo(t)
	bin := t.TempDir()
	for _, name := range []string{"petstore", "greet"} {
		a := *cfg.Adapters[name]
		a.Fake.Build = []string{"go", "build", "-o", filepath.Join(bin, name), "./fakes/" + name}
		a.Fake.Command = []string{filepath.Join(bin, name)}
		cfg.Adapters[name] = &a
	}
	cases, _ := verify.Plan(cfg, list, verify.Selection{})
	// Two runs with real fake processes (fresh ports, fresh ids) must give
	// byte-identical golden reports.
	var reports [2]map[string][]byte
	for k := range reports {
		dir := t.TempDir()
		o := verify.Run(context.Background(), cases, verify.Options{Config: cfg, Normalizers: reg, LogDir: filepath.Join(dir, "fakes"), Jobs: 2})
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		for _, r := range o.Results {
			if r.Status != verdict.StatusPass {
				t.Errorf("%s: %s %s\n%s", r.Case.ID(), r.Status, r.Message, r.Explain)
			}
		}
		if err := report.Write(dir, (*report.Run)(o.Report(cfg, verify.Meta{})), report.Options{Golden: true}); err != nil {
			t.Fatal(err)
		}
		reports[k] = map[string][]byte{}
		for _, f := range []string{report.FileReport, report.FileSummary, report.FileJUnit, report.FileSARIF, report.FileLog} {
			data, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil || len(data) == 0 {
				t.Fatalf("report %s: %v (%d bytes)", f, err, len(data))
			}
			reports[k][f] = data
		}
	}
	for f, a := range reports[0] {
		if !bytes.Equal(a, reports[1][f]) {
			t.Errorf("golden %s differs between two runs against real fake processes", f)
		}
	}
}

// TestShards: four shards together run every case exactly once, and the
// plan order is the config's adapter order, then scenario (balance and
// stability: shard_test.go).
func TestShards(t *testing.T) {
	cfg, list, _ := demo(t)
	// more cassettes than shards: copies under other scenario names
	var many []*cassettes.Cassette
	for i := range 5 {
		for _, c := range list {
			cc := *c
			cc.Scenario = fmt.Sprintf("%s-%d", c.Scenario, i)
			many = append(many, &cc)
		}
	}
	all, _ := verify.Plan(cfg, many, verify.Selection{})
	if len(all) != len(many) {
		t.Fatalf("plan has %d cases, want %d", len(all), len(many))
	}
	if all[0].Cassette.Adapter != "petstore" || all[len(all)-1].Cassette.Adapter != "greet" {
		t.Errorf("plan order does not follow the config's adapter order")
	}
	seen := map[string]int{}
	for i := 1; i <= 4; i++ {
		part, err := verify.Plan(cfg, many, verify.Selection{Shard: i, Shards: 4})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range part {
			seen[c.ID()]++
		}
	}
	for _, c := range all {
		if seen[c.ID()] != 1 {
			t.Errorf("%s ran %d times over 4 shards", c.ID(), seen[c.ID()])
		}
	}
	if _, _, err := verify.ParseShard("5/4"); err == nil {
		t.Error("ParseShard accepted 5/4")
	}
	sel := verify.Selection{Run: regexp.MustCompile(`^greet/hello`)}
	got, _ := verify.Plan(cfg, list, sel)
	if len(got) != 2 {
		t.Errorf("--run selected %d cases, want 2", len(got))
	}
	if _, err := verify.Plan(cfg, list, verify.Selection{Adapters: []string{"petstor"}}); err == nil || !strings.Contains(err.Error(), "petstor") {
		t.Errorf("an unknown --adapter should be an error naming it, got %v", err)
	}
}

// TestQuarantine: a quarantined failure does not fail the run; an expired
// quarantine is a hard failure even for a passing case.
func TestQuarantine(t *testing.T) {
	cfg, cases, reg := quarantinedGreet(t)
	broken := greetCLI(func(args []string, out *cassettes.Output) { out.Stdout += "extra\n" })
	at := func(day string) *report.Run {
		now := mustDate(t, day)
		o := verify.Run(context.Background(), cases, verify.Options{Config: cfg, Normalizers: reg, Now: func() time.Time { return now },
			CLI:             map[string]verify.CLITarget{"greet": onlyBreak("Ada", broken)},
			QuarantineRetry: verify.QuarantineRetry{Sleep: func(context.Context, time.Duration) error { return nil }}})
		return (*report.Run)(o.Report(cfg, verify.Meta{}))
	}
	if run := at("2026-11-25"); run.Exit() != outcome.ExitPass {
		t.Errorf("quarantined failure failed the run: exit %d (%s)", run.Exit(), run.Message())
	}
	if run := at("2026-12-01"); run.Exit() != outcome.ExitFail || run.Reason() != outcome.EQuarantineExpired {
		t.Errorf("expired quarantine: exit %d reason %s, want 1 E_QUARANTINE_EXPIRED", run.Exit(), run.Reason())
	}
}

// quarantinedGreet is the demo's greet cases, greet/hello quarantined
// from 2026-11-20 until 2026-11-30.
func quarantinedGreet(t *testing.T) (*cfgschema.Config, []verify.Case, *normalize.Registry) {
	cfg, list, reg := demo(t)
	q := cfgschema.Quarantine{Category: "FLAKE-EXT", Owner: "a", Bead: "b", Evidence: "e", Repro: "r", Reason: "x", RemoveWhen: "w"}
	q.Quarantined.Time = mustDate(t, "2026-11-20")
	q.Expires.Time = mustDate(t, "2026-11-30")
	cfg.Quarantine = map[string]cfgschema.Quarantine{"greet/hello": q}
	cases, _ := verify.Plan(cfg, list, verify.Selection{Adapters: []string{"greet"}})
	return cfg, cases, reg
}

// TestExpiredQuarantineKeepsTheRecordedSide: a case that passed but whose
// quarantine expired has failed, and a failed case shows the recorded
// side it was compared with.
func TestExpiredQuarantineKeepsTheRecordedSide(t *testing.T) {
	cfg, cases, reg := quarantinedGreet(t)
	now := mustDate(t, "2026-12-01")
	o := verify.Run(context.Background(), cases, verify.Options{Config: cfg, Normalizers: reg, Now: func() time.Time { return now },
		CLI: map[string]verify.CLITarget{"greet": greetCLI(func([]string, *cassettes.Output) {})}})
	for _, r := range o.Results {
		switch id := r.Case.ID(); {
		case id == "greet/hello" && (r.Reason != outcome.EQuarantineExpired || len(r.Recorded) == 0):
			t.Errorf("%s: %s %s, recorded side %+v: want E_QUARANTINE_EXPIRED with the recorded side", id, r.Status, r.Reason, r.Recorded)
		case id != "greet/hello" && (r.Status != verdict.StatusPass || r.Recorded != nil):
			t.Errorf("%s: %s, recorded side %+v: want a pass without one", id, r.Status, r.Recorded)
		}
	}
}

// TestQuarantineRetry: a quarantined case that fails is run again once,
// 5 s later (specs/000's policy for quarantined tests); a pass on the retry
// passes it, a second failure stands (not blocking). A case that is not
// quarantined, or whose quarantine expired, is never retried.
func TestQuarantineRetry(t *testing.T) {
	cfg, list, reg := demo(t)
	q := cfgschema.Quarantine{Category: "FLAKE-TIMING", Owner: "a", Bead: "b", Evidence: "e", Repro: "r", Reason: "x", RemoveWhen: "w"}
	q.Quarantined.Time = mustDate(t, "2026-11-20")
	q.Expires.Time = mustDate(t, "2026-11-30")
	cases, _ := verify.Plan(cfg, list, verify.Selection{Run: regexp.MustCompile(`^greet/hello$`)})
	if len(cases) != 1 {
		t.Fatalf("%d cases, want greet/hello alone", len(cases))
	}
	for _, tc := range []struct {
		name        string
		quarantined bool
		day         string
		failures    int // calls that fail before the fake behaves
		calls       int
		status      verdict.Status
		waits       []time.Duration
	}{
		{"flaky, passes on retry", true, "2026-11-25", 1, 2, verdict.StatusPass, []time.Duration{5 * time.Second}},
		{"fails twice", true, "2026-11-25", 9, 2, verdict.StatusFail, []time.Duration{5 * time.Second}},
		{"passes at once", true, "2026-11-25", 0, 1, verdict.StatusPass, nil},
		{"not quarantined", false, "2026-11-25", 9, 1, verdict.StatusFail, nil},
		{"quarantine expired", true, "2026-12-01", 9, 1, verdict.StatusFail, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg.Quarantine = nil
			if tc.quarantined {
				cfg.Quarantine = map[string]cfgschema.Quarantine{"greet/hello": q}
			}
			calls := 0
			good := greetCLI(nil)
			fake := func(ctx context.Context, inv verify.Invocation) (cassettes.Output, error) {
				calls++
				out, err := good(ctx, inv)
				if calls <= tc.failures {
					out.Stdout += "extra\n"
				}
				return out, err
			}
			var waits []time.Duration
			now := mustDate(t, tc.day)
			o := verify.Run(context.Background(), cases, verify.Options{Config: cfg, Normalizers: reg, Now: func() time.Time { return now },
				CLI: map[string]verify.CLITarget{"greet": fake},
				QuarantineRetry: verify.QuarantineRetry{Sleep: func(_ context.Context, d time.Duration) error {
					waits = append(waits, d)
					return nil
				}}})
			res := o.Results[0]
			if calls != tc.calls || res.Status != tc.status || !slices.Equal(waits, tc.waits) {
				t.Errorf("%d calls, status %s, waits %v; want %d, %s, %v", calls, res.Status, waits, tc.calls, tc.status, tc.waits)
			}
			if len(res.Retries) != tc.calls-1 {
				t.Errorf("%d retries recorded, want %d", len(res.Retries), tc.calls-1)
			}
			for _, r := range res.Retries {
				if r.Status != verdict.StatusFail || r.DelayMS != 5000 {
					t.Errorf("retry %+v, want the failed attempt and the 5000 ms delay", r)
				}
			}
			if c := o.Report(cfg, verify.Meta{}).Cases[0]; len(c.Retries) != len(res.Retries) {
				t.Errorf("the run model holds %d retries, the result %d", len(c.Retries), len(res.Retries))
			}
		})
	}
}

// onlyBreak applies broken only to invocations greeting name alone.
func onlyBreak(name string, broken verify.CLITarget) verify.CLITarget {
	good := greetCLI(nil)
	return func(ctx context.Context, inv verify.Invocation) (cassettes.Output, error) {
		if len(inv.Args) == 2 && inv.Args[0] == name {
			return broken(ctx, inv)
		}
		return good(ctx, inv)
	}
}

func mustDate(t *testing.T, s string) time.Time {
	t.Helper()
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestCLITimeoutKillsTheGroup: a CLI fake that hangs (and starts a child
// that hangs) is stopped at the case timeout, with nothing left running.
func TestCLITimeoutKillsTheGroup(t *testing.T) {
	cfg, list, reg := demo(t)
	marker := filepath.Join(t.TempDir(), "pid")
	a := *cfg.Adapters["greet"]
	a.Fake.Build = nil
	a.Fake.Command = []string{"sh", "-c", `sleep 300 & echo $! > ` + marker + `; wait`, "greet"}
	cfg.Adapters["greet"] = &a
	cases, _ := verify.Plan(cfg, list, verify.Selection{Run: regexp.MustCompile(`^greet/hello$`)})
	o := verify.Run(context.Background(), cases, verify.Options{Config: cfg, Normalizers: reg, CaseTimeout: 2 * time.Second})
	r := o.Results[0]
	if r.Status != verdict.StatusError || r.Reason != outcome.ETimeout {
		t.Fatalf("got %s %s (%s), want an E_TIMEOUT error", r.Status, r.Reason, r.Message)
	}
	data, err := os.ReadFile(marker)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	// SIGKILL is delivered asynchronously, and a killed process lingers as a
	// zombie until it is reaped: wait (bounded) for it to be dead or a zombie.
	alive := func() string {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return ""
		}
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) == 0 || fields[0] == "Z" || fields[0] == "X" {
			return ""
		}
		return fields[0]
	}
	deadline := time.Now().Add(5 * time.Second)
	for state := alive(); state != ""; state = alive() {
		if time.Now().After(deadline) {
			killProcess(pid)
			t.Fatalf("the fake's child %d outlived the case (state %s)", pid, state)
		}
		runtime.Gosched()
	}
}

// TestTimedOutFakeLeaksNothing: a CLI fake that prints a declared credential
// and hangs is stopped at the timeout, and its output reaches the report
// redacted, so the reports are still written.
func TestTimedOutFakeLeaksNothing(t *testing.T) {
	cfg, list, reg := demo(t)
	const secret = "tok-5f3a9c2e7d"
	a := *cfg.Adapters["greet"]
	a.Fake.Build = nil
	a.Fake.Command = []string{"sh", "-c", `echo "token ` + secret + `"; exec sleep 300`, "greet"}
	cfg.Adapters["greet"] = &a
	cases, _ := verify.Plan(cfg, list, verify.Selection{Run: regexp.MustCompile(`^greet/hello$`)})
	o := verify.Run(context.Background(), cases, verify.Options{Config: cfg, Normalizers: reg, CaseTimeout: 300 * time.Millisecond,
		Credentials: map[string]string{"GREET_TOKEN": secret}})
	if r := o.Results[0]; r.Reason != outcome.ETimeout {
		t.Fatalf("got %s %s, want E_TIMEOUT", r.Status, r.Reason)
	}
	dir := t.TempDir()
	if err := report.Write(dir, (*report.Run)(o.Report(cfg, verify.Meta{})), report.Options{Declared: map[string]string{"GREET_TOKEN": secret}}); err != nil {
		t.Fatalf("the reports were refused: %v", err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, report.FileReport))
	if len(data) == 0 || bytes.Contains(data, []byte(secret)) {
		t.Fatalf("report.jsonl is empty or holds the credential")
	}
}

// TestCLIFakeIgnoresRecordedHTTP verifies a CLI cassette that also holds
// the HTTP the real command made underneath (as docker's do): the fake
// prints its own id where the real command printed the engine's, and the
// id numbering of the output must not start after the recorded HTTP's.
func TestCLIFakeIgnoresRecordedHTTP(t *testing.T) {
	realID := strings.Repeat("d9ecda70", 8)
	cfg := &cfgschema.Config{Dir: t.TempDir(), Order: []string{"docker"}, Adapters: map[string]*cfgschema.Adapter{
		"docker": {Kind: cfgschema.KindCLI, Normalizers: []string{"sha:full"}, Fake: cfgschema.Fake{Command: []string{"fake-docker"}}}}}
	c := &cassettes.Cassette{Cassette: 1, Version: 2, Adapter: "docker", Scenario: "import", Kind: cfgschema.KindCLI,
		Path:   "cassettes/docker/import.yaml",
		Input:  &cassettes.Input{Command: "docker", Args: []string{"import", "rootfs.tar.gz"}},
		Output: &cassettes.Output{Stdout: cassettes.Body("sha256:" + realID + "\n")},
		Interactions: []cassettes.Interaction{{
			Request:  cassettes.Request{Method: "POST", URL: "http://localhost/v1.41/images/create?fromSrc=-"},
			Response: cassettes.Response{Code: 200, Body: cassettes.Body(`{"status":"sha256:` + realID + `"}`)}}}}
	for _, tc := range []struct {
		name, printed string
		pass          bool
	}{{"the fake's own id", strings.Repeat("0123abcd", 8), true}, {"no id", "nothing", false}} {
		t.Run(tc.name, func(t *testing.T) {
			fake := func(context.Context, verify.Invocation) (cassettes.Output, error) {
				return cassettes.Output{Stdout: cassettes.Body("sha256:" + tc.printed + "\n")}, nil
			}
			cases, err := verify.Plan(cfg, []*cassettes.Cassette{c}, verify.Selection{})
			if err != nil {
				t.Fatal(err)
			}
			o := verify.Run(context.Background(), cases, verify.Options{Config: cfg, Normalizers: normalize.Builtins(),
				CLI: map[string]verify.CLITarget{"docker": fake}})
			if o.Err != nil {
				t.Fatal(o.Err)
			}
			r := o.Results[0]
			if (r.Status == verdict.StatusPass) != tc.pass {
				t.Fatalf("status %s, want pass=%v: %s\n%s", r.Status, tc.pass, r.Message, r.Explain)
			}
		})
	}
}

// TestReportHoldsWhatWasCompared: the run model a report renders holds both
// sides as the comparison saw them. The cassette's argument holds an id, so
// the ids of the output are numbered from 2 on both sides; the fake's
// output in the report must be that compared form (numbered once, with the
// input), not one normalized a second time on its own, and the recorded
// side must be the cassette's, normalized the same way.
func TestReportHoldsWhatWasCompared(t *testing.T) {
	id := func(c string) string { return strings.Repeat(c, 64) }
	cfg := &cfgschema.Config{Dir: t.TempDir(), Order: []string{"git"}, Adapters: map[string]*cfgschema.Adapter{
		"git": {Kind: cfgschema.KindCLI, Normalizers: []string{"sha:full"}, Fake: cfgschema.Fake{Command: []string{"fake-git"}}}}}
	c := &cassettes.Cassette{Cassette: 1, Version: 2, Adapter: "git", Scenario: "show", Kind: cfgschema.KindCLI,
		Path:   "cassettes/git/show.yaml",
		Input:  &cassettes.Input{Command: "git", Args: []string{"show", id("a")}},
		Output: &cassettes.Output{Stdout: cassettes.Body(id("b") + "\nAdd the greet program\n")}}
	fake := func(context.Context, verify.Invocation) (cassettes.Output, error) {
		return cassettes.Output{Stdout: cassettes.Body(id("c") + "\nAdd greet\n")}, nil
	}
	cases, err := verify.Plan(cfg, []*cassettes.Cassette{c}, verify.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	reg := normalize.Builtins()
	o := verify.Run(context.Background(), cases, verify.Options{Config: cfg, Normalizers: reg, CLI: map[string]verify.CLITarget{"git": fake}})
	run := o.Report(cfg, verify.Meta{})
	if len(run.Cases) != 1 || run.Cases[0].Status != verdict.StatusFail {
		t.Fatalf("want one drifting case, got %+v", run.Cases)
	}
	rc := run.Cases[0]
	p, err := reg.Pipeline([]string{"sha:full"}, normalize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := string(diff.Normalize(c, p).Output.Stdout) // "<sha:2>\nAdd the greet program\n"
	wantID, _, _ := strings.Cut(want, "\n")
	if len(rc.Actions) != 1 {
		t.Fatalf("actions: %+v", rc.Actions)
	}
	if gotID, _, _ := strings.Cut(string(rc.Actions[0].Stdout), "\n"); gotID != wantID {
		t.Errorf("the fake's id is shown as %q, but the comparison saw %q on both sides", gotID, wantID)
	}
	if len(rc.Recorded) != 1 || string(rc.Recorded[0].Stdout) != want || rc.Recorded[0].ID != "output" {
		t.Errorf("recorded side %+v, want the cassette's output normalized as compared, %q", rc.Recorded, want)
	}
}

// TestDecideFillsTheRunModel: a producer other than Run (outputs another
// language's test runner captured) decides its cases with Decide, and its
// outcome is reported as Run's: report.html shows both sides of the drift.
func TestDecideFillsTheRunModel(t *testing.T) {
	cfg := &cfgschema.Config{Dir: t.TempDir(), Order: []string{"greet"}, Adapters: map[string]*cfgschema.Adapter{
		"greet": {Kind: cfgschema.KindCLI, Fake: cfgschema.Fake{Command: []string{"greet"}}}}}
	cas := func(name, out string) *cassettes.Cassette {
		return &cassettes.Cassette{Cassette: 1, Version: 2, Adapter: "greet", Scenario: name, Kind: cfgschema.KindCLI,
			Path: filepath.Join(cfg.Dir, "cassettes", "greet", name+".yaml"), Input: &cassettes.Input{Command: "greet", Args: []string{name}},
			Output: &cassettes.Output{Stdout: cassettes.Body(out)}}
	}
	captured := func(c *cassettes.Cassette, out string) *cassettes.Cassette {
		got := *c
		got.Output = &cassettes.Output{Stdout: cassettes.Body(out)}
		return &got
	}
	ada, bob := cas("ada", "Hello, Ada!\n"), cas("bob", "Hello, Bob!\n")
	cases, err := verify.Plan(cfg, []*cassettes.Cassette{ada, bob}, verify.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	opts := verify.Options{Config: cfg, Normalizers: normalize.Builtins()}
	o := &verify.Outcome{Results: []verify.Result{
		verify.Decide(cases[0], captured(ada, "Hello, Ada!\n"), nil, opts),
		verify.Decide(cases[1], captured(bob, "Hallo, Bob!\n"), []verdict.Action{{Kind: "proc", ID: "output", Argv: []string{"greet", "bob"}, Stdout: []byte("Hallo, Bob!\n")}}, opts),
	}}
	if s := []verdict.Status{o.Results[0].Status, o.Results[1].Status}; s[0] != verdict.StatusPass || s[1] != verdict.StatusFail {
		t.Fatalf("statuses %v, want pass and fail", s)
	}
	run := o.Report(cfg, verify.Meta{Command: "check"})
	files, err := report.Render((*report.Run)(run), report.Options{Golden: true})
	if err != nil {
		t.Fatal(err)
	}
	page := string(files[report.FileHTML])
	for _, want := range []string{`aria-label="recorded (want)"><h5>recorded (want)</h5><pre class="text"><del><span class="sr">removed: </span>Hello</del>, Bob!`, `<h1>cassette check`} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if run.Exit() != outcome.ExitFail || !bytes.Contains(files[report.FileReport], []byte(`"command":"check"`)) {
		t.Errorf("exit %d; report.jsonl:\n%s", run.Exit(), files[report.FileReport])
	}
}

// TestAnswersAreTheFakesOwn: Answers hands back what each fake answered,
// as it answered it (not normalized: the demo's timestamps.ISO8601 and
// json.canonical have not touched it), with the recorded requests, in the
// order of the cassettes given, for cases that pass and cases that drift.
func TestAnswersAreTheFakesOwn(t *testing.T) {
	cfg, list, reg := demo(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"path": %q, "at": "2026-12-01T22:07:12Z"}`, r.URL.Path)
	}))
	defer srv.Close()
	got, err := verify.Answers(context.Background(), list, verify.Options{Config: cfg, Normalizers: reg,
		HTTP: map[string]verify.HTTPTarget{"petstore": {BaseURL: srv.URL, Client: srv.Client()}},
		CLI:  map[string]verify.CLITarget{"greet": greetCLI(nil)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(list) {
		t.Fatalf("%d answers for %d cassettes", len(got), len(list))
	}
	for i, c := range list {
		a := got[i]
		switch {
		case a == nil:
			t.Errorf("%s: no answer", c.ID())
		case a.Scenario != c.Scenario:
			t.Errorf("answer %d is %s's, want %s's", i, a.ID(), c.ID())
		case c.Kind == cfgschema.KindHTTP:
			body := string(a.Interactions[0].Response.Body)
			if !strings.Contains(body, `"at": "2026-12-01T22:07:12Z"`) || a.Interactions[0].Request.URL != c.Interactions[0].Request.URL {
				t.Errorf("%s: the answer is not the fake's own: %s, request %s", c.ID(), body, a.Interactions[0].Request.URL)
			}
		case !strings.Contains(string(a.Output.Stdout), "Hello") && a.Output.ExitCode == 0:
			t.Errorf("%s: the fake's output: %q", c.ID(), a.Output.Stdout)
		}
	}
}
