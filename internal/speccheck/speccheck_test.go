package speccheck_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/report"
	"github.com/cassette-dev/cassette/internal/speccheck"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// write puts the reports of a drifting run (and its bundle) in a new
// directory; the checkers accept them as written.
func write(t *testing.T) (reports, bundle string) {
	t.Helper()
	t0 := time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC)
	run := &report.Run{Tool: report.Tool{Name: "cassette", Version: "0.3.0", SHA: "1a2b3c4"}, Command: "verify", Suite: "s",
		ConfigPath: "cassette.yaml", Started: t0, Finished: t0.Add(time.Second), Seeds: report.FileOrder(), Cases: []verdict.Case{
			{Adapter: "a", Scenario: "ok", CassettePath: "cassettes/a/ok.yaml", Status: verdict.StatusPass},
			{Adapter: "a", Scenario: "drift", CassettePath: "cassettes/a/drift.yaml", Status: verdict.StatusFail,
				Drifts: []verdict.Drift{{Class: "body", Field: "output.stdout", Line: 9, Message: "differs"}}},
			{Adapter: "b", Scenario: "down", CassettePath: "cassettes/b/down.yaml", Status: verdict.StatusError,
				Reason: outcome.EFakeUnavailable, Message: "fake did not start",
				Artifacts: []verdict.Artifact{{Name: "b fake log", Kind: "log", Path: "fakes/b.log"}}},
		}}
	reports = t.TempDir()
	if err := report.Write(reports, run, report.Options{}); err != nil {
		t.Fatal(err)
	}
	b, err := report.WriteBundle(t.TempDir(), run, report.BundleFiles{Options: report.Options{}})
	if err != nil {
		t.Fatal(err)
	}
	return reports, b
}

func edit(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s lacks %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(data), old, new)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCheckersReject: each checker finds a broken rule of its spec.
func TestCheckersReject(t *testing.T) {
	dir, _ := write(t)
	if probs := speccheck.Reports(dir, speccheck.Options{README: "../../docs/reference/exit-codes.md"}); len(probs) > 0 {
		t.Fatalf("the reports as written: %s", speccheck.Describe(probs))
	}
	tests := []struct {
		file, old, new, want string
	}{
		{"summary.json", `"exit_code": 3`, `"exit_code": 0`, "[002 §4]"},
		{"summary.json", `"next_step": "`, `"next_stepx": "`, "without next_step"},
		{"report.jsonl", `"case_pass":1`, `"case_pass":2`, "summary case_pass"},
		{"report.jsonl", `"exit_code":2`, `"exit_code":3`, "[001 §9]"},
		{"report.jsonl", `"action_ix":1,"artifact_ix":0`, `"action_ix":7,"artifact_ix":0`, "names no action record"},
		{"junit.xml", `failure`, `error`, "Fail/Error map to <failure>"},
		{"sarif.json", `"partialFingerprints"`, `"partialFingerprintz"`, "no partialFingerprints"},
		{"sarif.json", `"uri": "cassettes/a/drift.yaml"`, `"uri": "/abs/drift.yaml"`, "not relative to the repository root"},
		{"sarif.json", `"automationDetails"`, `"automationDetailz"`, "automationDetails.id"},
		{"log.jsonl", `"schema":"cassette.test.log.v2"`, `"schema":"cassette.test.log.v1"`, "not a v2 test log schema"},
		{"log.jsonl", `"root_cause_class":"fake_unavailable"`, `"root_cause_class":"unknown"`, "root_cause_class unknown"},
		{"run.json", `"order_seed": "0",`, ``, "order_seed is missing"},
		{"run.json", `"order_seed": "0",`, `"order_seed": "7",`, `summary.json's "0": one run, one seed`},
		{"summary.json", `"reason_code": "E_FAKE_UNAVAILABLE"`, `"reason_code": "E_MADE_UP"`, "nor documented in docs/reference/exit-codes.md"},
		{"junit.xml", `type="E_CONTRACT_DRIFT"`, `type="E_MADE_UP"`, "reason code E_MADE_UP is neither registered"},
		{"log.jsonl", `"reason_code":"E_FAKE_UNAVAILABLE"`, `"reason_code":"E_MADE_UP"`, "reason code E_MADE_UP is neither registered"},
		{"sarif.json", `"fullDescription"`, `"fullDescriptionX"`, "has no fullDescription.text"},
		{"log.jsonl", `"context":{"cases"`, `"context":{"duration_ms":3,"cases"`, "duration_ms inside context"},
		{"summary.json", `"correlation_id": "`, `"correlation_id": "x`, "correlation_id"},
	}
	for _, tc := range tests {
		t.Run(tc.file+"/"+tc.want, func(t *testing.T) {
			dir, _ := write(t)
			edit(t, filepath.Join(dir, tc.file), tc.old, tc.new)
			probs := speccheck.Reports(dir, speccheck.Options{README: "../../docs/reference/exit-codes.md"})
			if !strings.Contains(strings.Join(probs, "\n"), tc.want) {
				t.Errorf("want a problem with %q, got %s", tc.want, speccheck.Describe(probs))
			}
		})
	}
}

// TestSameSeed: the bundle replays the reports' order seed; a summary.json
// that says another (or null) is refused.
func TestSameSeed(t *testing.T) {
	dir, b := write(t)
	if probs := speccheck.SameSeed(dir, b); len(probs) > 0 {
		t.Fatalf("the reports and bundle as written: %s", speccheck.Describe(probs))
	}
	edit(t, filepath.Join(dir, "summary.json"), `"order_seed": "0"`, `"order_seed": null`)
	got := strings.Join(speccheck.SameSeed(dir, b), "\n")
	for _, want := range []string{`order_seed null, the bundle's repro.json seed_decimal "0"`, `repro.env holds no "CASSETTE_ORDER_SEED=null"`} {
		if !strings.Contains(got, want) {
			t.Errorf("want %q in:\n%s", want, got)
		}
	}
}

// TestBundleCheckerRejects: the 004 checker finds a tampered file, an
// unlisted file and a missing required file.
func TestBundleCheckerRejects(t *testing.T) {
	_, b := write(t)
	if probs := speccheck.Bundle(b); len(probs) > 0 {
		t.Fatalf("the bundle as written: %s", speccheck.Describe(probs))
	}
	os.WriteFile(filepath.Join(b, "extra.txt"), []byte("x"), 0o644)
	f, _ := os.OpenFile(filepath.Join(b, "repro.txt"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("tampered")
	f.Close()
	os.Remove(filepath.Join(b, "fixtures.json"))
	got := strings.Join(speccheck.Bundle(b), "\n")
	for _, want := range []string{"extra.txt: not in bundle.json's file inventory", "repro.txt: bytes/sha256 differ", "fixtures.json: required file is missing"} {
		if !strings.Contains(got, want) {
			t.Errorf("want %q in:\n%s", want, got)
		}
	}
}

// TestLiveTelemetryIsPerCall: the retry telemetry of a live call says its
// own attempts and backoffs (attempts = backoffs + 1, at most 3); a sum
// over a case's calls is refused, and so is a live call without it.
func TestLiveTelemetryIsPerCall(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC)
	live := &verdict.LiveRecord{ExecutionMode: "live_record", ReplayBoundary: "live_request_then_vcr_trace_extract", TraceOrigin: "vcr_last_interaction"}
	run := &report.Run{Tool: report.Tool{Name: "cassette", Version: "0.3.0"}, Command: "refresh", Suite: "s", ConfigPath: "cassette.yaml",
		Started: t0, Finished: t0.Add(time.Second), Cases: []verdict.Case{{Adapter: "a", Scenario: "two", CassettePath: "cassettes/a/two.yaml",
			Status: verdict.StatusPass, Live: live, Actions: []verdict.Action{
				{Kind: "http", ID: "interactions[0]", Method: "GET", URL: "https://a.example/1", StatusCode: 200, Attempts: 2, RetryBackoffMS: []int64{500}},
				{Kind: "http", ID: "interactions[1]", Method: "GET", URL: "https://a.example/2", StatusCode: 200, Attempts: 1}}}}}
	write := func(t *testing.T) string {
		dir := t.TempDir()
		if err := report.Write(dir, run, report.Options{Golden: true}); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	opts := speccheck.Options{README: "../../docs/reference/exit-codes.md", Live: true}
	if probs := speccheck.Reports(write(t), opts); len(probs) > 0 {
		t.Fatalf("the reports as written: %s", speccheck.Describe(probs))
	}
	for _, tc := range []struct{ file, old, new, want string }{
		{"report.jsonl", `"attempts":2`, `"attempts":4`, "attempts 4, expected 1…3"},
		{"report.jsonl", `"attempts":1,"case"`, `"attempts":2,"case"`, "attempts 2 with 0 backoff(s)"},
		{"log.jsonl", `"attempts":2,"case"`, `"attempts":3,"case"`, "attempts 3 with 1 backoff(s)"},
		{"report.jsonl", `"retry_backoff_ms":[],`, ``, "a live call without its retry telemetry"},
		{"report.jsonl", `"retry_backoff_ms":[500]`, `"retry_backoff_ms":[250]`, "retry_backoff_ms[0] is 250, the policy's is 500"},
		{"log.jsonl", `"type":"live_call"`, `"type":"live_calx"`, "has no live_call record"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			dir := write(t)
			edit(t, filepath.Join(dir, tc.file), tc.old, tc.new)
			if tc.new == "" { // the call loses both fields
				edit(t, filepath.Join(dir, tc.file), `"attempts":1,`, ``)
			}
			if got := strings.Join(speccheck.Reports(dir, opts), "\n"); !strings.Contains(got, tc.want) {
				t.Errorf("want a problem with %q, got:\n%s", tc.want, got)
			}
		})
	}
}

// TestReadRegistry: the registry is specs/002 §5's codes and the ones
// README.md documents, each under its exit code, and the declared root
// causes; a README that moves a code of the spec is refused.
func TestReadRegistry(t *testing.T) {
	reg, err := speccheck.ReadRegistry("../../docs/reference/exit-codes.md")
	if err != nil {
		t.Fatal(err)
	}
	for code, exit := range map[string]int{"E_CFG_PARSE": 2, "E_JUDGE_UNAVAILABLE": 3, "E_REAL_DNS": 3, "E_REAL_TLS": 3,
		"E_REAL_RESET": 3, "E_FAKE_DRIFT": 1, "E_BUNDLE_INVALID": 2, "E_IO": 3} {
		if got, ok := reg.Exit[code]; !ok || got != exit {
			t.Errorf("%s: exit %d (registered %v), want %d", code, got, ok, exit)
		}
	}
	if _, ok := reg.Exit["E_MADE_UP"]; ok {
		t.Error("an undocumented code is registered")
	}
	if !slices.Contains(reg.RootCauses, "real_unreachable") || !slices.Contains(reg.RootCauses, "unknown") {
		t.Errorf("root causes %v", reg.RootCauses)
	}
	bad := filepath.Join(t.TempDir(), "README.md")
	os.WriteFile(bad, []byte("## Exit codes\n\n| 3 | infra | `E_CFG_PARSE` |\n\n## Next\n`root_cause_class` — one of `x` (never)\n"), 0o644)
	if _, err := speccheck.ReadRegistry(bad); err == nil || !strings.Contains(err.Error(), "E_CFG_PARSE under exit 3") {
		t.Errorf("a README that moves a code of the spec: %v", err)
	}
}

// TestConsole: the console must carry one Seeds line with summary.json's
// seeds, exit with summary.json's code and, on failure, give its next step
// and reason.
func TestConsole(t *testing.T) {
	dir, _ := write(t) // exit 3, E_FAKE_UNAVAILABLE
	ns := readSummary(t, dir)["next_step"].(string)
	seeds := "Seeds: seed_version=1 order_seed=0 judge_seed=null\n"
	good := func() (string, string) {
		return "FAIL a/drift\n" + seeds + "next: " + strings.TrimPrefix(ns, "Run: ") + "\n", "error[E_FAKE_UNAVAILABLE]: fake did not start\n"
	}
	out, errOut := good()
	if probs := speccheck.Console(dir, 3, out, errOut); len(probs) > 0 {
		t.Fatalf("a good console: %s", speccheck.Describe(probs))
	}
	for _, tc := range []struct {
		name           string
		exit           int
		stdout, stderr string
		want           string
	}{
		{"no Seeds line", 3, strings.Replace(out, seeds, "", 1), errOut, "0 Seeds: lines"},
		{"two Seeds lines", 3, out + seeds, errOut, "2 Seeds: lines"},
		{"other seeds", 3, strings.Replace(out, "order_seed=0", "order_seed=7", 1), errOut, "order_seed=7"},
		{"another exit", 1, out, errOut, "exited 1, summary.json says 3"},
		{"no next step", 3, strings.Replace(out, "next:", "then:", 1), errOut, "0 next step lines, expected exactly one"},
		{"two next steps", 3, out, errOut + "next: " + strings.TrimPrefix(ns, "Run: ") + "\n", "2 next step lines, expected exactly one"},
		{"another next step", 3, strings.Replace(out, "next: ", "next: cassette verify --x ", 1), errOut, "is not summary.json's"},
		{"no error line", 3, out, "", "no error[E_FAKE_UNAVAILABLE]: line"},
		{"two error lines", 3, out + "error[E_FAKE_UNAVAILABLE]: again\n", errOut, "2 error[…] lines, expected exactly one"},
		{"an error line on a pass", 0, out, errOut, "the run passed, and the console has an error[E_FAKE_UNAVAILABLE]: line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := strings.Join(speccheck.Console(dir, tc.exit, tc.stdout, tc.stderr), "\n"); !strings.Contains(got, tc.want) {
				t.Errorf("want %q, got:\n%s", tc.want, got)
			}
		})
	}
}

func readSummary(t *testing.T, dir string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSame: two golden runs must be byte-identical; a default-mode run is
// not golden, and a changed file is named.
func TestSame(t *testing.T) {
	run := &report.Run{Tool: report.Tool{Name: "cassette", Version: "1"}, Command: "verify", Suite: "s", ConfigPath: "cassette.yaml",
		Cases: []verdict.Case{{Adapter: "a", Scenario: "b", CassettePath: "cassettes/a/b.yaml", Status: verdict.StatusPass}}}
	out := func(opts report.Options) string {
		dir := t.TempDir()
		if err := report.Write(dir, run, opts); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	a, b := out(report.Options{Golden: true}), out(report.Options{Golden: true})
	if probs := speccheck.Same(a, b); len(probs) > 0 {
		t.Fatalf("two golden runs: %s", speccheck.Describe(probs))
	}
	if got := strings.Join(speccheck.Same(out(report.Options{}), b), "\n"); !strings.Contains(got, "not written in golden mode") {
		t.Errorf("a default-mode run: %s", got)
	}
	edit(t, filepath.Join(b, "summary.json"), `"exit_code": 0`, `"exit_code": 1`)
	if got := strings.Join(speccheck.Same(a, b), "\n"); !strings.Contains(got, "summary.json: differs between two golden runs") {
		t.Errorf("a changed file: %s", got)
	}
}

// TestStepSummary: the job summary stays under 1 MiB with what the step
// wrote before, was appended to, names the reason, cuts no link and gives
// quarantined failures a section.
func TestStepSummary(t *testing.T) {
	dir, _ := write(t)
	path := filepath.Join(t.TempDir(), "step.md")
	prior := []byte("### an earlier command\n")
	os.WriteFile(path, prior, 0o644)
	ok := "### cassette verify: failed (exit 3, E\\_FAKE\\_UNAVAILABLE)\n\n| case | cassette |\n|---|---|\n| a/drift | [<code>cassettes/a/drift.yaml:9</code>](https://github.com/o/r/blob/s/cassettes/a/drift.yaml#L9) |\n"
	check := func(appended string, before int64) string {
		os.WriteFile(path, append(append([]byte(nil), prior...), appended...), 0o644)
		return strings.Join(speccheck.StepSummary(path, before, dir), "\n")
	}
	if got := check(ok, int64(len(prior))); got != "" {
		t.Fatalf("a good summary: %s", got)
	}
	for _, tc := range []struct{ name, appended, want string }{
		{"nothing appended", "", "appended nothing"},
		{"a link cut", ok[:len(ok)-30], "a link is cut"},
		{"another reason", strings.ReplaceAll(ok, "FAKE\\_UNAVAILABLE", "TIMEOUT"), "does not name the run's reason code E_FAKE_UNAVAILABLE"},
		{"over 1 MiB", ok + strings.Repeat("x", 1<<20), "over GitHub's 1 MiB"},
		{"an open details block", ok + "<details><summary>a</summary>\n", "1 <details> for 0 </details>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := check(tc.appended, int64(len(prior))); !strings.Contains(got, tc.want) {
				t.Errorf("want %q, got:\n%s", tc.want, got)
			}
		})
	}
}

// TestTampers: every tamper breaks a bundle the checker sees broken; a
// validator that accepts it, or refuses a valid bundle, is caught.
func TestTampers(t *testing.T) {
	for _, tm := range speccheck.Tampers() {
		t.Run(tm.Name, func(t *testing.T) {
			_, b := write(t)
			if probs := speccheck.Verdict(b, 0, "ok: bundle "+b+" is valid\n", ""); len(probs) > 0 {
				t.Fatalf("a valid bundle accepted: %s", speccheck.Describe(probs))
			}
			if err := tm.Apply(b); err != nil {
				t.Fatal(err)
			}
			if len(speccheck.Bundle(b)) == 0 {
				t.Fatal("the checker does not see the tampering")
			}
			if got := strings.Join(speccheck.Verdict(b, 0, "ok\n", ""), "\n"); !strings.Contains(got, "accepted a bundle that breaks the spec") {
				t.Errorf("a validator accepting it: %s", got)
			}
			if probs := speccheck.Verdict(b, 2, "", "error[E_BUNDLE_INVALID]: "+b+" has problems\n"); len(probs) > 0 {
				t.Errorf("a validator refusing it: %s", speccheck.Describe(probs))
			}
		})
	}
}

// TestBundleDiagnostics: diagnostics/tree.txt must list every file of the
// bundle with its size, and env_redacted.txt hold no credential-named
// variable's value. (The checker rereads the files and skips the
// inventory's hashes here: each edit is also an inventory mismatch.)
func TestBundleDiagnostics(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		edit       func(string) string
		want       string
	}{
		{"a file left out of the tree", "diagnostics/tree.txt", func(s string) string {
			i := strings.Index(s, "\n")
			return s[i+1:]
		}, "does not list"},
		{"a wrong size", "diagnostics/tree.txt", func(s string) string {
			first, rest, _ := strings.Cut(s, "\n")
			return "      9999  " + strings.Fields(first)[1] + "\n" + rest
		}, "the tree says"},
		{"a token in the environment", "diagnostics/env_redacted.txt", func(s string) string { return s + "GITHUB_TOKEN=abc123\n" }, "GITHUB_TOKEN holds a value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, b := write(t)
			p := filepath.Join(b, filepath.FromSlash(tc.file))
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(p, []byte(tc.edit(string(data))), 0o644)
			if got := strings.Join(speccheck.Bundle(b), "\n"); !strings.Contains(got, tc.want) {
				t.Errorf("want a problem with %q, got:\n%s", tc.want, got)
			}
		})
	}
}

// TestSarifSeverityAndFingerprints: a passing run has no error result
// (002 §6.4); a truncated run keeps errors first (§6.3); two runs over the
// same inputs give the same fingerprints, and a changed one is seen.
func TestSarifSeverityAndFingerprints(t *testing.T) {
	rewrite := func(t *testing.T, dir string, change func(log map[string]any)) {
		t.Helper()
		p := filepath.Join(dir, "sarif.json")
		data, _ := os.ReadFile(p)
		var log map[string]any
		if err := json.Unmarshal(data, &log); err != nil {
			t.Fatal(err)
		}
		change(log)
		out, _ := json.Marshal(log)
		os.WriteFile(p, out, 0o644)
	}
	opts := speccheck.Options{README: "../../docs/reference/exit-codes.md"}
	t.Run("errors on a pass", func(t *testing.T) {
		dir, _ := write(t)
		edit(t, filepath.Join(dir, "summary.json"), `"exit_code": 3`, `"exit_code": 0`)
		if got := strings.Join(speccheck.Reports(dir, opts), "\n"); !strings.Contains(got, "the run passed, and 2 results are errors") {
			t.Errorf("got:\n%s", got)
		}
	})
	t.Run("truncated, a warning first", func(t *testing.T) {
		dir, _ := write(t)
		rewrite(t, dir, func(log map[string]any) {
			run := log["runs"].([]any)[0].(map[string]any)
			run["properties"] = map[string]any{"cassette": map[string]any{"truncated": true, "omitted_count": 1, "message": "1 result omitted"}}
			run["results"].([]any)[0].(map[string]any)["level"] = "warning"
		})
		if got := strings.Join(speccheck.Reports(dir, opts), "\n"); !strings.Contains(got, "errors first") {
			t.Errorf("got:\n%s", got)
		}
	})
	a, _ := write(t)
	b, _ := write(t)
	if probs := speccheck.SameFingerprints(a, b); len(probs) > 0 {
		t.Errorf("two writes of one run: %s", speccheck.Describe(probs))
	}
	rewrite(t, b, func(log map[string]any) {
		res := log["runs"].([]any)[0].(map[string]any)["results"].([]any)[0].(map[string]any)
		res["partialFingerprints"] = map[string]any{"x": "changed"}
	})
	if probs := speccheck.SameFingerprints(a, b); len(probs) == 0 {
		t.Error("a changed fingerprint is not seen")
	}
}

// TestCaseOrderAcrossFiles: junit.xml and log.jsonl list the cases in
// report.jsonl's order, which sorts them by item, then case key (specs/001
// §3).
func TestCaseOrderAcrossFiles(t *testing.T) {
	dir, _ := write(t)
	opts := speccheck.Options{README: "../../docs/reference/exit-codes.md"}
	if probs := speccheck.Reports(dir, opts); len(probs) > 0 {
		t.Fatalf("the reports as written: %s", speccheck.Describe(probs))
	}
	data, _ := os.ReadFile(filepath.Join(dir, "junit.xml"))
	swapped := strings.NewReplacer(`<testcase name="drift" classname="a"`, `<testcase name="ok" classname="a"`,
		`<testcase name="ok" classname="a"`, `<testcase name="drift" classname="a"`).Replace(string(data))
	if swapped == string(data) {
		t.Fatalf("no test cases to swap in:\n%s", data)
	}
	os.WriteFile(filepath.Join(dir, "junit.xml"), []byte(swapped), 0o644)
	if got := strings.Join(speccheck.Reports(dir, opts), "\n"); !strings.Contains(got, "junit.xml: test cases in the order [a/ok a/drift") {
		t.Errorf("got:\n%s", got)
	}
}
