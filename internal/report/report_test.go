package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/internal/verdict"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// sharedSchema is an official schema in ../shared/schemas beside the
// clone (README "Set up"); without that folder the schema tests cannot
// run, and say so rather than fail on a missing file deep in a validator.
func sharedSchema(name string) string {
	dir := filepath.Join("..", "..", "..", "shared", "schemas")
	if _, err := os.Stat(dir); err != nil {
		panic("the official SARIF and JUnit schemas are read from " + dir + " (the shared folder beside the clone, as CI has it; README \"Set up\"): " + err.Error())
	}
	return filepath.Join(dir, name)
}

func writeRun(t *testing.T, r *Run, opts Options) string {
	t.Helper()
	dir := t.TempDir()
	if opts.Now == nil {
		opts.Now = func() time.Time { return t0.Add(2 * time.Second) }
	}
	if err := Write(dir, r, opts); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return dir
}

func readJSONFile(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

func TestSARIFValidatesAgainstOfficialSchema(t *testing.T) {
	c := jsonschema.NewCompiler()
	sch, err := c.Compile(sharedSchema("sarif-schema-2.1.0.json"))
	if err != nil {
		t.Fatalf("compile SARIF schema: %v", err)
	}
	for _, tc := range sampleRuns {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeRun(t, tc.run(), Options{SARIFLimit: tc.limit})
			f, err := os.Open(filepath.Join(dir, FileSARIF))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			inst, err := jsonschema.UnmarshalJSON(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(inst); err != nil {
				t.Fatalf("sarif.json is not SARIF 2.1.0: %v", err)
			}
			var log sarifLog
			data, _ := os.ReadFile(filepath.Join(dir, FileSARIF))
			if err := json.Unmarshal(data, &log); err != nil {
				t.Fatal(err)
			}
			if log.Version != "2.1.0" || log.Schema != SARIFSchemaURI {
				t.Errorf("version %q schema %q", log.Version, log.Schema)
			}
			res := log.Runs[0].Results
			for i, r := range res {
				if len(r.Locations) < 1 || r.Locations[0].PhysicalLocation.ArtifactLocation.URI == "" {
					t.Errorf("result %d has no location", i)
				}
				if log.Runs[0].Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
					t.Errorf("result %d: ruleIndex %d does not point at %s", i, r.RuleIndex, r.RuleID)
				}
			}
			sum := readJSONFile(t, filepath.Join(dir, FileSummary))
			switch tc.name {
			case "passing":
				if len(res) != 0 {
					t.Errorf("passing run has %d results", len(res))
				}
			case "failing":
				// gh's error, github's two drifts, then the quarantined drift (warning)
				want := []string{"error", "error", "error", "warning"}
				if len(res) != len(want) {
					t.Fatalf("got %d results, want %d", len(res), len(want))
				}
				for i, w := range want {
					if res[i].Level != w {
						t.Errorf("result %d level %s, want %s", i, res[i].Level, w)
					}
				}
				if loc := res[1].Locations[0].PhysicalLocation; loc.ArtifactLocation.URI != "cassettes/github/list-pulls.yaml" || loc.Region.StartLine != 23 {
					t.Errorf("drift location = %+v, want the cassette at line 23", loc)
				}
			case "truncated":
				props, _ := log.Runs[0].Properties["cassette"].(map[string]any)
				if props["truncated"] != true || props["omitted_count"] != float64(7) {
					t.Errorf("truncation metadata = %v, want truncated, 7 omitted", props)
				}
				if got := sum["sarif"].(map[string]any)["omitted"]; got != float64(7) {
					t.Errorf("summary sarif.omitted = %v, want 7", got)
				}
				for i, r := range res {
					if r.Level != "error" {
						t.Errorf("kept result %d is %s: errors must be kept first", i, r.Level)
					}
				}
			case "error":
				if len(res) != 1 || res[0].RuleID != "E_CFG_PARSE" || res[0].Locations[0].PhysicalLocation.Region.StartLine != 3 {
					t.Errorf("error run results = %+v", res)
				}
			}
			if tc.name != "truncated" {
				if _, ok := sum["sarif"]; ok {
					t.Errorf("summary has sarif object without truncation")
				}
			}
		})
	}
}

func TestJUnitValidatesAgainstXSD(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("xmllint is required in CI: apt-get install -y libxml2-utils")
		}
		t.Skip("xmllint not found; install it with: apt-get update && apt-get install -y libxml2-utils")
	}
	for _, tc := range sampleRuns {
		for _, golden := range []bool{false, true} {
			name := tc.name
			if golden {
				name += "/golden"
			}
			t.Run(name, func(t *testing.T) {
				dir := writeRun(t, tc.run(), Options{SARIFLimit: tc.limit, Golden: golden})
				out, err := exec.Command(xmllint, "--noout", "--schema", sharedSchema("junit-10.xsd"), filepath.Join(dir, FileJUnit)).CombinedOutput()
				if err != nil {
					t.Fatalf("junit.xml does not validate: %v\n%s", err, out)
				}
			})
		}
	}
}

func TestJUnitContent(t *testing.T) {
	dir := writeRun(t, failingRun(), Options{})
	data, _ := os.ReadFile(filepath.Join(dir, FileJUnit))
	s := string(data)
	for _, want := range []string{
		`<testsuite name="gh" tests="2" failures="1" errors="0" skipped="0"`, // an error is a <failure> (specs/002 §2)
		`<testsuite name="github" tests="2" failures="1" errors="0" skipped="1"`,
		`<testcase name="list-pulls" classname="github" time="0.120">`,
		`<failure type="E_CONTRACT_DRIFT"`,
		`+&#34;title&#34;: &#34;Fix bug&#34;`, // the diff, escaped
		`<skipped message="quarantined (FLAKE-NET, owner alice, expires 2026-11-29, #42): outcome fail">`,
		`<failure type="E_FAKE_ERROR"`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("junit.xml lacks %q\n%s", want, s)
		}
	}
}

func TestSummary(t *testing.T) {
	dir := writeRun(t, failingRun(), Options{})
	s, err := readSummary(filepath.Join(dir, FileSummary))
	if err != nil {
		t.Fatal(err)
	}
	if s.SchemaVersion != 1 || s.ReasonCodeVersion != 1 || s.ExitCode != 1 || s.ReasonCode != "E_TEST_FAILED" {
		t.Errorf("summary = %+v", s)
	}
	if s.Provenance.CassetteVersion != "0.3.0" || s.Provenance.VerifyMode != "enabled" || !s.Provenance.Replay ||
		s.Provenance.ReplayMode != "offline" || !strings.HasPrefix(s.Provenance.BundleDigest, "sha256:") {
		t.Errorf("provenance = %+v", s.Provenance)
	}
	if s.Seeds.SeedVersion != 1 || s.Seeds.OrderSeed == nil || *s.Seeds.OrderSeed != "18446744073709551615" || s.Seeds.JudgeSeed != nil {
		t.Errorf("seeds = %+v", s.Seeds)
	}
	if s.Results != (Results{Passed: 1, Failed: 2, Warned: 1, Skipped: 0, Total: 4}) {
		t.Errorf("results = %+v", s.Results)
	}
	if s.Performance == nil || s.Performance.TotalDurationMS != 1500 {
		t.Errorf("performance = %+v", s.Performance)
	}
	raw := readJSONFile(t, filepath.Join(dir, FileSummary))
	seeds := raw["seeds"].(map[string]any)
	if v, ok := seeds["judge_seed"]; !ok || v != nil {
		t.Errorf("judge_seed must be present and null, got %v (present %v)", v, ok)
	}
}

func TestParseSummaryIgnoresUnknownKeys(t *testing.T) {
	tests := []struct {
		name, json string
		wantErr    bool
	}{
		{"unknown keys", `{"schema_version":1,"reason_code_version":1,"exit_code":0,"reason_code":"","future":{"x":1},"provenance":{"cassette_version":"1","verify_mode":"enabled","new":true}}`, false},
		{"unknown schema", `{"schema_version":2,"reason_code_version":1,"exit_code":0,"reason_code":""}`, true},
		{"unknown reason version", `{"schema_version":1,"reason_code_version":9,"exit_code":0,"reason_code":""}`, true},
		{"empty reason on failure", `{"schema_version":1,"reason_code_version":1,"exit_code":1,"reason_code":""}`, true},
		{"not json", `{"schema_version":`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSummary("summary.json", []byte(tc.json))
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			var ce *outcome.Error
			if err != nil && (!errors.As(err, &ce) || ce.NextStep == "") {
				t.Errorf("error %v is not a *outcome.Error with a next step", err)
			}
		})
	}
}

// TestErrorConditions: for each known error condition summary.json has the
// right exit and reason codes and a next step, and the console line agrees.
func TestErrorConditions(t *testing.T) {
	tests := []struct {
		name   string
		run    func() *Run
		exit   int
		reason outcome.Reason
	}{
		{"missing config", func() *Run {
			r := baseRun()
			r.Err = outcome.Errorf(outcome.EMissingConfig, "Run: cassette init", "cassette.yaml not found in /src/shop")
			return r
		}, 2, outcome.EMissingConfig},
		{"missing cassette", func() *Run {
			r := baseRun()
			r.Err = &outcome.Error{Reason: outcome.ECassetteNotFound, Message: "no cassette for github/list-pulls",
				Problems: []outcome.Problem{{File: "cassettes/github/list-pulls.yaml", Message: "file not found"}},
				NextStep: "Run: cassette record --adapter github --scenario list-pulls"}
			return r
		}, 2, outcome.ECassetteNotFound},
		{"failing case", func() *Run {
			r := baseRun()
			c := passCase("github", "list-pulls")
			c.Status = verdict.StatusFail
			c.Drifts = []verdict.Drift{{Class: "body", Message: "differs"}}
			r.Cases = []verdict.Case{c, passCase("github", "get-pull")}
			return r
		}, 1, outcome.EContractDrift},
		{"fake unavailable", func() *Run {
			r := baseRun()
			r.Err = &outcome.Error{Reason: outcome.EFakeUnavailable, Message: "fake for github did not answer /healthz within 10s",
				NextStep: "Run: go run ./internal/fakes/github  # and check that it listens on $PORT"}
			return r
		}, 3, outcome.EFakeUnavailable},
		{"case-level fake unavailable", func() *Run {
			r := baseRun()
			r.Cases = []verdict.Case{{Adapter: "github", Scenario: "list-pulls", Status: verdict.StatusError, Reason: outcome.EFakeUnavailable, Message: "connection refused"}}
			return r
		}, 3, outcome.EFakeUnavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.run()
			dir := writeRun(t, r, Options{})
			s, err := readSummary(filepath.Join(dir, FileSummary))
			if err != nil {
				t.Fatal(err)
			}
			if s.ExitCode != tc.exit || s.ReasonCode != string(tc.reason) {
				t.Errorf("exit %d reason %s, want %d %s", s.ExitCode, s.ReasonCode, tc.exit, tc.reason)
			}
			if s.NextStep == "" || s.Message == "" {
				t.Errorf("next_step %q message %q must be set", s.NextStep, s.Message)
			}
			var console bytes.Buffer
			if err := WriteNextStep(&console, r); err != nil {
				t.Fatal(err)
			}
			if console.String() != "next step: "+s.NextStep+"\n" {
				t.Errorf("console %q does not print summary's next step %q", console.String(), s.NextStep)
			}
		})
	}
	var console bytes.Buffer
	_ = WriteNextStep(&console, passingRun())
	if console.Len() != 0 {
		t.Errorf("a passing run printed %q", console.String())
	}
}

func TestRunReason(t *testing.T) {
	drift := verdict.Case{Adapter: "a", Scenario: "1", Status: verdict.StatusFail}
	miss := verdict.Case{Adapter: "a", Scenario: "2", Status: verdict.StatusError, Reason: outcome.EReplayMiss}
	expired := verdict.Case{Adapter: "a", Scenario: "3", Status: verdict.StatusFail, Quarantine: &verdict.QuarantineInfo{Expires: t0.Add(-time.Hour)}}
	quar := verdict.Case{Adapter: "a", Scenario: "4", Status: verdict.StatusFail, Quarantine: &verdict.QuarantineInfo{Expires: t0.Add(time.Hour)}}
	pass := verdict.Case{Adapter: "a", Scenario: "5", Status: verdict.StatusPass}
	timeout := verdict.Case{Adapter: "b", Scenario: "1", Status: verdict.StatusError, Reason: outcome.ETimeout}
	limited := verdict.Case{Adapter: "b", Scenario: "2", Status: verdict.StatusError, Reason: outcome.ERateLimit}
	invalid := verdict.Case{Adapter: "c", Scenario: "1", Status: verdict.StatusError, Reason: outcome.ECassetteInvalid}
	tests := []struct {
		name  string
		cases []verdict.Case
		err   *outcome.Error
		want  outcome.Reason
		exit  outcome.Exit
	}{
		{"all pass", []verdict.Case{pass}, nil, "", 0},
		{"quarantined failure does not fail", []verdict.Case{pass, quar}, nil, "", 0},
		{"drifts only", []verdict.Case{drift, quar}, nil, outcome.EContractDrift, 1},
		{"one common reason", []verdict.Case{miss}, nil, outcome.EReplayMiss, 1},
		{"mixed", []verdict.Case{drift, miss}, nil, outcome.ETestFailed, 1},
		{"expired quarantine fails", []verdict.Case{expired}, nil, outcome.EQuarantineExpired, 1},
		{"infrastructure is never hidden by a drift", []verdict.Case{drift, timeout}, nil, outcome.ETimeout, 3},
		{"two infrastructure reasons stay exit 3", []verdict.Case{limited, timeout, drift}, nil, outcome.ETimeout, 3},
		{"a user error outranks a drift", []verdict.Case{drift, invalid}, nil, outcome.ECassetteInvalid, 2},
		{"run error wins", []verdict.Case{drift}, outcome.Errorf(outcome.ETimeout, "retry", "timeout"), outcome.ETimeout, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &Run{Started: t0, Cases: tc.cases, Err: tc.err}
			if got := r.Reason(); got != tc.want {
				t.Errorf("Reason() = %q, want %q", got, tc.want)
			}
			if got := r.Exit(); got != tc.exit {
				t.Errorf("Exit() = %d, want %d", got, tc.exit)
			}
			if (r.Exit() != 0) != (r.NextStepCommand() != "") {
				t.Errorf("next step %q for exit %d", r.NextStepCommand(), r.Exit())
			}
		})
	}
}

func TestCaseID(t *testing.T) {
	// item-1 0x1f Smoke::Version, unpadded base64url
	if got, want := caseID("item-1", "Smoke::Version"), "aXRlbS0xH1Ntb2tlOjpWZXJzaW9u"; got != want {
		t.Errorf("CaseID = %q, want %q", got, want)
	}
	if got := caseID("a", "\xff\xfe"); strings.ContainsAny(got, "+/=") {
		t.Errorf("CaseID %q is not unpadded base64url", got)
	}
}

func TestEmptyInventoryDigest(t *testing.T) {
	// sha256 of the empty byte sequence
	if got := InventoryDigest(nil); got != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("empty inventory digest = %s", got)
	}
	a := InventoryDigest([]InventoryItem{{Path: "b", SHA256: "1"}, {Path: "a", SHA256: "2"}})
	b := InventoryDigest([]InventoryItem{{Path: "a", SHA256: "2"}, {Path: "b", SHA256: "1"}, {Path: "a", SHA256: "2"}})
	if a != b {
		t.Error("inventory digest depends on order or duplicates")
	}
}

func TestSecretLeakWritesNothing(t *testing.T) {
	tests := []struct {
		name     string
		mutate   func(*Run)
		declared map[string]string
	}{
		{"known key format in a message", func(r *Run) {
			r.Cases[0].Message = "fake echoed ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4a"
		}, nil},
		{"declared value in a drift", func(r *Run) {
			r.Cases[0].Drifts = []verdict.Drift{{Class: "body", Message: `"hunter2-very-secret" differs`}}
		}, map[string]string{"SHOP_TOKEN": "hunter2-very-secret"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			// a previous run's reports must not survive as stale results
			if err := Write(dir, passingRun(), Options{}); err != nil {
				t.Fatal(err)
			}
			r := passingRun()
			tc.mutate(r)
			err := Write(dir, r, Options{Declared: tc.declared})
			var ce *outcome.Error
			if !errors.As(err, &ce) || ce.Reason != outcome.ESecretLeak || len(ce.Problems) == 0 || ce.NextStep == "" {
				t.Fatalf("err = %v, want E_SECRET_LEAK with problems and a next step", err)
			}
			if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "ghp_") {
				t.Errorf("the error repeats the secret: %v", err)
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != 0 {
				t.Errorf("files left after a leak: %v", ents)
			}
		})
	}
}

// TestPayloadsRedactedDecoded: what a case's actions carry (a fake's body,
// a command's output) reaches run.json and the bundle in base64, where the
// text scan cannot read it; a fake's body may be gzip (it answered a
// recorded Accept-Encoding). Each is decoded and redacted — declared
// values, known formats, credential names — before anything is written,
// and one that cannot be decoded is replaced by a note.
func TestPayloadsRedactedDecoded(t *testing.T) {
	const tok = "ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4a"
	gz := func(s string) []byte {
		b, err := redact.Encode("gzip", []byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	corrupt := gz(`{"token":"` + tok + `"}`)
	corrupt[len(corrupt)/2] ^= 0x5a
	r := passingRun()
	r.Cases[0].Actions[0].Body = gz(`{"echo":"` + tok + `","password":"pw-314159","v":"hunter2-very-secret"}`)
	r.Cases[1].Actions[0].Body = corrupt
	r.Cases[2].Actions[0].Stdout = []byte(`{"client_secret":"cs-271828"}`)
	declared := map[string]string{"SHOP_TOKEN": "hunter2-very-secret"}
	dir := t.TempDir()
	if err := Write(dir, r, Options{Declared: declared}); err != nil {
		t.Fatal(err)
	}
	bundleDir, err := WriteBundle(t.TempDir(), r, BundleFiles{Options: Options{Declared: declared}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, FileRun), filepath.Join(bundleDir, "reports", FileRun)} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var rf struct {
			Cases []struct {
				Actions []verdict.Action `json:"actions"`
			} `json:"cases"`
		}
		if err := json.Unmarshal(data, &rf); err != nil {
			t.Fatal(err)
		}
		var all []byte
		for _, c := range rf.Cases {
			for _, a := range c.Actions {
				all = append(append(append(all, a.Body...), a.Stdout...), '\n')
			}
		}
		for _, v := range []string{tok, "pw-314159", "hunter2-very-secret", "cs-271828"} {
			if strings.Contains(string(all), v) {
				t.Errorf("%s carries %s:\n%s", p, v, all)
			}
		}
		if !strings.Contains(string(all), `{"echo":"[REDACTED]","password":"[REDACTED]"`) || !strings.Contains(string(all), "cannot be decoded as gzip") {
			t.Errorf("%s payloads:\n%s", p, all)
		}
	}
	if r.Cases[0].Actions[0].Body[0] != 0x1f {
		t.Error("Write changed the caller's run")
	}
}

func TestStructuredLog(t *testing.T) {
	for _, tc := range sampleRuns {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeRun(t, tc.run(), Options{})
			data, _ := os.ReadFile(filepath.Join(dir, FileLog))
			if probs := ValidateLog(FileLog, data); len(probs) > 0 {
				t.Fatalf("log does not validate: %v", probs)
			}
			digests := strings.Count(string(data), `"type":"failure_digest"`)
			want := map[string]int{"passing": 0, "failing": 3, "truncated": 12, "error": 1, "coverage": 2}[tc.name]
			if digests != want {
				t.Errorf("%d failure digests, want %d", digests, want)
			}
		})
	}
	bad := []struct{ name, line string }{
		{"no trace id", `{"schema":"cassette.test.log.v1","type":"case"}`},
		{"numeric span", `{"schema":"cassette.test.log.v1","trace_id":"t","span_id":3}`},
		{"undeclared root cause", `{"schema":"cassette.test.log.v1","trace_id":"t","type":"failure_digest","context":{"root_cause_class":"gremlins","first_failing_assertion":"x"}}`},
		{"empty assertion", `{"schema":"cassette.test.log.v1","trace_id":"t","type":"failure_digest","context":{"root_cause_class":"timeout","first_failing_assertion":""}}`},
		{"wrong schema", `{"schema":"pi.test.log.v1","trace_id":"t"}`},
		{"not json", `{`},
	}
	for _, tc := range bad {
		t.Run("rejects/"+tc.name, func(t *testing.T) {
			if probs := ValidateLog("log.jsonl", []byte(tc.line+"\n")); len(probs) == 0 {
				t.Error("accepted")
			}
		})
	}
}

// TestMergeKeepsExpiredQuarantine: a golden run.json has no clock, yet a
// shard whose quarantine had expired still fails the merged run.
func TestMergeKeepsExpiredQuarantine(t *testing.T) {
	shard := func(c verdict.Case) string {
		dir := t.TempDir()
		run := &Run{Tool: Tool{Name: "cassette", Version: "1"}, Command: "verify", Suite: "s", Started: t0, Finished: t0, Cases: []verdict.Case{c}}
		if err := Write(dir, run, Options{Golden: true}); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	expired := verdict.Case{Adapter: "a", Scenario: "1", Status: verdict.StatusFail, Quarantine: &verdict.QuarantineInfo{Category: "FLAKE-NET", Expires: t0.Add(-time.Hour)}}
	d1, d2 := shard(expired), shard(verdict.Case{Adapter: "a", Scenario: "2", Status: verdict.StatusPass})
	out := t.TempDir()
	if _, err := mergeDirs(out, MergeOptions{}, d1, d2); err != nil {
		t.Fatal(err)
	}
	s, err := readSummary(filepath.Join(out, FileSummary))
	if err != nil {
		t.Fatal(err)
	}
	if s.ExitCode != 1 || s.ReasonCode != string(outcome.EQuarantineExpired) {
		t.Errorf("merged exit %d reason %q, want 1 E_QUARANTINE_EXPIRED", s.ExitCode, s.ReasonCode)
	}
}

func readSummary(path string) (*Summary, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseSummary(path, data)
}
