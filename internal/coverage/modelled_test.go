package coverage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/report"
	"github.com/cassette-dev/cassette/internal/verdict"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// TestReadModelled: the modelled figure coverage shows is the one in the
// summary.json that the report package writes for a verify run, dated by
// the file and held to the min_modelled of this run's cassette.yaml; a
// directory with no summary.json is no verify run yet; one whose run.json
// is another command's is not a verify run; a summary.json that is not
// one is refused naming the file (a FIFO: modelled_unix_test.go).
func TestReadModelled(t *testing.T) {
	dir, p, now := modelledProject(t)
	reports := filepath.Join(dir, "reports")
	if m, err := ReadModelled(reports, p.Config, now); err != nil || m.Found || !strings.Contains(m.Note(), "no verify run yet") || !strings.Contains(m.Note(), "run `cassette verify`") {
		t.Fatalf("no reports: %+v %v", m, err)
	}
	run := &report.Run{Tool: report.Tool{Name: "cassette"}, Command: "verify", Suite: "s", Cases: []verdict.Case{
		{Adapter: "gh", Scenario: "repo", Status: verdict.StatusPass, Modelled: &verdict.Modelled{Fields: 7, Modelled: 3}}}}
	if err := report.Write(reports, run, report.Options{Golden: true}); err != nil {
		t.Fatal(err)
	}
	written := now.Add(-90 * time.Minute)
	os.Chtimes(filepath.Join(reports, report.FileSummary), written, written)
	m, err := ReadModelled(reports, p.Config, now)
	if err != nil || !m.Found || m.Command != "verify" || m.Age != 90*time.Minute || len(m.Adapters) != 1 {
		t.Fatalf("a verify run's reports: %+v %v", m, err)
	}
	if a := m.Adapters[0]; a.Percent != 42.9 || a.Min == nil || *a.Min != 50 || !a.Below() {
		t.Errorf("gh's figure %+v, want 42.9%% below its min 50", a)
	}
	if m.Err == nil || m.Err.Problems[0].Line != 8 || m.Err.Problems[0].Field != "adapters.gh.coverage.min_modelled" {
		t.Errorf("below min_modelled: %+v, want a problem at cassette.yaml:8", m.Err)
	}

	run.Command = "refresh"
	other := filepath.Join(dir, "refresh")
	report.Write(other, run, report.Options{Golden: true})
	if m, err := ReadModelled(other, p.Config, now); err != nil || m.Found || !strings.Contains(m.Note(), "holds the reports of `cassette refresh`") {
		t.Errorf("refresh's reports: %+v %v", m, err)
	}

	refusesSummary(t, filepath.Join(dir, "garbage"), p, now, func(p string) error { return os.WriteFile(p, []byte("{not json"), 0o644) })
}

// modelledProject writes a project of one adapter compared in modelled
// mode with a min_modelled of 50, at line 8 of its cassette.yaml.
func modelledProject(t *testing.T) (string, *workspace.Project, time.Time) {
	t.Helper()
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "cassette.yaml")
	os.WriteFile(cfgPath, []byte("version: 1\nadapters:\n  gh:\n    kind: cli\n    compare: modelled\n    real: {command: [gh]}\n    fake: {command: [fake-gh]}\n    coverage: {min_modelled: 50}\n"), 0o644)
	p, err := workspace.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	return dir, p, time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
}

// refusesSummary: ReadModelled of the reports directory d, whose
// summary.json make writes, is E_CFG_PARSE naming the file.
func refusesSummary(t *testing.T, d string, p *workspace.Project, now time.Time, make func(string) error) {
	t.Helper()
	os.MkdirAll(d, 0o755)
	if err := make(filepath.Join(d, report.FileSummary)); err != nil {
		t.Fatal(err)
	}
	_, err := ReadModelled(d, p.Config, now)
	ce := outcome.AsError(err)
	if ce == nil || ce.Reason != outcome.ECfgParse || len(ce.Problems) == 0 || ce.Problems[0].File != filepath.Join(d, report.FileSummary) {
		t.Errorf("%s summary.json: %v, want E_CFG_PARSE naming it", filepath.Base(d), err)
	}
}

// TestReadModelledOnlyWhereModelled: a project that compares nothing in
// modelled mode sees no figure and no error from a summary.json it does
// not need (a truncated one, say); one that does is told.
func TestReadModelledOnlyWhereModelled(t *testing.T) {
	dir := t.TempDir()
	reports := filepath.Join(dir, "reports")
	os.MkdirAll(reports, 0o755)
	os.WriteFile(filepath.Join(reports, report.FileSummary), []byte(`{"schema_version": 1, "mod`), 0o644)
	for _, tc := range []struct {
		compare string
		wantErr bool
	}{{"exact", false}, {"modelled", true}} {
		cfgPath := filepath.Join(dir, tc.compare+".yaml")
		os.WriteFile(cfgPath, []byte("version: 1\nadapters:\n  gh:\n    kind: cli\n    compare: "+tc.compare+"\n    real: {command: [gh]}\n    fake: {command: [fake-gh]}\n"), 0o644)
		p, err := workspace.Load(cfgPath)
		if err != nil {
			t.Fatal(err)
		}
		m, err := readModelled(p.Config, nil, Options{VerifyReports: reports})
		if (err != nil) != tc.wantErr || (!tc.wantErr && m != nil) {
			t.Errorf("compare: %s with a truncated summary.json: %+v, %v; want an error: %v", tc.compare, m, err, tc.wantErr)
		}
	}
}
