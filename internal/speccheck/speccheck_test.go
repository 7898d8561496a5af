package speccheck_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/speccheck"
	"github.com/cassette-dev/cassette/report"
)

// write puts the reports of a drifting run (and its bundle) in a new
// directory; the checkers accept them as written.
func write(t *testing.T) (reports, bundle string) {
	t.Helper()
	t0 := time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC)
	run := &report.Run{Tool: report.Tool{Name: "cassette", Version: "0.3.0", SHA: "1a2b3c4"}, Command: "verify", Suite: "s",
		ConfigPath: "cassette.yaml", Started: t0, Finished: t0.Add(time.Second), Cases: []report.Case{
			{Adapter: "a", Scenario: "ok", CassettePath: "cassettes/a/ok.yaml", Status: report.StatusPass},
			{Adapter: "a", Scenario: "drift", CassettePath: "cassettes/a/drift.yaml", Status: report.StatusFail,
				Drifts: []report.Drift{{Class: "body", Field: "output.stdout", Line: 9, Message: "differs"}}},
			{Adapter: "b", Scenario: "down", CassettePath: "cassettes/b/down.yaml", Status: report.StatusError,
				Reason: cassettes.EFakeUnavailable, Message: "fake did not start",
				Artifacts: []report.Artifact{{Name: "b fake log", Kind: "log", Path: "fakes/b.log"}}},
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
	if probs := speccheck.Reports(dir, speccheck.Options{}); len(probs) > 0 {
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
		{"run.json", `"order_seed": null,`, ``, "order_seed is missing"},
	}
	for _, tc := range tests {
		t.Run(tc.file+"/"+tc.want, func(t *testing.T) {
			dir, _ := write(t)
			edit(t, filepath.Join(dir, tc.file), tc.old, tc.new)
			probs := speccheck.Reports(dir, speccheck.Options{})
			if !strings.Contains(strings.Join(probs, "\n"), tc.want) {
				t.Errorf("want a problem with %q, got %s", tc.want, speccheck.Describe(probs))
			}
		})
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
