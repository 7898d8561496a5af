package speccheck

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// Coverage checks coverage.json in dir (written by `cassette coverage`,
// beside the run's summary.json): one JSON object whose exit_code and
// reason_code are summary.json's (specs/002 §4: one run, one exit code in
// every file); covered and observed the counts of its adapters' shapes,
// percent their ratio to one decimal (100 with nothing observed); and
// every uncovered shape of a failing adapter with the command that
// records it (§7: a next step that is a command).
func Coverage(dir string) []string {
	c := &checker{dir: dir}
	const f = "coverage.json"
	cov := c.object("coverage", f)
	sum := c.object("002 §3", "summary.json")
	if cov == nil || sum == nil {
		return c.probs
	}
	if !isInt(cov["exit_code"]) || num(cov["exit_code"]) != num(sum["exit_code"]) {
		c.bad("002 §4", f, "exit_code %v, summary.json %v", cov["exit_code"], sum["exit_code"])
	}
	if str(cov["reason_code"]) != str(sum["reason_code"]) {
		c.bad("002 §4", f, "reason_code %q, summary.json %q", str(cov["reason_code"]), str(sum["reason_code"]))
	}
	adapters, ok := cov["adapters"].([]any)
	if !ok {
		c.bad("coverage", f, "adapters is %T, expected a list", cov["adapters"])
		return c.probs
	}
	covered, observed := 0, 0
	for i, a := range adapters {
		ad := obj(a)
		shapes, _ := ad["shapes"].([]any)
		failing := str(ad["status"]) == "fail" || str(ad["status"]) == "unrecorded"
		for j, s := range shapes {
			sh := obj(s)
			observed++
			if sh["covered"] == true {
				covered++
			} else if failing && !strings.HasPrefix(str(sh["record"]), "cassette record ") {
				c.bad("002 §7", f, "adapters[%d].shapes[%d] is uncovered in a failing adapter and has no record command", i, j)
			}
		}
	}
	if num(cov["covered"]) != covered || num(cov["observed"]) != observed {
		c.bad("coverage", f, "covered %v of %v, its adapters hold %d of %d", cov["covered"], cov["observed"], covered, observed)
	}
	want := 100.0
	if observed > 0 {
		want = float64(int(1000*float64(covered)/float64(observed)+0.5)) / 10
	}
	if p, _ := cov["percent"].(float64); p != want {
		c.bad("coverage", f, "percent %v, its counts give %v", cov["percent"], want)
	}
	if m, ok := cov["modelled"]; ok {
		c.coverageModelled(f, obj(m), num(cov["exit_code"]))
	}
	return c.probs
}

// coverageModelled checks coverage.json's modelled figure (#34: coverage
// runs no fake, and shows the latest verify run's): a note that says
// where it comes from, or, with no verify run, the command to run; each
// adapter's percent its modelled share of the fields; one below its min
// fails the run.
func (c *checker) coverageModelled(f string, m map[string]any, exit int) {
	found, ok := m["found"].(bool)
	if !ok || str(m["summary"]) == "" || str(m["note"]) == "" {
		c.bad("coverage", f, "modelled needs found (a boolean), summary and note: %v", m)
		return
	}
	if !found && !strings.Contains(str(m["note"]), "run `cassette verify`") {
		c.bad("002 §7", f, "modelled.note %q: with no verify run it names the command to run", str(m["note"]))
	}
	adapters, _ := m["adapters"].([]any)
	if !found && len(adapters) > 0 {
		c.bad("coverage", f, "modelled holds %d adapters' figures and no verify run", len(adapters))
	}
	for i, a := range adapters {
		ad := obj(a)
		fields, modelled := num(ad["fields"]), num(ad["modelled"])
		want := 100.0
		if fields > 0 {
			want = 100 * float64(modelled) / float64(fields)
		}
		p, _ := ad["percent"].(float64)
		if p < want-0.051 || p > want+0.051 { // percent is rounded to 0.1
			c.bad("coverage", f, "modelled.adapters[%d] percent %v, its %d of %d fields give %v", i, ad["percent"], modelled, fields, want)
		}
		if min, ok := ad["min"].(float64); ok && p < min && exit != 1 && exit < 2 {
			c.bad("002 §4", f, "modelled.adapters[%d] is below its min %v, and the run exits %d", i, min, exit)
		}
	}
}

// CheckStream checks what `cassette check` wrote on stdout, the harness
// protocol's answer stream: one JSON object per line, each of a known
// type; the last one the summary, with every key the protocol names
// ("reason" too when the run passed: summary.json's reason_code, ""),
// counts that add up, and — when dir holds the run's reports — the exit
// code and reason of summary.json and the process's exit code.
func CheckStream(stdout string, exit int, dir string) []string {
	c := &checker{dir: dir}
	const f = "check stdout"
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	var last map[string]any
	for i, ln := range lines {
		var m map[string]any
		dec := json.NewDecoder(strings.NewReader(ln))
		if err := dec.Decode(&m); err != nil || dec.More() {
			c.bad("harness", f, "line %d is not one JSON object: %.120q", i+1, ln)
			return c.probs
		}
		switch t := str(m["type"]); t {
		case "result", "error", "request":
		case "summary":
			if i != len(lines)-1 {
				c.bad("harness", f, "line %d is a summary, and not the last line", i+1)
			}
		default:
			c.bad("harness", f, "line %d has type %q", i+1, t)
		}
		last = m
	}
	if str(last["type"]) != "summary" {
		c.bad("harness", f, "the last line is not the summary")
		return c.probs
	}
	for _, k := range []string{"protocol", "checked", "passed", "failed", "quarantined", "problems", "exit_code", "reason"} {
		if _, ok := last[k]; !ok {
			c.bad("harness", f, "the summary has no %q key", k)
		}
	}
	if n := num(last["passed"]) + num(last["failed"]) + num(last["quarantined"]); n != num(last["checked"]) {
		c.bad("harness", f, "passed+failed+quarantined = %d, checked %v", n, last["checked"])
	}
	if num(last["exit_code"]) != exit {
		c.bad("002 §4", f, "the summary says exit_code %v, the process exited %d", last["exit_code"], exit)
	}
	if dir == "" {
		return c.probs
	}
	if _, err := os.Stat(filepath.Join(dir, "summary.json")); err != nil {
		c.bad("002 §3", f, "no summary.json in %s: %v", dir, err)
		return c.probs
	}
	sum := c.object("002 §3", "summary.json")
	if sum == nil {
		return c.probs
	}
	if num(last["exit_code"]) != num(sum["exit_code"]) || str(last["reason"]) != str(sum["reason_code"]) {
		c.bad("002 §4", f, "the summary says %v %q, summary.json %v %q", last["exit_code"], str(last["reason"]), sum["exit_code"], str(sum["reason_code"]))
	}
	return c.probs
}

// NoSecret checks that no file under the given roots, and none of the
// texts (a command's stdout, stderr, job summary), holds any of the
// secret values (000: credential redaction): the reports, the bundle and
// what was printed alike.
func NoSecret(secrets []string, texts map[string]string, roots ...string) []string {
	c := &checker{}
	for _, s := range secrets {
		for name, t := range texts {
			if strings.Contains(t, s) {
				c.bad("000 redaction", name, "holds a credential value")
			}
		}
		for _, root := range roots {
			_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return nil
				}
				if data, err := os.ReadFile(p); err == nil && bytes.Contains(data, []byte(s)) {
					c.bad("000 redaction", p, "holds a credential value")
				}
				return nil
			})
		}
	}
	return c.probs
}

// NoEmptyDir checks that no directory under root (nor root itself, when
// it exists) is empty: a bundle is written whole or not at all.
func NoEmptyDir(root string) []string {
	c := &checker{}
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if ents, err := os.ReadDir(p); err == nil && len(ents) == 0 {
			c.bad("004", p, "an empty directory: a bundle is written whole or not at all")
		}
		return nil
	})
	return c.probs
}
