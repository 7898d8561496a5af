package coverage

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/report"
)

const testConfig = `version: 1
adapters:
  github:
    kind: http
    real: {base_url: "https://api.github.com", credentials: [GITHUB_TOKEN], headers: {Authorization: "Bearer ${GITHUB_TOKEN}"}}
    fake: {command: [./fake-github]}
    coverage:
      paths: ["/repos/{owner}/{repo}", "/repos/{owner}/{repo}/labels/{name}"]
      ignore: ["GET /healthz"]
  git:
    kind: cli
    real: {command: [git]}
    fake: {command: [./fake-git]}
    coverage: {min: 50}
  gh:
    kind: cli
    real: {command: [gh]}
    fake: {command: [./fake-gh]}
`

func testProject(t *testing.T) *cfgschema.Config {
	t.Helper()
	dir := t.TempDir()
	cfg, err := cassettes.ParseConfig(filepath.Join(dir, "cassette.yaml"), []byte(testConfig), cassettes.ConfigOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func httpCassette(cfg *cfgschema.Config, scenario string, reqs ...cassettes.Request) *cassettes.Cassette {
	c := &cassettes.Cassette{Adapter: "github", Scenario: scenario, Kind: cfgschema.KindHTTP, Path: filepath.Join(cfg.Dir, "cassettes", "github", scenario+".yaml")}
	for _, r := range reqs {
		c.Interactions = append(c.Interactions, cassettes.Interaction{Request: r})
	}
	return c
}

func cliCassette(cfg *cfgschema.Config, adapter, scenario string, args ...string) *cassettes.Cassette {
	return &cassettes.Cassette{Adapter: adapter, Scenario: scenario, Kind: cfgschema.KindCLI, Path: filepath.Join(cfg.Dir, "cassettes", adapter, scenario+".yaml"),
		Input: &cassettes.Input{Command: adapter, Args: args}}
}

func obsHTTP(test, method, url, body string) Located {
	o := Observation{V: 1, Adapter: "github", Kind: cfgschema.KindHTTP, Test: test, Call: Call{Method: method, URL: url, Body: body}}
	if body != "" {
		o.Call.ContentType = "application/json"
	}
	return Located{Observation: o, File: "/x/.cassette/observed/proxy.jsonl", Line: 1}
}

func obsCLI(test string, argv ...string) Located {
	return Located{Observation: Observation{V: 1, Adapter: argv[0], Kind: cfgschema.KindCLI, Test: test, Call: Call{Argv: argv}}, File: "shim.jsonl", Line: 2}
}

func analyze(t *testing.T, cfg *cfgschema.Config, list []*cassettes.Cassette, obs []Located, min *float64) *Report {
	t.Helper()
	rep, probs := Analyze(cfg, list, obs, Options{Min: min, Record: func(name string, a *cfgschema.Adapter, c Call, scenario string) string {
		return RecordCommand(name, a, c, scenario, "")
	}})
	if len(probs) > 0 {
		t.Fatalf("problems: %v", probs)
	}
	return rep
}

func adapterOf(t *testing.T, r *Report, name string) *AdapterReport {
	t.Helper()
	for _, a := range r.Adapters {
		if a.Name == name {
			return a
		}
	}
	t.Fatalf("no adapter %s in the report", name)
	return nil
}

func TestAnalyze(t *testing.T) {
	cfg := testProject(t)
	list := []*cassettes.Cassette{
		httpCassette(cfg, "labels-list", cassettes.Request{Method: "GET", URL: "https://api.github.com/repos/o/r/labels"}),
		httpCassette(cfg, "label-lifecycle",
			cassettes.Request{Method: "POST", URL: "https://api.github.com/repos/o/r/labels", Body: `{"name":"a","color":"fff"}`, Headers: map[string][]string{"Content-Type": {"application/json"}}},
			cassettes.Request{Method: "DELETE", URL: "https://api.github.com/repos/o/r/labels/a"}),
		httpCassette(cfg, "org", cassettes.Request{Method: "GET", URL: "https://api.github.com/orgs/x"}),
		cliCassette(cfg, "git", "log-oneline", "log", "--oneline", "-n", "3"),
	}
	obs := []Located{
		obsHTTP("TestList", "GET", "/repos/octokit-fixture-org/labels/labels", ""),
		obsHTTP("TestSync", "GET", "/repos/octokit-fixture-org/labels/labels", ""),
		obsHTTP("TestSync", "POST", "/repos/octokit-fixture-org/labels/labels", `{"color":"663399","name":"test-label"}`),
		obsHTTP("TestSync", "PATCH", "/repos/octokit-fixture-org/labels/labels/bug", `{"new_name":"bug","color":"d73a4a"}`),
		obsHTTP("", "GET", "/healthz", ""),
		obsCLI("TestLast", "git", "log", "--oneline", "-n", "5"),
		obsCLI("TestBranch", "git", "branch", "--show-current"),
	}
	rep := analyze(t, cfg, list, obs, nil)

	gh := adapterOf(t, rep, "github")
	if got := gh.Status(); got != StatusFail {
		t.Errorf("github: %s, want fail (1 of 3 shapes uncovered, min 100)", got)
	}
	if gh.Covered() != 2 || len(gh.Shapes) != 3 || gh.Calls != 4 || gh.Ignored != 1 {
		t.Errorf("github: covered %d of %d shapes, %d calls, %d ignored; want 2 of 3, 4 calls, 1 ignored", gh.Covered(), len(gh.Shapes), gh.Calls, gh.Ignored)
	}
	un := gh.Uncovered()
	if len(un) != 1 || un[0].Shape != "PATCH /repos/{}/{}/labels/{} {color,new_name}" || strings.Join(un[0].Tests, ",") != "TestSync" {
		t.Fatalf("github uncovered: %+v", un)
	}
	if un[0].Scenario != "patch-repos-labels-item" {
		t.Errorf("scenario %q", un[0].Scenario)
	}
	wantRec := `cassette record --adapter github --scenario patch-repos-labels-item -- sh -c 'curl -sS -X PATCH -H '\''Content-Type: application/json'\'' --data-binary '\''{"new_name":"bug","color":"d73a4a"}'\'' -H "Authorization: Bearer ${GITHUB_TOKEN}" https://api.github.com/repos/octokit-fixture-org/labels/labels/bug'`
	if un[0].Record != wantRec {
		t.Errorf("record command\n got %s\nwant %s", un[0].Record, wantRec)
	}
	if len(gh.Stale) != 1 || gh.Stale[0].Cassette != "cassettes/github/org.yaml" {
		t.Errorf("github stale: %+v, want cassettes/github/org.yaml only (label-lifecycle is partly exercised)", gh.Stale)
	}
	for _, s := range gh.Shapes {
		if s.Shape == "GET /repos/{}/{}/labels" && (s.Calls != 2 || strings.Join(s.Tests, ",") != "TestList,TestSync" || strings.Join(s.Cassettes, ",") != "cassettes/github/labels-list.yaml") {
			t.Errorf("list shape: %+v", s)
		}
	}

	git := adapterOf(t, rep, "git")
	if git.Status() != StatusPass || git.Percent() != 50 || git.Min != 50 {
		t.Errorf("git: %s at %.1f%% (min %.1f), want pass at 50%% with coverage.min 50", git.Status(), git.Percent(), git.Min)
	}
	if un := git.Uncovered(); len(un) != 1 || un[0].Record != "cassette record --adapter git --scenario branch-show-current -- git branch --show-current" {
		t.Errorf("git uncovered: %+v", un)
	}
	if gh := adapterOf(t, rep, "gh"); gh.Status() != StatusUnobserved {
		t.Errorf("gh: %s, want unobserved", gh.Status())
	}
	if !adapterOf(t, rep, "github").Fails() {
		t.Error("github below its minimum does not fail the run")
	}
	if c, o := rep.Totals(); c != 3 || o != 5 {
		t.Errorf("totals %d of %d, want 3 of 5", c, o)
	}
}

func TestAnalyzeMin(t *testing.T) {
	cfg := testProject(t)
	// Nine of ten shapes covered: 90%.
	var list []*cassettes.Cassette
	var obs []Located
	for i, sub := range []string{"status", "log", "show", "diff", "branch", "tag", "fetch", "push", "pull", "merge"} {
		if i < 9 {
			list = append(list, cliCassette(cfg, "git", sub, sub))
		}
		obs = append(obs, obsCLI("TestAll", "git", sub))
	}
	for _, tc := range []struct {
		name string
		min  *float64
		want Status
	}{
		{"coverage.min 50 from cassette.yaml", nil, StatusPass},
		{"--min 100", ptr(100.0), StatusFail},
		{"--min 80", ptr(80.0), StatusPass},
		{"--min 90", ptr(90.0), StatusPass},
		{"--min 90.1", ptr(90.1), StatusFail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			git := adapterOf(t, analyze(t, cfg, list, obs, tc.min), "git")
			if git.Status() != tc.want || git.Percent() != 90 {
				t.Errorf("%s at %.1f%%, want %s at 90%%", git.Status(), git.Percent(), tc.want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestAnalyzeUnrecorded(t *testing.T) {
	cfg := testProject(t)
	rep := analyze(t, cfg, nil, []Located{obsCLI("TestPR", "gh", "pr", "merge", "12", "--squash")}, ptr(0.0))
	gh := adapterOf(t, rep, "gh")
	if gh.Status() != StatusUnrecorded || !gh.Fails() {
		t.Fatalf("gh: %s (fails %v), want unrecorded and failing even at --min 0", gh.Status(), gh.Fails())
	}
	var out bytes.Buffer
	rep.WriteConsole(&out, false, false)
	for _, want := range []string{"FAIL  gh", "no cassettes:", "the seed ADR's rule", "recording a baseline cassette",
		"uncovered  gh pr --squash  (1 call by TestPR)", "record: cassette record --adapter gh --scenario pr-squash -- gh pr merge 12 --squash"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("console lacks %q:\n%s", want, out.String())
		}
	}
}

func TestAnalyzeProblems(t *testing.T) {
	cfg := testProject(t)
	cfg.Adapters["git"].Coverage.Paths = []string{"no-slash"}
	obs := []Located{
		{Observation: Observation{V: 1, Adapter: "gihtub", Kind: cfgschema.KindHTTP, Call: Call{Method: "GET", URL: "/"}}, File: "a.jsonl", Line: 3},
		{Observation: Observation{V: 1, Adapter: "git", Kind: cfgschema.KindHTTP, Call: Call{Method: "GET", URL: "/"}}, File: "a.jsonl", Line: 4},
	}
	_, probs := Analyze(cfg, nil, obs, Options{})
	if len(probs) != 3 {
		t.Fatalf("problems %+v, want 3", probs)
	}
	if p := probs[0]; p.Field != "adapters.git.coverage.paths[0]" || p.File != cfg.Path {
		t.Errorf("config problem %+v", p)
	}
	if p := probs[1]; p.File != "a.jsonl" || p.Line != 3 || p.Suggestion == "" {
		t.Errorf("unknown adapter %+v (want a suggestion: github)", p)
	}
	if p := probs[2]; p.Line != 4 || p.Field != "kind" {
		t.Errorf("wrong kind %+v", p)
	}
}

// TestRun: the report's run model of a coverage run has a case per
// observed shape, failing only where the adapter fails, with paths of the
// repository, and the analysis as Run.Coverage.
func TestRun(t *testing.T) {
	cfg := testProject(t)
	list := []*cassettes.Cassette{cliCassette(cfg, "git", "status", "status", "--porcelain"),
		httpCassette(cfg, "labels-list", cassettes.Request{Method: "GET", URL: "https://api.github.com/repos/o/r/labels"})}
	obs := []Located{obsCLI("TestStatus", "git", "status", "--porcelain"), obsCLI("", "git", "rev-parse", "HEAD"),
		obsHTTP("TestSync", "POST", "/repos/o/r/labels", `{"name":"a","color":"fff"}`)}
	rep := analyze(t, cfg, list, obs, nil)
	run := rep.Run(RunMeta{Tool: report.Tool{Name: "cassette"}, Suite: "ex", ConfigPath: "examples/x/cassette.yaml", Prefix: "examples/x"})
	if run.Command != "coverage" || run.Coverage == nil || len(run.Coverage.Adapters) != 3 {
		t.Fatalf("run %+v", run)
	}
	var got []string
	for _, c := range run.Cases {
		got = append(got, fmt.Sprintf("%s/%s %s %s %s next=%s", c.Adapter, c.Scenario, c.Status, c.Reason, c.CassettePath, c.NextStep))
	}
	want := []string{
		"github/POST /repos/{}/{}/labels {color,name} fail E_UNCOVERED_CALL examples/x/cassette.yaml next=" + rep.Adapters[0].Shapes[0].Record,
		"git/git rev-parse pass  examples/x/cassette.yaml next=", // uncovered, within git's coverage.min 50
		"git/git status --porcelain pass  examples/x/cassettes/git/status.yaml next=",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("cases:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if run.Exit() != outcome.ExitFail || run.Reason() != outcome.EUncoveredCall {
		t.Errorf("exit %d, reason %s", run.Exit(), run.Reason())
	}
	gh := run.Coverage.Adapters[0]
	if gh.Name != "github" || gh.Status != report.CoverageFail || gh.Line == 0 ||
		len(gh.Stale) != 1 || gh.Stale[0].Cassette != "examples/x/cassettes/github/labels-list.yaml" || gh.Shapes[0].Observed != "/x/.cassette/observed/proxy.jsonl:1" || !strings.HasPrefix(gh.Shapes[0].Record, "cassette record --adapter github") {
		t.Errorf("github: %+v", gh)
	}
	files, err := report.Render((*report.Run)(run), report.Options{Golden: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(files[report.FileCoverage]), `"schema": "cassette.coverage.v1"`) {
		t.Errorf("coverage.json:\n%s", files[report.FileCoverage])
	}
}

func TestScenarioName(t *testing.T) {
	for s, want := range map[Shape]string{
		"GET /repos/{}/{}/labels":                "get-repos-labels",
		"GET /repos/{}/{}/labels/{}":             "get-repos-labels-item",
		"POST /v1/chat/completions {messages[]}": "post-chat-completions",
		"GET /":                                  "get",
		"git rev-parse --abbrev-ref":             "rev-parse-abbrev-ref",
		"git":                                    "git",
		"gh api --input <stdin>":                 "api-input",
		"git log -{}":                            "log",
		"tool {} --x.y -a -b -c":                 "x.y-a-b",
	} {
		if got := ScenarioName(s); got != want || !cassettes.ValidNewName(got) {
			t.Errorf("ScenarioName(%q) = %q, want %q (a valid name)", s, got, want)
		}
	}
	taken := map[string]bool{"log": true}
	if a, b := uniqueName("log", taken), uniqueName("log", taken); a != "log-2" || b != "log-3" {
		t.Errorf("unique names %q %q", a, b)
	}
}

// TestConfigSection: the coverage: section of cassette.yaml is loaded
// strictly, like the rest of the file.
func TestConfigSection(t *testing.T) {
	cfg := testProject(t)
	if c := cfg.Adapters["github"].Coverage; len(c.Paths) != 2 || len(c.Ignore) != 1 || *cfg.Adapters["git"].Coverage.Min != 50 {
		t.Errorf("coverage settings not loaded: %+v", c)
	}
	bad := strings.Replace(testConfig, "coverage: {min: 50}", "coverage: {min: 150, depht: 2, value_flags: [C]}", 1)
	_, err := cassettes.ParseConfig(filepath.Join(t.TempDir(), "cassette.yaml"), []byte(bad), cassettes.ConfigOptions{})
	ce := outcome.AsError(err)
	if err == nil || ce.Reason != outcome.ECfgParse {
		t.Fatalf("error %v, want E_CFG_PARSE", err)
	}
	var fields []string
	for _, p := range ce.Problems {
		fields = append(fields, p.Field)
		if p.Line != 14 {
			t.Errorf("problem %+v: want line 14", p)
		}
	}
	for _, f := range []string{"adapters.git.coverage.depht", "adapters[git].coverage.min", "adapters[git].coverage.value_flags[0]"} {
		if !strings.Contains(strings.Join(fields, " "), f) {
			t.Errorf("no problem at %s; problems at %v", f, fields)
		}
	}
}

func TestUnrecorded(t *testing.T) {
	cfg := testProject(t)
	list := []*cassettes.Cassette{cliCassette(cfg, "git", "status", "status")}
	if got := strings.Join(Unrecorded(cfg, list, nil), ","); got != "github,gh" {
		t.Errorf("unrecorded %q, want github,gh", got)
	}
	if got := strings.Join(Unrecorded(cfg, list, []string{"git", "gh"}), ","); got != "gh" {
		t.Errorf("unrecorded of git and gh: %q, want gh", got)
	}
}
