package speccheck

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

var (
	seedsLine = regexp.MustCompile(`(?m)^Seeds: seed_version=(\S+) order_seed=(\S+) judge_seed=(\S+)$`)
	nextLine  = regexp.MustCompile(`(?m)^(?:next|next step):\s+(.+)$`)
	errorLine = regexp.MustCompile(`(?m)^error\[([A-Z0-9_]+)\]:`)
)

// Console checks what a command printed against the summary.json it wrote
// in dir: exactly one line "Seeds: seed_version=… order_seed=… judge_seed=…"
// with summary.json's seeds (specs/002 §3.3.1: "CLI console SHALL print
// one line"); the process exit code equal to summary.json's exit_code
// (§4); and on a non-zero exit exactly one line giving summary.json's
// next_step as a command (§7: "next: CMD" or "next step: CMD") and exactly
// one "error[REASON]:" line, on stderr, with its reason_code (docs/reference/exit-codes.md); on exit 0 no error line.
func Console(dir string, exit int, stdout, stderr string) []string {
	c := &checker{dir: dir}
	const f = "console"
	sum := c.object("002 §3", "summary.json")
	if sum == nil {
		return c.probs
	}
	out := stdout + "\n" + stderr
	lines := seedsLine.FindAllStringSubmatch(out, -1)
	if len(lines) != 1 {
		c.bad("002 §3.3.1", f, "%d Seeds: lines, expected exactly one", len(lines))
	}
	if len(lines) > 0 {
		seeds := obj(sum["seeds"])
		show := func(v any) string {
			if v == nil {
				return "null"
			}
			return fmt.Sprint(v)
		}
		for i, k := range []string{"seed_version", "order_seed", "judge_seed"} {
			if got, want := lines[0][i+1], show(seeds[k]); got != want {
				c.bad("002 §3.3.1", f, "Seeds line says %s=%s, summary.json %s", k, got, want)
			}
		}
	}
	if want := num(sum["exit_code"]); exit != want {
		c.bad("002 §4", f, "the process exited %d, summary.json says %d", exit, want)
	}
	errs := errorLine.FindAllStringSubmatch(out, -1)
	if exit == 0 {
		if len(errs) > 0 {
			c.bad("002 §5", f, "the run passed, and the console has an error[%s]: line", errs[0][1])
		}
		return c.probs
	}
	ns := strings.TrimPrefix(str(sum["next_step"]), "Run: ")
	nexts := nextLine.FindAllStringSubmatch(out, -1)
	switch {
	case len(nexts) != 1:
		c.bad("002 §7", f, "%d next step lines, expected exactly one (%q)", len(nexts), ns)
	case strings.TrimPrefix(strings.TrimSpace(nexts[0][1]), "Run: ") != ns:
		c.bad("002 §7", f, "the console's next step %q is not summary.json's %q", strings.TrimSpace(nexts[0][1]), ns)
	}
	rc := str(sum["reason_code"])
	if m := errorLine.FindStringSubmatch(stderr); m == nil || m[1] != rc {
		c.bad("002 §5", f, "stderr has no error[%s]: line", rc)
	}
	if len(errs) != 1 {
		c.bad("002 §5", f, "%d error[…] lines, expected exactly one", len(errs))
	}
	return c.probs
}

// ConsoleOnly checks the console of a run that writes no report files
// (record, import, merge without --out): exactly one Seeds line (specs/002
// §3.3.1: every run); on a non-zero exit exactly one "error[REASON]:" line,
// on stderr, and exactly one next step line (§7); on exit 0 no error line.
func ConsoleOnly(exit int, stdout, stderr string) []string {
	c := &checker{}
	const f = "console"
	out := stdout + "\n" + stderr
	if n := len(seedsLine.FindAllString(out, -1)); n != 1 {
		c.bad("002 §3.3.1", f, "%d Seeds: lines, expected exactly one", n)
	}
	errs := errorLine.FindAllStringSubmatch(out, -1)
	if exit == 0 {
		if len(errs) > 0 {
			c.bad("002 §5", f, "the run passed, and the console has an error[%s]: line", errs[0][1])
		}
		return c.probs
	}
	if n := len(nextLine.FindAllString(out, -1)); n != 1 {
		c.bad("002 §7", f, "%d next step lines, expected exactly one", n)
	}
	if len(errs) != 1 || errorLine.FindStringSubmatch(stderr) == nil {
		c.bad("002 §5", f, "%d error[…] lines (stderr: %v), expected exactly one, on stderr", len(errs), errorLine.MatchString(stderr))
	}
	return c.probs
}

// Same checks that two report directories written by two runs over the
// same inputs in golden mode hold byte-identical report files (specs/001
// §10: "logically equivalent runs are diff-stable"), wherever they were
// written. Subdirectories (the fakes' own logs) are not reports.
func Same(a, b string) []string {
	c := &checker{dir: a}
	files := func(dir string) map[string][]byte {
		out := map[string][]byte{}
		entries, err := os.ReadDir(dir)
		if err != nil {
			c.bad("001 §10", dir, "cannot read: %v", err)
		}
		for _, e := range entries {
			if e.Type().IsRegular() {
				out[e.Name()], _ = os.ReadFile(filepath.Join(dir, e.Name()))
			}
		}
		return out
	}
	fa, fb := files(a), files(b)
	if head, _, _ := bytes.Cut(fa["report.jsonl"], []byte("\n")); !bytes.Contains(head, []byte(`"mode":"golden"`)) {
		c.bad("001 §10", "report.jsonl", "%s was not written in golden mode", a)
	}
	for name, data := range fa {
		other, ok := fb[name]
		switch {
		case !ok:
			c.bad("001 §10", name, "written in %s, not in %s", a, b)
		case !bytes.Equal(data, other):
			c.bad("001 §10", name, "differs between two golden runs (%s)", firstDiff(data, other))
		}
	}
	for name := range fb {
		if _, ok := fa[name]; !ok {
			c.bad("001 §10", name, "written in %s, not in %s", b, a)
		}
	}
	return c.probs
}

// firstDiff describes where two byte strings first differ: the line and
// both texts of it.
func firstDiff(a, b []byte) string {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := 0; i < len(la) && i < len(lb); i++ {
		if !bytes.Equal(la[i], lb[i]) {
			return fmt.Sprintf("line %d: %.160q vs %.160q", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("%d vs %d lines", len(la), len(lb))
}

// GitHub's job-summary limit: a step's summary over 1 MiB is not shown at
// all ("$GITHUB_STEP_SUMMARY upload aborted, supports content up to a size
// of 1024k").
const stepSummaryLimit = 1 << 20

var (
	mdLink      = regexp.MustCompile(`\]\(`)
	detailsOpen = regexp.MustCompile(`<details[\s>]`) // <details> and <details open>
)

// StepSummary checks the job summary file a step wrote (path, as
// GITHUB_STEP_SUMMARY named it), of which the first before bytes were
// there before the command ran, against the run's summary.json in dir:
// the whole file within GitHub's 1 MiB; something appended, naming the
// run's reason code when it failed; every Markdown link, <code> span and
// <details> block of the appended text whole (a summary cut to the limit
// must not break one); and, when summary.json counts quarantined failures
// (results.warned), a section of its own for them (specs/000: "reported in
// a separate CI summary section").
func StepSummary(path string, before int64, dir string) []string {
	c := &checker{dir: dir}
	const f = "GITHUB_STEP_SUMMARY"
	data, err := os.ReadFile(path)
	if err != nil {
		c.bad("GitHub", f, "cannot read the job summary: %v", err)
		return c.probs
	}
	if len(data) > stepSummaryLimit {
		c.bad("GitHub", f, "%d bytes, over GitHub's 1 MiB step summary limit", len(data))
	}
	if int64(len(data)) <= before {
		c.bad("GitHub", f, "the command appended nothing to the job summary")
		return c.probs
	}
	md := string(data[before:])
	for i, ln := range strings.Split(md, "\n") {
		for _, loc := range mdLink.FindAllStringIndex(ln, -1) {
			if !strings.Contains(ln[loc[1]:], ")") {
				c.bad("GitHub", f, "appended line %d: a link is cut: %.120q", i+1, ln)
			}
		}
		if strings.Count(ln, "<code>") != strings.Count(ln, "</code>") {
			c.bad("GitHub", f, "appended line %d: a <code> span is cut: %.120q", i+1, ln)
		}
	}
	if opened := len(detailsOpen.FindAllString(md, -1)); opened != strings.Count(md, "</details>") {
		c.bad("GitHub", f, "%d <details> for %d </details>", opened, strings.Count(md, "</details>"))
	}
	sum := c.object("002 §3", "summary.json")
	if sum == nil {
		return c.probs
	}
	if rc := str(sum["reason_code"]); rc != "" && !strings.Contains(md, rc) && !strings.Contains(md, strings.ReplaceAll(rc, "_", `\_`)) {
		c.bad("GitHub", f, "the job summary does not name the run's reason code %s", rc)
	}
	if num(obj(sum["results"])["warned"]) > 0 && !regexp.MustCompile(`(?mi)^#+ .*quarantin`).MatchString(md) {
		c.bad("000 quarantine", f, "%v quarantined failures, but no job-summary section of their own", obj(sum["results"])["warned"])
	}
	return c.probs
}
