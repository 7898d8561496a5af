package speccheck

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// GitHub's documented code-scanning limits.
const (
	ghMaxGzipBytes        = 10 << 20
	ghMaxResultsPerRun    = 25000
	ghMaxRulesPerRun      = 25000
	ghMaxLocationsPerRslt = 10
	documentedLimit       = 5000 // README.md: results kept before truncation
)

const sarifJSON = "sarif.json"

// sarif checks sarif.json against the official schema, specs/002 §6 and
// GitHub's code-scanning requirements: the upload limit, the log's
// version, and each run.
func (c *checker) sarif(sum map[string]any) {
	const f = sarifJSON
	data := c.read(f)
	if data == nil {
		return
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	zw.Close()
	if gz.Len() > ghMaxGzipBytes {
		c.bad("GitHub", f, "%d bytes gzipped, over the 10 MB upload limit", gz.Len())
	}
	if c.opts.Shared != "" {
		comp := jsonschema.NewCompiler()
		sch, err := comp.Compile(filepath.Join(c.opts.Shared, "schemas", "sarif-schema-2.1.0.json"))
		if err == nil {
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
			if err == nil {
				err = sch.Validate(inst)
			}
			if err != nil {
				c.bad("002 §6.1", f, "not valid SARIF 2.1.0: %v", err)
			}
		}
	}
	var log map[string]any
	if err := json.Unmarshal(data, &log); err != nil {
		c.bad("002 §6", f, "not JSON: %v", err)
		return
	}
	if log["version"] != "2.1.0" || !strings.Contains(str(log["$schema"]), "sarif-schema-2.1.0.json") {
		c.bad("002 §6.1", f, "version %v / $schema %v", log["version"], log["$schema"])
	}
	runs, _ := log["runs"].([]any)
	if len(runs) == 0 {
		c.bad("002 §6", f, "no runs")
		return
	}
	for ri, rv := range runs {
		run := obj(rv)
		driver := obj(obj(run["tool"])["driver"])
		if str(driver["name"]) == "" {
			c.bad("GitHub", f, "runs[%d].tool.driver.name is empty", ri)
		}
		if str(obj(run["automationDetails"])["id"]) == "" {
			c.bad("GitHub", f, "runs[%d].automationDetails.id is missing (runs of different commands need their own category)", ri)
		}
		ruleIDs := c.sarifRules(driver)
		results, _ := run["results"].([]any)
		if len(results) > ghMaxResultsPerRun || len(results) > documentedLimit {
			c.bad("002 §6.3", f, "%d results: over the documented limit %d", len(results), documentedLimit)
		}
		for i, rv := range results {
			c.sarifResult(fmt.Sprintf("runs[%d].results[%d]", ri, i), obj(rv), ruleIDs)
		}
		c.sarifTruncation(run, sum)
		c.sarifSeverity(ri, run, results, sum)
	}
}

// severityRank orders SARIF levels as 002 §6.3 keeps them: errors first.
var severityRank = map[string]int{"error": 0, "warning": 1, "note": 2, "none": 3}

// sarifSeverity checks the levels against the run (002 §6.4: Fail/Error →
// error, Warn/Flaky → warning): a run that failed (exit 1) has an error
// result, one that passed none; a truncated run kept its results errors
// first, then warnings, then notes (002 §6.3).
func (c *checker) sarifSeverity(ri int, run map[string]any, results []any, sum map[string]any) {
	const f = sarifJSON
	errs := 0
	for _, rv := range results {
		if str(obj(rv)["level"]) == "error" {
			errs++
		}
	}
	if sum != nil {
		switch exit := num(sum["exit_code"]); {
		case exit == 0 && errs > 0:
			c.bad("002 §6.4", f, "runs[%d]: the run passed, and %d results are errors", ri, errs)
		case exit == 1 && errs == 0:
			c.bad("002 §6.4", f, "runs[%d]: the run failed (exit 1), and no result is an error", ri)
		}
	}
	truncated := false
	for _, bag := range obj(run["properties"]) {
		truncated = truncated || obj(bag)["truncated"] == true
	}
	if !truncated {
		return
	}
	for i := 1; i < len(results); i++ {
		a, b := str(obj(results[i-1])["level"]), str(obj(results[i])["level"])
		if severityRank[b] < severityRank[a] {
			c.bad("002 §6.3", f, "runs[%d]: truncated, and results[%d] (%s) comes after results[%d] (%s): errors first", ri, i, b, i-1, a)
			return
		}
	}
}

// SameFingerprints checks that two runs over the same inputs (report
// directories a and b, golden or not) gave every SARIF result the same
// partialFingerprints: GitHub tracks an alert across runs by them, so an
// unchanged drift must keep its alert.
func SameFingerprints(a, b string) []string {
	c := &checker{dir: a}
	prints := func(dir string) []string {
		cc := &checker{dir: dir}
		log := cc.object("GitHub", sarifJSON)
		c.probs = append(c.probs, cc.probs...)
		var out []string
		for _, rv := range asList(log["runs"]) {
			for _, res := range asList(obj(rv)["results"]) {
				fp, _ := json.Marshal(obj(res)["partialFingerprints"])
				out = append(out, str(obj(res)["ruleId"])+" "+string(fp))
			}
		}
		sort.Strings(out)
		return out
	}
	pa, pb := prints(a), prints(b)
	if strings.Join(pa, "\n") != strings.Join(pb, "\n") {
		c.bad("GitHub", sarifJSON, "the fingerprints of two runs over the same inputs differ:\n  %s\nvs\n  %s", strings.Join(pa, "\n  "), strings.Join(pb, "\n  "))
	}
	return c.probs
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// sarifRules checks the driver's rules as GitHub shows them (help,
// descriptions, a documented reason code for an id) and returns each
// rule's index by id.
func (c *checker) sarifRules(driver map[string]any) map[string]int {
	const f = sarifJSON
	rules, _ := driver["rules"].([]any)
	if len(rules) > ghMaxRulesPerRun {
		c.bad("GitHub", f, "%d rules", len(rules))
	}
	ruleIDs := map[string]int{}
	for i, rv := range rules {
		rule := obj(rv)
		ruleIDs[str(rule["id"])] = i
		if str(obj(rule["help"])["text"]) == "" {
			c.bad("GitHub", f, "rule %v has no help.text", rule["id"])
		}
		if str(rule["helpUri"]) == "" {
			c.bad("GitHub", f, "rule %v has no helpUri", rule["id"])
		}
		if str(obj(rule["shortDescription"])["text"]) == "" {
			c.bad("GitHub", f, "rule %v has no shortDescription", rule["id"])
		}
		if str(obj(rule["fullDescription"])["text"]) == "" {
			c.bad("GitHub", f, "rule %v has no fullDescription.text", rule["id"])
		}
		if id := str(rule["id"]); reasonCode.MatchString(id) {
			c.registered("002 §5", f, "rule id", id, -1)
		}
	}
	return ruleIDs
}

// sarifResult checks one result: its rule, level, message, fingerprints
// and locations.
func (c *checker) sarifResult(where string, res map[string]any, ruleIDs map[string]int) {
	const f = sarifJSON
	if ix, ok := ruleIDs[str(res["ruleId"])]; !ok {
		c.bad("GitHub", f, "%s: ruleId %v is not a rule of the driver", where, res["ruleId"])
	} else if ri, has := res["ruleIndex"]; has && num(ri) != ix {
		c.bad("GitHub", f, "%s: ruleIndex %v, rule is at %d", where, ri, ix)
	}
	if lv := res["level"]; lv != "error" && lv != "warning" && lv != "note" && lv != "none" {
		c.bad("002 §6.4", f, "%s: level %v", where, lv)
	}
	if str(obj(res["message"])["text"]) == "" {
		c.bad("GitHub", f, "%s: empty message", where)
	}
	fp := obj(res["partialFingerprints"])
	if len(fp) == 0 {
		c.bad("GitHub", f, "%s: no partialFingerprints", where)
	}
	for k, v := range fp {
		if str(v) == "" {
			c.bad("GitHub", f, "%s: partialFingerprints.%s is empty", where, k)
		}
	}
	locs, _ := res["locations"].([]any)
	if len(locs) == 0 {
		c.bad("002 §6.2", f, "%s: no location", where)
	}
	if len(locs) > ghMaxLocationsPerRslt {
		c.bad("GitHub", f, "%s: %d locations", where, len(locs))
	}
	for _, lv := range locs {
		c.sarifLocation(where, obj(obj(lv)["physicalLocation"]))
	}
}

// sarifLocation checks that a result's location is a file of the
// repository, relative to its root, with a line GitHub can annotate.
func (c *checker) sarifLocation(where string, pl map[string]any) {
	const f = sarifJSON
	al := obj(pl["artifactLocation"])
	uri := str(al["uri"])
	switch {
	case uri == "":
		c.bad("GitHub", f, "%s: empty artifactLocation.uri", where)
	case strings.Contains(uri, "://") || strings.HasPrefix(uri, "/") || strings.HasPrefix(uri, "../") || strings.Contains(uri, `\`):
		c.bad("GitHub", f, "%s: uri %q is not relative to the repository root", where, uri)
	case strings.HasPrefix(uri, ".cassette/"):
		c.bad("GitHub", f, "%s: uri %q is under .cassette/, which the repository does not hold", where, uri)
	case c.opts.Root != "":
		if _, err := os.Stat(filepath.Join(c.opts.Root, filepath.FromSlash(uri))); err != nil {
			c.bad("GitHub", f, "%s: uri %q is no file of the repository", where, uri)
		}
	}
	if str(al["uriBaseId"]) == "" {
		c.bad("GitHub", f, "%s: no uriBaseId", where)
	}
	if reg := obj(pl["region"]); reg == nil || !isInt(reg["startLine"]) || num(reg["startLine"]) < 1 {
		c.bad("GitHub", f, "%s: no region.startLine ≥ 1", where)
	}
}

// sarifTruncation checks a run's truncation (002 §6.3): the property bag
// records it, and agrees with summary.json.
func (c *checker) sarifTruncation(run, sum map[string]any) {
	const f = sarifJSON
	omitted := -1
	for _, bag := range obj(run["properties"]) {
		if b := obj(bag); b != nil && b["truncated"] == true {
			omitted = num(b["omitted_count"])
			if omitted < 1 || !strings.Contains(str(b["message"]), "omitted") {
				c.bad("002 §6.3", f, "truncation without omitted_count ≥ 1 and a message")
			}
		}
	}
	if sum == nil {
		return
	}
	so, has := obj(sum["sarif"])["omitted"]
	switch {
	case omitted > 0 && (!has || num(so) != omitted):
		c.bad("002 §6.3", f, "omitted_count %d, summary.json sarif.omitted %v", omitted, so)
	case omitted < 0 && has:
		c.bad("002 §6.3", f, "summary.json says %v omitted, sarif.json is not truncated", so)
	}
}
