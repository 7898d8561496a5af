package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCoverageGolden renders a coverage run in golden mode and compares
// coverage.json, sarif.json, junit.xml and the job summary with the
// reviewed files under testdata/ (regenerate with -update).
func TestCoverageGolden(t *testing.T) {
	files, err := Render(coverageRun(), Options{Golden: true})
	if err != nil {
		t.Fatal(err)
	}
	files["step-summary.md"] = StepSummary(coverageRun(), Links{ServerURL: "https://github.com", Repository: "o/r", SHA: "abc123"})
	for _, n := range []string{FileCoverage, FileSARIF, FileJUnit, "step-summary.md"} {
		got := files[n]
		golden := filepath.Join("testdata", "coverage."+n)
		if *update {
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if string(got) != string(want) {
			t.Errorf("%s differs from %s (review, then -update):\n%s", n, golden, got)
		}
	}
}

// TestCoverageSARIF: one result per uncovered shape, of rule
// cassette/uncovered-call-shape, at its adapter's line in cassette.yaml:
// an error where the adapter fails, a warning where coverage.min
// tolerates it; the record command is the fix; the failed cases give no
// second result.
func TestCoverageSARIF(t *testing.T) {
	log, _ := coverageRun().sarif(Options{})
	run := log.Runs[0]
	if run.AutomationDetails.ID != "cassette/coverage/" || len(run.Tool.Driver.Rules) != 1 || run.Tool.Driver.Rules[0].ID != RuleUncoveredCallShape ||
		!strings.HasSuffix(run.Tool.Driver.Rules[0].HelpURI, "/docs/concepts/coverage.md") {
		t.Fatalf("automation %q, rules %+v", run.AutomationDetails.ID, run.Tool.Driver.Rules)
	}
	type want struct {
		level string
		line  int
		text  string
		fix   string
	}
	wants := []want{
		{"error", 2, "github: no cassette backs the call shape `POST /repos/{}/{}/pulls {base,head,title}`, which TestOpen, TestOpenDraft made (2 calls).", "cassettes/github/post-repos-pulls.yaml"},
		{"error", 4, "The adapter has no cassette at all", "cassettes/git/log-oneline-n.yaml"},
		{"warning", 3, "gh: no cassette backs the call shape `gh pr --json`", "cassettes/gh/pr-json.yaml"},
	}
	if len(run.Results) != len(wants) {
		t.Fatalf("%d results, want %d: %+v", len(run.Results), len(wants), run.Results)
	}
	for i, w := range wants {
		r := run.Results[i]
		loc := r.Locations[0].PhysicalLocation
		if r.RuleID != RuleUncoveredCallShape || r.Level != w.level || loc.ArtifactLocation.URI != "cassette.yaml" || loc.Region.StartLine != w.line ||
			!strings.Contains(r.Message.Text, w.text) {
			t.Errorf("result %d: %s %s at %s:%d: %s", i, r.RuleID, r.Level, loc.ArtifactLocation.URI, loc.Region.StartLine, r.Message.Text)
		}
		if len(r.Fixes) != 1 || r.Fixes[0].ArtifactChanges[0].ArtifactLocation.URI != w.fix || !strings.Contains(r.Fixes[0].Description.Text, "cassette record --adapter") {
			t.Errorf("result %d: fixes %+v", i, r.Fixes)
		}
	}
}

// TestCoverageHTML: report.html shows the coverage section (verdicts,
// uncovered shapes with their record commands, stale cassettes) in place
// of the generic case sections, and counts uncovered shapes as such.
func TestCoverageHTML(t *testing.T) {
	page, err := coverageRun().html(Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	for _, want := range []string{`<h2 id="coverage">Call shapes backed by a cassette</h2>`, `<strong>2</strong>uncovered`,
		`<code>POST /repos/{}/{}/pulls {base,head,title}</code>: 2 calls by TestOpen, TestOpenDraft`,
		`cassette record --adapter github --scenario post-repos-pulls -- sh -c &#39;curl -sS -X POST -H &#34;Authorization: Bearer ${GITHUB_TOKEN}&#34;`,
		`<code>cassettes/github/get-pull.yaml</code>`, `no calls observed`, `cassette.yaml:4`} {
		if !strings.Contains(s, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(s, `id="failing"`) {
		t.Error("report.html lists the call shapes a second time as failed cases")
	}
}

// TestCoverageJSON: coverage.json carries the run's verdict and the
// totals over the observed shapes.
func TestCoverageJSON(t *testing.T) {
	data, err := coverageRun().coverageJSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Schema   string
		ExitCode int    `json:"exit_code"`
		Reason   string `json:"reason_code"`
		Covered  int
		Observed int
		Percent  float64
		Adapters []CoverageAdapter
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != CoverageSchema || doc.ExitCode != 1 || doc.Reason != "E_UNCOVERED_CALL" || doc.Covered != 2 || doc.Observed != 5 || doc.Percent != 40 || len(doc.Adapters) != 4 {
		t.Errorf("coverage.json: %+v", doc)
	}
	if m := coverageRun().Message(); m != "2 of 5 call shapes failed: git/git log --oneline -n, github/POST /repos/{}/{}/pulls {base,head,title}" {
		t.Errorf("message %q", m)
	}
}
