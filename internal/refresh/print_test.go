package refresh

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// TestPrintFailures: errors print as `error[REASON]: …` (with the colon, like
// every command), and an adapter whose cassettes could not be re-recorded is
// "not refreshed", never "no drift".
func TestPrintFailures(t *testing.T) {
	old := &cassettes.Cassette{Adapter: "api", Scenario: "pets"}
	r := &Result{Date: "2026-11-23",
		Adapters: []*AdapterResult{
			{Name: "api", Cases: []*CaseResult{{Old: old, Status: verdict.StatusError, Reason: outcome.ERealTLS, Message: "TLS: certificate signed by an unknown authority"}}},
			{Name: "gh", Err: outcome.Errorf(outcome.EForge, "cassette refresh --once", "cannot open the PR")},
		},
		Err: outcome.Errorf(outcome.EPushRejected, "git fetch", "cannot save the state")}
	var b strings.Builder
	r.Print(&b)
	out := b.String()
	for _, want := range []string{"api: not refreshed: 1 of 1 cassette(s) could not be re-recorded", "gh: error[E_FORGE]: cannot open the PR"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "no drift") {
		t.Errorf("an adapter that could not be re-recorded is reported as no drift:\n%s", out)
	}
	// The cycle's own error is the command's one error line (on stderr, by
	// the run's ending), never a second one here.
	if strings.Contains(out, "E_PUSH_REJECTED") {
		t.Errorf("Print printed the cycle's error, which the run's ending prints once:\n%s", out)
	}
}

// TestPrintAllSkipped: an adapter whose every cassette a dry run skipped
// (none re-recorded) is "not checked", never "no drift".
func TestPrintAllSkipped(t *testing.T) {
	old := &cassettes.Cassette{Adapter: "gh", Scenario: "pr-create"}
	r := &Result{Date: "2026-11-23", DryRun: true, Adapters: []*AdapterResult{{Name: "gh", Cases: []*CaseResult{
		{Old: old, Status: verdict.StatusSkipped, Message: "dry run: not re-recorded"}}}}}
	var b strings.Builder
	r.Print(&b)
	if out := b.String(); strings.Contains(out, "no drift") || !strings.Contains(out, "gh: not checked: every cassette (1) was skipped") {
		t.Errorf("an adapter whose every cassette was skipped:\n%s", out)
	}
}

// TestWriteProposalsRemovesEarlierCycles: the texts of an earlier cycle
// (an adapter that no longer drifts, an issue the fake no longer needs)
// are removed; this cycle's are written.
func TestWriteProposalsRemovesEarlierCycles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"gone.pr.md", "gone.issue.md", "api.issue.md", "notes.md"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("earlier\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := &Result{Adapters: []*AdapterResult{{Name: "api", PR: &PR{Title: "contract-refresh: 2026-11-30 (api)", Body: "now\n"}}}}
	if err := r.WriteProposals(dir); err != nil {
		t.Fatal(err)
	}
	var got []string
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != "api.pr.md notes.md" {
		t.Errorf("left in the proposals directory: %v, want api.pr.md (and notes.md, not ours)", got)
	}
}

// TestGitForgeWritesLabels: a git forge sets no labels, so its PR and
// issue texts say them, cassette-escalated among them.
func TestGitForgeWritesLabels(t *testing.T) {
	f := &GitForge{}
	pr, _ := f.PublishPR(context.Background(), PRRequest{Body: "body\n", Labels: []string{LabelRefresh, LabelEscalated}})
	is, _ := f.PublishIssue(context.Background(), IssueRequest{Body: "body\n", Labels: []string{LabelFakeDrift, LabelEscalated}})
	for what, body := range map[string]string{"PR": pr.Body, "issue": is.Body} {
		if !strings.Contains(body, "Labels: ") || !strings.Contains(body, "`"+LabelEscalated+"`") {
			t.Errorf("the %s text does not name its labels:\n%s", what, body)
		}
	}
}
