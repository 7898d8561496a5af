package report

import (
	"cmp"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// StepSummaryLimit is the most bytes one step may write to its job summary:
// GitHub refuses a step summary over 1 MiB ("$GITHUB_STEP_SUMMARY upload
// aborted, supports content up to a size of 1024k") and then shows none of
// it. The summary drops its collapsed diffs first to stay under it.
const StepSummaryLimit = 1 << 20

// Links says where a cassette line is on the forge, from the variables
// GitHub Actions sets (GITHUB_SERVER_URL, GITHUB_REPOSITORY, GITHUB_SHA).
// With any of them empty, locations are written as plain text.
type Links struct {
	ServerURL, Repository, SHA string
}

// GitHubLinks are the links of the variables GitHub Actions sets, as
// getenv (os.Getenv) reads them.
func GitHubLinks(getenv func(string) string) Links {
	return Links{ServerURL: getenv("GITHUB_SERVER_URL"), Repository: getenv("GITHUB_REPOSITORY"), SHA: getenv("GITHUB_SHA")}
}

// url is the forge address of a line of the file at path. Each segment
// of the path is percent-encoded: a file name holding a space, a ')' or a
// '#' cannot end the Markdown link or point it elsewhere.
func (l Links) url(path string, line int) string {
	if l.ServerURL == "" || l.Repository == "" || l.SHA == "" || path == "" {
		return ""
	}
	segs := strings.Split(filepath.ToSlash(path), "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	u := strings.TrimRight(l.ServerURL, "/") + "/" + l.Repository + "/blob/" + url.PathEscape(l.SHA) + "/" + strings.Join(segs, "/")
	if line > 0 {
		u += fmt.Sprintf("#L%d", line)
	}
	return u
}

// AppendStepSummary appends the run's Markdown summary to the file that
// GITHUB_STEP_SUMMARY names (path), as GitHub's job summaries expect: the
// file is per step and appended to, never truncated. The 1 MiB GitHub
// allows a step counts what the step already wrote there (an earlier
// command of the same step), so the summary is fitted into what is left;
// when nothing useful fits, nothing is appended. An empty path does
// nothing. The text is secret-scanned like every report file.
func AppendStepSummary(path string, run *Run, links Links, opts Options) error {
	if path == "" {
		return nil
	}
	used := int64(0)
	if fi, err := os.Stat(path); err == nil {
		used = fi.Size()
	}
	md := stepSummaryWithin(run, links, StepSummaryLimit-int(min(used, StepSummaryLimit)))
	if len(md) == 0 {
		return nil
	}
	if err := scan(path, run, map[string][]byte{"GITHUB_STEP_SUMMARY": md}, opts.Declared); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("its directory does not exist: %w", err)
		}
		return ioError(path, err)
	}
	_, err = f.Write(md)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return ioError(path, err)
	}
	return nil
}

// StepSummary renders the run as GitHub-flavored Markdown: the outcome and
// counts, the next step, a table of the cases that did not pass (drift
// class and a link to the cassette line), the quarantined failures in a
// section of their own, and each case's drifts in a collapsed block. It
// stays under StepSummaryLimit.
func StepSummary(run *Run, links Links) []byte {
	return stepSummaryWithin(run, links, StepSummaryLimit)
}

// stepCutNote ends a summary that had to be cut.
const stepCutNote = "\n\n(cut to GitHub's 1 MiB step summary limit: see report.html)\n"

// stepSummaryWithin renders the summary in at most budget bytes: whole, or
// without the diffs, or cut after the last whole block that fits (a
// table row, a problem line, a case's collapsed block: never inside a link,
// a tag or a code block) followed by a note. It returns nil when not even
// the outcome fits.
func stepSummaryWithin(run *Run, links Links, budget int) []byte {
	var blocks []string
	for _, withDiffs := range []bool{true, false} {
		blocks = run.stepSummary(links, withDiffs)
		if n := blocksLen(blocks); n <= budget {
			return []byte(strings.Join(blocks, ""))
		}
	}
	var b strings.Builder
	for _, bl := range blocks {
		if b.Len()+len(bl)+len(stepCutNote) > budget {
			break
		}
		b.WriteString(bl)
	}
	if b.Len() == 0 {
		return nil
	}
	b.WriteString(stepCutNote)
	return []byte(b.String())
}

func blocksLen(blocks []string) int {
	n := 0
	for _, b := range blocks {
		n += len(b)
	}
	return n
}

// stepSummary renders the summary's sections in order as blocks, each of
// which can be left out of a summary without breaking the Markdown before
// it: the outcome, the counts and next step, the run-level error, the
// table of the cases that did not pass, the quarantined failures and each
// failing case's drifts.
func (r *Run) stepSummary(links Links, withDiffs bool) []string {
	var md mdBlocks
	failing := r.notPassed()
	if r.Coverage != nil {
		failing = nil // the coverage section lists them, with their record commands
	}
	for _, section := range []func(*mdBlocks){
		r.mdOutcome,
		r.mdCounts,
		r.mdRunError,
		func(b *mdBlocks) { r.mdCoverage(b, links) },
		r.mdModelled, // modelled.go
		func(b *mdBlocks) { r.mdCaseTable(b, failing, links) },
		r.mdQuarantine,
		func(b *mdBlocks) { r.mdCaseDetails(b, failing, withDiffs) },
	} {
		section(&md)
	}
	return md.blocks
}

// mdBlocks collects a summary as blocks: Printf writes into the current
// block, Next ends it.
type mdBlocks struct {
	blocks []string
	cur    strings.Builder
}

func (m *mdBlocks) Printf(format string, args ...any) { fmt.Fprintf(&m.cur, format, args...) }

func (m *mdBlocks) WriteString(s string) { m.cur.WriteString(s) }

// Next ends the current block.
func (m *mdBlocks) Next() {
	if m.cur.Len() > 0 {
		m.blocks = append(m.blocks, m.cur.String())
		m.cur.Reset()
	}
}

// notPassed are the cases that neither passed nor were skipped, in report
// order.
func (r *Run) notPassed() []*verdict.Case {
	var failing []*verdict.Case
	for _, c := range r.sortedCases() {
		if c.Status != verdict.StatusPass && c.Status != verdict.StatusSkipped {
			failing = append(failing, c)
		}
	}
	return failing
}

func (r *Run) mdOutcome(b *mdBlocks) {
	verdict := "passed"
	if r.Exit() != 0 {
		verdict = fmt.Sprintf("failed (exit %d, %s)", int(r.Exit()), r.Reason())
	}
	b.Printf("### cassette %s: %s\n\n%s\n\n", r.command(), verdict, mdText(r.Message()))
	b.Next()
}

// mdCounts is report.html's summary bar as a table, then the next step.
func (r *Run) mdCounts(b *mdBlocks) {
	bar := r.htmlBar()
	for _, c := range bar {
		b.Printf("| %s ", c.Label)
	}
	b.WriteString("|\n")
	for range bar {
		b.WriteString("|---:")
	}
	b.WriteString("|\n")
	for _, c := range bar {
		b.Printf("| %d ", c.N)
	}
	b.WriteString("|\n\n")
	b.Next()
	if ns := r.NextStepCommand(); ns != "" {
		b.Printf("**Next step:** <code>%s</code>\n\n", html.EscapeString(ns))
		b.Next()
	}
}

func (r *Run) mdRunError(b *mdBlocks) {
	e := r.Err
	if e == nil {
		return
	}
	b.Printf("**Run error** <code>%s</code>: %s\n\n", html.EscapeString(string(r.Reason())), mdText(firstLine(e.Message)))
	b.Next()
	for _, p := range e.Problems {
		b.Printf("- %s\n", mdText(p.String()))
		b.Next()
	}
	if len(e.Problems) > 0 {
		b.WriteString("\n")
		b.Next()
	}
}

// mdCaseTable is one row per case that did not pass: its status, drift
// classes and a link to the cassette line.
func (r *Run) mdCaseTable(b *mdBlocks, failing []*verdict.Case, links Links) {
	if len(failing) == 0 {
		return
	}
	b.WriteString("| case | status | drift class | cassette |\n|---|---|---|---|\n")
	b.Next()
	for _, c := range failing {
		status := string(c.Status)
		if c.Failed() {
			status += " (" + string(c.ReasonAt(r.now())) + ")"
			if c.Quarantined(r.now()) {
				status += ", quarantined"
			}
		}
		var classes []string
		line := 0
		for _, d := range c.Drifts {
			if !slices.Contains(classes, d.Class) {
				classes = append(classes, d.Class)
			}
			if line == 0 {
				line = d.Line
			}
		}
		b.Printf("| <code>%s</code> | %s | %s | %s |\n", html.EscapeString(c.ID()), mdText(status), mdText(strings.Join(classes, ", ")), mdCassette(c, line, links))
		b.Next()
	}
	b.WriteString("\n")
	b.Next()
}

// mdCassette is a case's cassette location, linked to its line on the
// forge when the links are known.
func mdCassette(c *verdict.Case, line int, links Links) string {
	loc := c.CassettePath
	if line > 0 {
		loc = fmt.Sprintf("%s:%d", loc, line)
	}
	cell := "<code>" + html.EscapeString(loc) + "</code>"
	if u := links.url(c.CassettePath, line); u != "" {
		cell = "[" + cell + "](" + u + ")"
	}
	return cell
}

// mdQuarantine is the section of the quarantined failures (specs/000:
// "reported in a separate CI summary section"): each one with its
// category, owner, expiry, tracking issue, and whether its retry failed
// too. They do not fail the run.
func (r *Run) mdQuarantine(b *mdBlocks) {
	var quar []*verdict.Case
	for _, c := range r.sortedCases() {
		if c.Quarantined(r.now()) && (c.Failed() || len(c.Retries) > 0) {
			quar = append(quar, c)
		}
	}
	if len(quar) == 0 {
		return
	}
	b.Printf("#### Quarantined (not blocking): %d\n\n| case | outcome | category | owner | expires | issue |\n|---|---|---|---|---|---|\n", len(quar))
	b.Next()
	for _, c := range quar {
		q := c.Quarantine
		b.Printf("| <code>%s</code> | %s | %s | %s | %s | %s |\n", html.EscapeString(c.ID()), mdText(quarantineOutcome(c)),
			mdText(q.Category), mdText(q.Owner), q.Expires.UTC().Format("2006-01-02"), mdText(q.Issue))
		b.Next()
	}
	b.WriteString("\n")
	b.Next()
}

// quarantineOutcome words what happened to a quarantined case that failed:
// its last outcome and its retries.
func quarantineOutcome(c *verdict.Case) string {
	out := string(c.Status)
	if c.Reason != "" && c.Failed() {
		out += " (" + string(c.Reason) + ")"
	}
	switch n := len(c.Retries); {
	case n == 0:
		out += ", not retried"
	case c.Failed():
		out += fmt.Sprintf(" again after %d retry(ies) (%d ms apart)", n, c.Retries[n-1].DelayMS)
	default:
		out = fmt.Sprintf("passed on retry %d after failing (%s)", n, c.Retries[0].Status)
	}
	return out
}

// mdCaseDetails is a collapsed block per case that did not pass: its
// drifts (with their diffs, unless withDiffs is off) and its replay.
func (r *Run) mdCaseDetails(b *mdBlocks, failing []*verdict.Case, withDiffs bool) {
	for _, c := range failing {
		b.Printf("<details><summary><code>%s</code>: %s</summary>\n\n", html.EscapeString(c.ID()), mdText(firstLine(cmp.Or(c.Message, string(c.Status)))))
		for _, d := range c.Drifts {
			b.Printf("- **%s** %s\n", html.EscapeString(d.Class), mdText(driftOnce(d)))
			if withDiffs && d.Diff != "" {
				diff := outcome.PrintableText(strings.TrimRight(d.Diff, "\n")) // a terminal escape in a cassette shows as \x1b
				fence := "```"
				for strings.Contains(diff, fence) {
					fence += "`"
				}
				b.Printf("\n%sdiff\n%s\n%s\n\n", fence, diff, fence)
			}
		}
		b.Printf("\nReproduce: <code>%s</code>\n\n</details>\n\n", html.EscapeString(r.digest(c).ReplayCase))
		b.Next()
	}
}

// mdText escapes text for a Markdown paragraph: no HTML, no emphasis, no
// links of its own.
func mdText(s string) string {
	s = html.EscapeString(outcome.PrintableText(s))
	return strings.NewReplacer("\\", "\\\\", "*", "\\*", "_", "\\_", "`", "\\`", "[", "\\[", "]", "\\]", "|", "\\|", "\n", " ").Replace(s)
}
