package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verdict"
)

func TestStepSummaryIsAppendedAsMarkdown(t *testing.T) {
	run := htmlProject(t)
	path := filepath.Join(t.TempDir(), "step_summary")
	if err := os.WriteFile(path, []byte("### an earlier step\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := Links{ServerURL: "https://github.com", Repository: "o/r", SHA: "abc123"}
	if err := AppendStepSummary(path, run, links, Options{}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	for _, want := range []string{
		"### an earlier step\n### cassette verify: failed (exit 1, E_CONTRACT_DRIFT)",
		"| passed | drifted | infrastructure | quarantined | skipped |\n|---:|---:|---:|---:|---:|\n| 1 | 2 | 0 | 0 | 0 |",
		"**Next step:** <code>Run: cassette verify --case shop/get-pet</code>",
		"| <code>shop/get-pet</code> | fail (E\\_CONTRACT\\_DRIFT) | value, schema, body | [<code>cassettes/shop/get-pet.yaml:9</code>](https://github.com/o/r/blob/abc123/cassettes/shop/get-pet.yaml#L9) |",
		"<details><summary><code>tool/log</code>:",
		"```diff\n--- want\n+++ got\n-abc Document how to run it\n+abc Document it\n```",
		"Reproduce: <code>cassette verify --case tool/log</code>",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("step summary lacks %q:\n%s", want, md)
		}
	}
}

func TestStepSummaryWithoutGitHub(t *testing.T) {
	if err := AppendStepSummary("", htmlProject(t), Links{}, Options{}); err != nil {
		t.Fatalf("no GITHUB_STEP_SUMMARY must be a no-op: %v", err)
	}
	md := string(StepSummary(htmlProject(t), Links{}))
	if strings.Contains(md, "](") {
		t.Errorf("links without GITHUB_REPOSITORY:\n%s", md)
	}
}

// GitHub drops a step summary over 1 MiB entirely: the diffs go first.
func TestStepSummaryStaysUnderGitHubsLimit(t *testing.T) {
	run := htmlProject(t)
	run.Cases[1].Drifts[0].Diff = strings.Repeat("-a line of a very long diff\n", 60000)
	md := StepSummary(run, Links{})
	if len(md) > StepSummaryLimit {
		t.Fatalf("%d bytes, over %d", len(md), StepSummaryLimit)
	}
	if strings.Contains(string(md), "a line of a very long diff") || !strings.Contains(string(md), "<code>tool/log</code>") {
		t.Error("the diffs should be dropped and the cases kept")
	}
}

// Markdown in a case message cannot break the table or inject HTML.
func TestStepSummaryEscapes(t *testing.T) {
	run := htmlProject(t)
	run.Cases[0].Message = "a | b <script>x</script> *bold* [l](u)"
	md := string(StepSummary(run, Links{}))
	if strings.Contains(md, "<script>") || strings.Contains(md, "a | b") || strings.Contains(md, "[l](u)") {
		t.Errorf("unescaped message:\n%s", md)
	}
}

// TestStepSummaryLinksAreEncoded: a cassette path that holds what ends a
// Markdown link or changes its target is percent-encoded in the link.
func TestStepSummaryLinksAreEncoded(t *testing.T) {
	l := Links{ServerURL: "https://github.com", Repository: "o/r", SHA: "abc123"}
	got := l.url("cassettes/gh/a b)[x](https:/evil#?%.yaml", 7)
	want := "https://github.com/o/r/blob/abc123/cassettes/gh/a%20b%29%5Bx%5D%28https:/evil%23%3F%25.yaml#L7"
	if got != want {
		t.Errorf("url = %s\nwant  %s", got, want)
	}
}

// manyFailures is a run with n failing cases, each linked to its cassette
// line: its case table alone is far over 1 MiB.
func manyFailures(n int) *Run {
	run := baseRun()
	for i := range n {
		c := passCase("github", fmt.Sprintf("scenario-with-a-long-name-%05d", i))
		c.Status = verdict.StatusFail
		c.Drifts = []verdict.Drift{{Class: "body", Field: "interactions[0].response.body", Line: 7, Message: "differs"}}
		run.Cases = append(run.Cases, c)
	}
	return run
}

// What a step already wrote to its summary counts toward GitHub's 1 MiB:
// the appended summary fits in what is left.
func TestStepSummaryCountsWhatTheStepWrote(t *testing.T) {
	path := filepath.Join(t.TempDir(), "step_summary")
	earlier := bytes.Repeat([]byte("an earlier command of this step wrote this line\n"), 20000) // ~0.94 MiB
	if err := os.WriteFile(path, earlier, 0o644); err != nil {
		t.Fatal(err)
	}
	links := Links{ServerURL: "https://github.com", Repository: "o/r", SHA: "abc123"}
	if err := AppendStepSummary(path, manyFailures(3000), links, Options{}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > StepSummaryLimit {
		t.Fatalf("the step summary is %d bytes, over GitHub's %d", len(b), StepSummaryLimit)
	}
	if !bytes.HasPrefix(b, earlier) || !bytes.Contains(b[len(earlier):], []byte("### cassette verify: failed")) {
		t.Error("the earlier text must be kept and the outcome appended")
	}
	// Already at the limit: nothing more is appended, since GitHub would
	// then drop the whole summary.
	full := filepath.Join(t.TempDir(), "full")
	if err := os.WriteFile(full, bytes.Repeat([]byte("x"), StepSummaryLimit), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := AppendStepSummary(full, manyFailures(1), links, Options{}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(full); fi.Size() != StepSummaryLimit {
		t.Errorf("a full step summary grew to %d bytes", fi.Size())
	}
}

// A summary cut to the limit ends after a whole table row: no link, tag or
// code span is cut in two.
func TestStepSummaryNeverCutsMidLink(t *testing.T) {
	links := Links{ServerURL: "https://github.com", Repository: "o/r", SHA: "abc123"}
	for _, budget := range []int{StepSummaryLimit, 300000, 4321, 977} {
		md := string(stepSummaryWithin(manyFailures(6000), links, budget))
		if len(md) > budget {
			t.Fatalf("budget %d: %d bytes", budget, len(md))
		}
		body, ok := strings.CutSuffix(md, stepCutNote)
		if !ok {
			t.Fatalf("budget %d: a cut summary must end with the note, ends %q", budget, md[max(0, len(md)-80):])
		}
		if !strings.HasSuffix(body, "|\n") && !strings.HasSuffix(body, "\n\n") {
			t.Errorf("budget %d: cut mid-block: ends %q", budget, body[max(0, len(body)-80):])
		}
		for i, ln := range strings.Split(body, "\n") {
			_, link, hasLink := strings.Cut(ln, "](")
			if hasLink && !strings.Contains(link, ")") || strings.Count(ln, "<code>") != strings.Count(ln, "</code>") {
				t.Fatalf("budget %d: line %d is cut: %q", budget, i+1, ln)
			}
		}
	}
}

// Quarantined failures have a section of their own, with their entry and
// their retry.
func TestStepSummaryQuarantineSection(t *testing.T) {
	run := failingRun()
	run.Cases[2].Retries = []verdict.Retry{{Status: verdict.StatusFail, Reason: outcome.EContractDrift, Message: "503 differs", DelayMS: 5000}}
	md := string(StepSummary(run, Links{}))
	for _, want := range []string{
		"#### Quarantined (not blocking): 1\n",
		"| <code>github/get-pull</code> | fail again after 1 retry(ies) (5000 ms apart) | FLAKE-NET | alice | 2026-11-29 | #42 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("step summary lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(string(StepSummary(passingRun(), Links{})), "Quarantined") {
		t.Error("a run without quarantined failures has no quarantine section")
	}
}
