package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
