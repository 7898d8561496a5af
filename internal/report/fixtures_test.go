package report

import (
	"fmt"
	"time"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verdict"
)

var t0 = time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC)

func u64(v uint64) *uint64 { return &v }

func baseRun() *Run {
	return &Run{
		Tool:        Tool{Name: "cassette", Version: "0.3.0", SHA: "1a2b3c4"},
		Command:     "verify",
		Suite:       "shop",
		ConfigPath:  "cassette.yaml",
		ConfigBytes: []byte("adapters:\n  github: {kind: http}\n  gh: {kind: cli}\n"),
		Inventory: []InventoryItem{
			NewInventoryItem("cassettes/github/list-pulls.yaml", []byte("a")),
			NewInventoryItem("cassettes/github/get-pull.yaml", []byte("b")),
			NewInventoryItem("cassettes/gh/pr-list.yaml", []byte("c")),
		},
		Started:  t0,
		Finished: t0.Add(1500 * time.Millisecond),
		Seeds:    Seeds{Order: u64(18446744073709551615)},
	}
}

func passCase(adapter, scenario string) verdict.Case {
	return verdict.Case{Adapter: adapter, Scenario: scenario, CassettePath: "cassettes/" + adapter + "/" + scenario + ".yaml",
		Status: verdict.StatusPass, Duration: 120 * time.Millisecond,
		Actions: []verdict.Action{{Kind: "http", ID: "interactions[0]", Method: "GET", URL: "http://127.0.0.1:4000/repos/o/r/pulls", StatusCode: 200, Body: []byte(`[{"number":1}]`), Duration: 3 * time.Millisecond}}}
}

// passingRun: every cassette matches.
func passingRun() *Run {
	r := baseRun()
	r.Cases = []verdict.Case{passCase("github", "list-pulls"), passCase("github", "get-pull"),
		{Adapter: "gh", Scenario: "pr-list", CassettePath: "cassettes/gh/pr-list.yaml", Status: verdict.StatusPass, Duration: 40 * time.Millisecond,
			Actions: []verdict.Action{{Kind: "proc", Argv: []string{"gh", "pr", "list"}, Stdout: make([]byte, 600), Exit: 0}}}}
	return r
}

// failingRun: a drift, an error, a quarantined failure, a pass.
func failingRun() *Run {
	r := baseRun()
	drift := passCase("github", "list-pulls")
	drift.Status = verdict.StatusFail
	drift.Drifts = []verdict.Drift{
		{Class: "body", Field: "interactions[0].response.body", JSONPath: "$[0].title", Line: 23, Message: `value "Fix bug" differs from recorded "Fix a bug"`,
			Diff: "--- cassette\n+++ fake\n@@ -1 +1 @@\n-\"title\": \"Fix a bug\"\n+\"title\": \"Fix bug\"\n"},
		{Class: "header", Field: "interactions[0].response.headers.Content-Type", Line: 17, Message: "header differs <&>"},
	}
	drift.Artifacts = []verdict.Artifact{{Name: "fake-github.log", Kind: "log", Path: "logs/fake-github.log"}}
	errc := verdict.Case{Adapter: "gh", Scenario: "pr-list", CassettePath: "cassettes/gh/pr-list.yaml", Status: verdict.StatusError,
		Reason: outcome.EFakeError, Message: "fake-gh exited with status 2: unknown flag --json",
		Actions: []verdict.Action{{Kind: "proc", Argv: []string{"./bin/fake-gh", "pr", "list", "--json"}, Stderr: []byte("unknown flag --json"), Exit: 2}}}
	quar := passCase("github", "get-pull")
	quar.Status = verdict.StatusFail
	quar.Drifts = []verdict.Drift{{Class: "status", Field: "interactions[0].response.code", Line: 30, Message: "503 differs from recorded 200"}}
	quar.Quarantine = &verdict.QuarantineInfo{Category: "FLAKE-NET", Owner: "alice", Quarantined: t0.Add(-48 * time.Hour), Expires: t0.Add(7 * 24 * time.Hour),
		Issue: "#42", Evidence: "https://ci.example/run/1", Repro: "cassette verify --case github/get-pull", Reason: "port race", RemoveWhen: "3 green runs"}
	quar.Retries = []verdict.Retry{{Status: verdict.StatusFail, Reason: outcome.EContractDrift, Message: "503 differs from recorded 200", DelayMS: 5000}}
	r.Cases = []verdict.Case{drift, errc, quar, passCase("gh", "auth-status")}
	r.Inventory = append(r.Inventory, NewInventoryItem("cassettes/gh/auth-status.yaml", []byte("d")))
	return r
}

// truncatedRun: more SARIF results than the limit used in tests.
func truncatedRun() *Run {
	r := baseRun()
	for i := range 12 {
		c := passCase("github", fmt.Sprintf("s%02d", i))
		c.Status = verdict.StatusFail
		c.Drifts = []verdict.Drift{{Class: "body", Line: i + 1, Message: "differs"}}
		if i%3 == 0 {
			c.Quarantine = &verdict.QuarantineInfo{Category: "FLAKE-TIMING", Owner: "bob", Quarantined: t0, Expires: t0.Add(24 * time.Hour)}
			c.Retries = []verdict.Retry{{Status: verdict.StatusFail, Message: "differs", DelayMS: 5000}}
		}
		r.Cases = append(r.Cases, c)
	}
	return r
}

// errorRun: a run-level error before any case ran.
func errorRun() *Run {
	r := baseRun()
	r.Seeds = Seeds{}
	r.Err = &outcome.Error{Reason: outcome.ECfgParse, Message: "cassette.yaml: unknown field \"adapterz\"",
		Problems: []outcome.Problem{{File: "cassette.yaml", Line: 3, Column: 1, Field: "adapterz", Message: "unknown field", Suggestion: "did you mean `adapters`?"}},
		NextStep: "Run: cassette validate --config cassette.yaml"}
	return r
}

var sampleRuns = []struct {
	name  string
	run   func() *Run
	limit int
}{
	{"passing", passingRun, 0},
	{"failing", failingRun, 0},
	{"truncated", truncatedRun, 5},
	{"error", errorRun, 0},
	{"coverage", coverageRun, 0},
}

// coverageRun: a run of cassette coverage. github is below its minimum
// (one shape uncovered, one cassette stale), gh tolerates its uncovered
// shape (coverage.min 50), git has calls and no cassette, docker was not
// called.
func coverageRun() *Run {
	r := baseRun()
	r.Command, r.ReplayCommand, r.Inventory, r.Seeds = "coverage", "cassette coverage", nil, Seeds{}
	covered := func(adapter, shape, cassette string, calls int, tests ...string) (CoverageShape, verdict.Case) {
		return CoverageShape{Shape: shape, Covered: true, Calls: calls, Tests: tests, Observed: ".cassette/observed/proxy-" + adapter + ".jsonl:1", Cassettes: []string{cassette}},
			verdict.Case{Adapter: adapter, Scenario: shape, CassettePath: cassette, Status: verdict.StatusPass, Message: "backed by " + cassette, ReplayCommand: "cassette coverage"}
	}
	uncovered := func(adapter, shape, scenario, record string, failing bool, tests ...string) (CoverageShape, verdict.Case) {
		c := verdict.Case{Adapter: adapter, Scenario: shape, CassettePath: "cassette.yaml", Status: verdict.StatusPass, Message: "no cassette has this call shape, within coverage.min", ReplayCommand: "cassette coverage"}
		if failing {
			c.Status, c.Reason, c.NextStep, c.Message = verdict.StatusFail, outcome.EUncoveredCall, record, "no cassette of adapter "+adapter+" has this call shape"
		}
		return CoverageShape{Shape: shape, Calls: 2, Tests: tests, Observed: ".cassette/observed/shim-" + adapter + ".jsonl:3", Scenario: scenario, Record: record}, c
	}
	gh1, c1 := covered("github", "GET /repos/{}/{}/pulls", "cassettes/github/list-pulls.yaml", 4, "TestList")
	gh2, c2 := uncovered("github", "POST /repos/{}/{}/pulls {base,head,title}", "post-repos-pulls",
		`cassette record --adapter github --scenario post-repos-pulls -- sh -c 'curl -sS -X POST -H "Authorization: Bearer ${GITHUB_TOKEN}" https://api.github.com/repos/o/r/pulls'`, true, "TestOpen", "TestOpenDraft")
	gh3, c3 := uncovered("gh", "gh pr --json", "pr-json", "cassette record --adapter gh --scenario pr-json -- gh pr list --json number", false)
	gh4, c4 := covered("gh", "gh auth", "cassettes/gh/auth-status.yaml", 1, "TestAuth")
	git1, c5 := uncovered("git", "git log --oneline -n", "log-oneline-n", "cassette record --adapter git --scenario log-oneline-n -- git log --oneline -n 3", true, "TestLog")
	r.Cases = []verdict.Case{c1, c2, c3, c4, c5}
	r.Coverage = &Coverage{Adapters: []CoverageAdapter{
		{Name: "github", Kind: "http", Status: CoverageFail, Percent: 50, Min: 100, Line: 2, Calls: 6, Cassettes: 2, Shapes: []CoverageShape{gh1, gh2},
			Stale: []CoverageStale{{Cassette: "cassettes/github/get-pull.yaml", Shapes: []string{"GET /repos/{}/{}/pulls/{}"}}}},
		{Name: "gh", Kind: "cli", Status: CoveragePass, Percent: 50, Min: 50, Line: 3, Calls: 3, Cassettes: 1, Shapes: []CoverageShape{gh4, gh3}, Stale: []CoverageStale{}},
		{Name: "git", Kind: "cli", Status: CoverageUnrecorded, Percent: 0, Min: 100, Line: 4, Calls: 2, Shapes: []CoverageShape{git1}, Stale: []CoverageStale{}},
		{Name: "docker", Kind: "cli", Status: CoverageUnobserved, Percent: 100, Min: 100, Line: 5, Cassettes: 3, Shapes: []CoverageShape{}, Stale: []CoverageStale{}},
	}}
	return r
}
