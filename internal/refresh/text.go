package refresh

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verify"
)

// Title is the title of a refresh PR, e.g. "contract-refresh: 2026-11-30 (github)".
func Title(date, adapter string) string {
	return fmt.Sprintf("contract-refresh: %s (%s)", outcome.Printable(date), outcome.Printable(adapter))
}

// IssueTitle is the title of an adapter's fake-drift companion issue; it
// does not change from cycle to cycle, so that the open one is found and
// updated.
func IssueTitle(adapter string) string {
	return fmt.Sprintf("fake-drift: %s", outcome.Printable(adapter))
}

// CommitMessage names the drifting scenarios and their drift classes.
func CommitMessage(title string, drifting []*CaseResult) string {
	var b strings.Builder
	b.WriteString(title)
	b.WriteString("\n\nThe real service no longer gives the committed output for:\n\n")
	for _, cr := range drifting {
		fmt.Fprintf(&b, "- %s (%s)\n", outcome.Printable(cr.Old.Scenario), outcome.Printable(strings.Join(classes(cr), ", ")))
	}
	b.WriteString("\nRe-recorded by cassette refresh.\n")
	return b.String()
}

func classes(cr *CaseResult) []string {
	var out []string
	for _, d := range cr.Drifts {
		if !slices.Contains(out, d.Class) {
			out = append(out, d.Class)
		}
	}
	return out
}

// PRText is what a refresh PR body says.
type PRText struct {
	Date, Adapter, Branch, Base string
	Drifting                    []*CaseResult
	Escalated                   bool
	Owners                      []string
	Consecutive                 int
	GateFailed                  int         // cases the replay gate failed on the new cassettes
	Gate                        *GateReport // which gate ran and what it found (nil: verify's)
}

// PRBody renders the body of a refresh PR: each drifting cassette with its
// drift classes and structural diff, the replay gate's verdict and, when
// escalated, a mention of the adapter's owners. What the service and the
// cassettes wrote is escaped (markdown.go).
func PRBody(t PRText) string {
	var b strings.Builder
	if t.Escalated {
		fmt.Fprintf(&b, "> [!WARNING]\n> **Escalated** to %s: %s has drifted for %d refresh cycles in a row. A human needs to look.\n\n", ownersText(t.Owners), mdCode(t.Adapter), t.Consecutive)
	}
	fmt.Fprintf(&b, "The weekly refresh of %s (%s) re-recorded its cassettes against the real service and found drift.\n\n", mdText(t.Date), mdCode(t.Adapter))
	fmt.Fprintf(&b, "| cassette | drift classes |\n|---|---|\n")
	for _, cr := range t.Drifting {
		fmt.Fprintf(&b, "| %s | %s |\n", mdCell(rel(cr)), mdText(strings.Join(classes(cr), ", ")))
	}
	b.WriteString("\n")
	for _, cr := range t.Drifting {
		fmt.Fprintf(&b, "### %s\n\n", mdCode(cr.Old.ID()))
		for _, d := range cr.Drifts {
			fmt.Fprintf(&b, "- **%s** %s: %s\n", mdText(d.Class), mdCode(d.Field), mdText(d.Message))
		}
		if diff := diffs(cr); diff != "" {
			fmt.Fprintf(&b, "\n%s", mdFence(diff, "diff"))
		}
		b.WriteString("\n")
	}
	b.WriteString(gateText(t))
	fmt.Fprintf(&b, "Branch %s → %s. Re-run: %s.\n", mdCode(t.Branch), mdCode(t.Base), mdCode(outcome.Command("cassette", "refresh", "--once", "--adapter", t.Adapter)))
	return b.String()
}

// gateText is the PR's paragraph on the replay gate: which gate ran and
// what it found, or plainly that the fake was not checked.
func gateText(t PRText) string {
	g := t.Gate
	issue := mdCode(IssueTitle(t.Adapter))
	switch {
	case g == nil || g.Kind == GateVerify:
		if t.GateFailed > 0 {
			return fmt.Sprintf("**Replay gate: the fake fails on %d of the new cassettes.** Merging this PR alone breaks `cassette verify`; the fake must change too (see the %s issue).\n\n", t.GateFailed, issue)
		}
		return "Replay gate: the fake passes on the new cassettes (`cassette verify`).\n\n"
	case g.Kind == GateNone:
		return fmt.Sprintf("**Replay gate: the fake was not checked.** The fake of %s lives in a test runner's process and declares no command that verifies it: nothing proves it matches the new cassettes. Declare one in cassette.yaml (`fake: {in_process: true, test: [pytest, -q, tests/contracts]}`) and refresh runs it as the gate.\n\n", mdCode(t.Adapter))
	case g.Kind == GateNotInDry:
		return fmt.Sprintf("Replay gate: not run in a dry run (it would run %s in the refresh work tree).\n\n", mdCode(g.Command))
	case g.Err != "":
		return fmt.Sprintf("**Replay gate: %s could not judge the fake** (%s). Run it on this branch before merging.\n\n", mdCode(g.Command), mdText(firstLine(g.Err)))
	case len(g.Failures) > 0:
		return fmt.Sprintf("**Replay gate: %s fails %d of its %d contract tests of %s on the new cassettes.** Merging this PR alone breaks them; the fake must change too (see the %s issue).\n\n",
			mdCode(g.Command), len(g.Failures), g.Checked, mdCode(t.Adapter), issue)
	}
	return fmt.Sprintf("Replay gate: %s passes its %d contract tests of %s on the new cassettes.\n\n", mdCode(g.Command), g.Checked, mdCode(t.Adapter))
}

func rel(cr *CaseResult) string {
	return cr.Old.Adapter + "/" + cr.Old.Scenario
}

func diffs(cr *CaseResult) string {
	var b strings.Builder
	for _, d := range cr.Drifts {
		if d.Diff != "" {
			b.WriteString(d.Diff)
			if !strings.HasSuffix(d.Diff, "\n") {
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}

// IssueText is what a fake-drift issue says.
type IssueText struct {
	Adapter     string
	PR          *PR
	Remote      string
	Failed      []verify.Result // verify's failing cases (Failures, when given, instead)
	Failures    []GateFailure   // the failing cases, each with its replay command
	Gate        *GateReport     // the gate that failed them
	Escalated   bool
	Owners      []string
	Consecutive int
}

// IssueBody renders the body of a fake-drift companion issue: the refresh PR
// it belongs to, each failing case and the commands that replay it (each
// word shell-quoted). What the fake, the service and the cassettes wrote is
// escaped (markdown.go).
func IssueBody(t IssueText) string {
	var b strings.Builder
	if t.Escalated {
		fmt.Fprintf(&b, "> [!WARNING]\n> **Escalated** to %s: %s has drifted for %d refresh cycles in a row.\n\n", ownersText(t.Owners), mdCode(t.Adapter), t.Consecutive)
	}
	fmt.Fprintf(&b, "The real service behind %s changed, and the fake no longer matches the re-recorded cassettes: the fake's code must change, not only the cassettes.\n\n", mdCode(t.Adapter))
	fmt.Fprintf(&b, "Refresh PR: %s\n\n", outcome.Printable(t.PR.Ref())) // the forge's own link
	failures := t.Failures
	if failures == nil {
		for _, r := range t.Failed {
			failures = append(failures, GateFailure{ID: r.Case.ID(), Reason: string(r.Reason), Message: firstLine(r.Message), Replay: outcome.Command("cassette", "verify", "--case", r.Case.ID())})
		}
	}
	if g := t.Gate; g != nil && g.Kind == GateTest {
		fmt.Fprintf(&b, "The replay gate, %s (the fake's contract tests, run in the refresh work tree), failed these:\n\n", mdCode(g.Command))
	} else {
		b.WriteString("Failing cases:\n\n")
	}
	for _, f := range failures {
		fmt.Fprintf(&b, "- %s (%s): %s\n", mdCode(f.ID), mdCode(f.Reason), mdText(f.Message))
	}
	var replay strings.Builder
	if t.PR != nil && t.PR.Branch != "" {
		fmt.Fprintf(&replay, "%s && git checkout FETCH_HEAD\n", outcome.Command("git", "fetch", t.Remote, t.PR.Branch))
	}
	for _, f := range failures {
		if f.Replay != "" && !strings.ContainsAny(f.Replay, "\n\r") {
			fmt.Fprintf(&replay, "%s\n", f.Replay)
		}
	}
	b.WriteString("\nReplay:\n\n" + mdFence(replay.String(), "sh"))
	return b.String()
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func ownersText(owners []string) string {
	if len(owners) == 0 {
		return "the adapter's owners (none declared: add adapters.<name>.owners to cassette.yaml)"
	}
	return strings.Join(owners, ", ")
}
