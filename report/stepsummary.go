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
// file is per step and appended to, never truncated. An empty path does
// nothing. The text is secret-scanned like every report file.
func AppendStepSummary(path string, run *Run, links Links, opts Options) error {
	if path == "" {
		return nil
	}
	md := StepSummary(run, links)
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
// class and a link to the cassette line) and each case's drifts in a
// collapsed block. It stays under StepSummaryLimit.
func StepSummary(run *Run, links Links) []byte {
	for _, withDiffs := range []bool{true, false} {
		md := run.stepSummary(links, withDiffs)
		if len(md) <= StepSummaryLimit || !withDiffs {
			if len(md) > StepSummaryLimit {
				md = append(md[:StepSummaryLimit-200:StepSummaryLimit-200], "\n\n(cut to GitHub's 1 MiB step summary limit: see report.html)\n"...)
			}
			return md
		}
	}
	return nil
}

// stepSummary writes the summary's sections in order: the outcome, the
// counts, the next step, the run-level error, the table of the cases that
// did not pass and each one's drifts.
func (r *Run) stepSummary(links Links, withDiffs bool) []byte {
	var b strings.Builder
	failing := r.notPassed()
	if r.Coverage != nil {
		failing = nil // the coverage section lists them, with their record commands
	}
	for _, section := range []func(*strings.Builder){
		r.mdOutcome,
		r.mdCounts,
		r.mdRunError,
		func(b *strings.Builder) { r.mdCoverage(b, links) },
		func(b *strings.Builder) { r.mdCaseTable(b, failing, links) },
		func(b *strings.Builder) { r.mdCaseDetails(b, failing, withDiffs) },
	} {
		section(&b)
	}
	return []byte(b.String())
}

// notPassed are the cases that neither passed nor were skipped, in report
// order.
func (r *Run) notPassed() []*Case {
	var failing []*Case
	for _, c := range r.sortedCases() {
		if c.Status != StatusPass && c.Status != StatusSkipped {
			failing = append(failing, c)
		}
	}
	return failing
}

func (r *Run) mdOutcome(b *strings.Builder) {
	verdict := "passed"
	if r.Exit() != 0 {
		verdict = fmt.Sprintf("failed (exit %d, %s)", int(r.Exit()), r.Reason())
	}
	fmt.Fprintf(b, "### cassette %s: %s\n\n%s\n\n", r.command(), verdict, mdText(r.Message()))
}

// mdCounts is report.html's summary bar as a table, then the next step.
func (r *Run) mdCounts(b *strings.Builder) {
	bar := r.htmlBar()
	for _, c := range bar {
		fmt.Fprintf(b, "| %s ", c.Label)
	}
	b.WriteString("|\n")
	for range bar {
		b.WriteString("|---:")
	}
	b.WriteString("|\n")
	for _, c := range bar {
		fmt.Fprintf(b, "| %d ", c.N)
	}
	b.WriteString("|\n\n")
	if ns := r.NextStepCommand(); ns != "" {
		fmt.Fprintf(b, "**Next step:** <code>%s</code>\n\n", html.EscapeString(ns))
	}
}

func (r *Run) mdRunError(b *strings.Builder) {
	e := r.Err
	if e == nil {
		return
	}
	fmt.Fprintf(b, "**Run error** <code>%s</code>: %s\n\n", html.EscapeString(string(r.Reason())), mdText(firstLine(e.Message)))
	for _, p := range e.Problems {
		fmt.Fprintf(b, "- %s\n", mdText(p.String()))
	}
	if len(e.Problems) > 0 {
		b.WriteString("\n")
	}
}

// mdCaseTable is one row per case that did not pass: its status, drift
// classes and a link to the cassette line.
func (r *Run) mdCaseTable(b *strings.Builder, failing []*Case, links Links) {
	if len(failing) == 0 {
		return
	}
	b.WriteString("| case | status | drift class | cassette |\n|---|---|---|---|\n")
	for _, c := range failing {
		status := string(c.Status)
		if c.failed() {
			status += " (" + string(c.reason(r.now())) + ")"
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
		loc := c.CassettePath
		if line > 0 {
			loc = fmt.Sprintf("%s:%d", loc, line)
		}
		cell := "<code>" + html.EscapeString(loc) + "</code>"
		if u := links.url(c.CassettePath, line); u != "" {
			cell = "[" + cell + "](" + u + ")"
		}
		fmt.Fprintf(b, "| <code>%s</code> | %s | %s | %s |\n", html.EscapeString(c.ID()), mdText(status), mdText(strings.Join(classes, ", ")), cell)
	}
	b.WriteString("\n")
}

// mdCaseDetails is a collapsed block per case that did not pass: its
// drifts (with their diffs, unless withDiffs is off) and its replay.
func (r *Run) mdCaseDetails(b *strings.Builder, failing []*Case, withDiffs bool) {
	for _, c := range failing {
		fmt.Fprintf(b, "<details><summary><code>%s</code>: %s</summary>\n\n", html.EscapeString(c.ID()), mdText(firstLine(cmp.Or(c.Message, string(c.Status)))))
		for _, d := range c.Drifts {
			fmt.Fprintf(b, "- **%s** %s\n", html.EscapeString(d.Class), mdText(driftOnce(d)))
			if withDiffs && d.Diff != "" {
				fence := "```"
				for strings.Contains(d.Diff, fence) {
					fence += "`"
				}
				fmt.Fprintf(b, "\n%sdiff\n%s\n%s\n\n", fence, strings.TrimRight(d.Diff, "\n"), fence)
			}
		}
		fmt.Fprintf(b, "\nReproduce: <code>%s</code>\n\n</details>\n\n", html.EscapeString(r.digest(c).ReplayCase))
	}
}

// mdText escapes text for a Markdown paragraph: no HTML, no emphasis, no
// links of its own.
func mdText(s string) string {
	s = html.EscapeString(s)
	return strings.NewReplacer("\\", "\\\\", "*", "\\*", "_", "\\_", "`", "\\`", "[", "\\[", "]", "\\]", "|", "\\|", "\n", " ").Replace(s)
}
