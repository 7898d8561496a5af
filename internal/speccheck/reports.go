package speccheck

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Options says what the checkers may expect of a report directory.
type Options struct {
	// Shared is ../shared (the official SARIF schema and the JUnit XSD are
	// under schemas/); empty skips the schema validations.
	Shared string
	// Root is the repository root the SARIF locations must resolve in;
	// empty skips the existence check.
	Root string
	// Live says the run re-recorded against real services (refresh): its
	// run cases must carry the live_record result fields of specs/000.
	Live bool
	// Secrets are credential values that must appear in no file.
	Secrets []string
	// README is the page that documents the reason codes
	// (docs/reference/exit-codes.md): the reason codes it documents
	// (Exit codes) extend the registry of specs/002 §5, and it declares the
	// root_cause_class taxonomy. Required.
	README string
}

type checker struct {
	dir   string
	opts  Options
	reg   *Registry
	probs []string
}

func (c *checker) bad(spec, file, format string, args ...any) {
	c.probs = append(c.probs, fmt.Sprintf("[%s] %s: %s", spec, file, fmt.Sprintf(format, args...)))
}

func (c *checker) read(name string) []byte {
	b, err := os.ReadFile(filepath.Join(c.dir, name))
	if err != nil {
		c.bad("002", name, "cannot read: %v", err)
		return nil
	}
	return b
}

func (c *checker) object(spec, name string) map[string]any {
	b := c.read(name)
	if b == nil {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		c.bad(spec, name, "not a JSON object: %v", err)
		return nil
	}
	return m
}

func isInt(v any) bool {
	f, ok := v.(float64)
	return ok && f == math.Trunc(f)
}

func num(v any) int {
	f, _ := v.(float64)
	return int(f)
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

var hex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)
var decimal = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)

// Reports checks the report directory a verify, refresh or merge wrote:
// report.jsonl (001), summary.json, junit.xml, sarif.json and run.json
// (002 and GitHub's SARIF requirements), log.jsonl (000), and that the
// files of the run agree with one another. It returns every violation.
func Reports(dir string, opts Options) []string {
	c := &checker{dir: dir, opts: opts}
	if !c.registry() {
		return c.probs
	}
	cases := c.report001()
	sum := c.summary002()
	c.run002(sum)
	c.junit002(sum, cases)
	c.sarif(sum)
	c.log000(sum)
	c.caseOrder()
	c.secrets()
	if cases.golden {
		c.goldenPaths()
	}
	return c.probs
}

// goldenPaths checks that no file of a golden run holds the absolute path
// of its report directory or of the repository: golden output must be
// byte-stable wherever the run wrote it (specs/001 §10; a path is
// host-specific execution metadata, §5).
func (c *checker) goldenPaths() {
	var roots []string
	for _, d := range []string{c.dir, c.opts.Root} {
		if d == "" {
			continue
		}
		if abs, err := filepath.Abs(d); err == nil {
			roots = append(roots, abs)
			if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
				roots = append(roots, real)
			}
		}
	}
	entries, _ := os.ReadDir(c.dir)
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, _ := os.ReadFile(filepath.Join(c.dir, e.Name()))
		for _, r := range roots {
			if bytes.Contains(data, []byte(r)) {
				c.bad("001 §10", e.Name(), "golden mode, yet the file holds the absolute path %s", r)
				break
			}
		}
	}
}

// registry reads the documented registry from Options.README.
func (c *checker) registry() bool {
	if c.opts.README == "" {
		c.bad("002 §5", "docs/reference/exit-codes.md", "Options.README is empty: the documented reason codes cannot be read")
		return false
	}
	reg, err := ReadRegistry(c.opts.README)
	if err != nil {
		c.bad("002 §5", "docs/reference/exit-codes.md", "%v", err)
		return false
	}
	c.reg = reg
	return true
}

// The live-call retry policy of specs/000.
const (
	liveMaxAttempts = 3 // LIVE_E2E_MAX_ATTEMPTS
)

// telemetry checks one live call's retry telemetry (specs/000): attempts
// in 1…3, and one backoff per retry, so that attempts = len(backoffs) + 1
// (a sum over several calls breaks that).
func (c *checker) telemetry(f, where string, m map[string]any) {
	att := m["attempts"]
	backoff, isList := m["retry_backoff_ms"].([]any)
	switch {
	case !isInt(att) || num(att) < 1 || num(att) > liveMaxAttempts:
		c.bad("000 retry", f, "%s: attempts %v, expected 1…%d (LIVE_E2E_MAX_ATTEMPTS)", where, att, liveMaxAttempts)
	case !isList:
		c.bad("000 retry", f, "%s: retry_backoff_ms %v is not a list", where, m["retry_backoff_ms"])
	case len(backoff) != num(att)-1:
		c.bad("000 retry", f, "%s: attempts %v with %d backoff(s): one call's attempts are its retries + 1 (telemetry summed over calls?)", where, att, len(backoff))
	}
	for i, b := range backoff {
		switch {
		case !isInt(b) || num(b) < 0:
			c.bad("000 retry", f, "%s: retry_backoff_ms[%d] %v is not a whole number of milliseconds", where, i, b)
		case i < len(liveBackoffMS) && num(b) != liveBackoffMS[i]:
			c.bad("000 retry", f, "%s: retry_backoff_ms[%d] is %v, the policy's is %d (LIVE_E2E_RETRY_BACKOFF_MS=[500,1500])", where, i, b, liveBackoffMS[i])
		}
	}
}

// liveBackoffMS is the live-record retry schedule (specs/000,
// LIVE_E2E_RETRY_BACKOFF_MS): the wait before the 2nd and the 3rd attempt.
var liveBackoffMS = []int{500, 1500}

// retries checks a case record's quarantine retries (specs/000: a failed
// quarantined test is retried up to its budget, 1, after 5 s; any other
// test gets zero retries).
func (c *checker) retries(f string, line int, r map[string]any) {
	n, has := r["retries"]
	if !has {
		if r["quarantined"] == true && r["outcome"] != "pass" && r["outcome"] != "skipped" {
			c.bad("000 quarantine", f, "line %d: a failing quarantined case was not retried (budget 1)", line)
		}
		return
	}
	switch {
	case r["quarantined"] != true:
		c.bad("000 quarantine", f, "line %d: %v retries of a case that is not quarantined (zero retries)", line, n)
	case !isInt(n) || num(n) != quarantineRetryBudget:
		c.bad("000 quarantine", f, "line %d: %v retries, the budget is %d", line, n, quarantineRetryBudget)
	}
	if d := r["retry_delay_ms"]; !isInt(d) || num(d) != quarantineRetryDelayMS {
		c.bad("000 quarantine", f, "line %d: retry_delay_ms %v, the policy's delay is %d", line, d, quarantineRetryDelayMS)
	}
}

// The uniform retry policy for quarantined tests (specs/000).
const (
	quarantineRetryBudget  = 1
	quarantineRetryDelayMS = 5000
)

// summary002 checks summary.json against specs/002 §3–§5, §7.
func (c *checker) summary002() map[string]any {
	const f = "summary.json"
	s := c.object("002 §3", f)
	if s == nil {
		return nil
	}
	if s["schema_version"] != 1.0 {
		c.bad("002 §3.1", f, "schema_version %v, expected 1", s["schema_version"])
	}
	if s["reason_code_version"] != 1.0 {
		c.bad("002 §3.1", f, "reason_code_version %v, expected 1", s["reason_code_version"])
	}
	exit := num(s["exit_code"])
	if !isInt(s["exit_code"]) || exit < 0 || exit > 3 {
		c.bad("002 §4", f, "exit_code %v", s["exit_code"])
	}
	rc, ok := s["reason_code"].(string)
	if !ok {
		c.bad("002 §3.1", f, "reason_code is not a string")
	}
	if exit != 0 {
		if rc == "" {
			c.bad("002 §5", f, "exit %d with an empty reason_code", exit)
		}
		c.registered("002 §5", f, "reason_code", rc, exit)
		if str(s["next_step"]) == "" {
			c.bad("002 §7", f, "exit %d without next_step", exit)
		}
	}
	prov := obj(s["provenance"])
	if prov == nil {
		c.bad("002 §3.2", f, "no provenance object")
	} else {
		hasVersion := false
		for k, v := range prov {
			if strings.HasSuffix(k, "_version") && str(v) != "" {
				hasVersion = true
			}
		}
		if !hasVersion {
			c.bad("002 §3.2", f, "provenance names no tool version")
		}
		if vm := prov["verify_mode"]; vm != "enabled" && vm != "disabled" {
			c.bad("002 §3.2", f, "provenance.verify_mode %v", vm)
		}
		if prov["replay"] == true {
			if rm := prov["replay_mode"]; rm != "offline" && rm != "live" {
				c.bad("002 §3.2", f, "replay_mode %v", rm)
			}
		}
	}
	seeds := obj(s["seeds"])
	c.seeds("002 §3.3.1", f, seeds)
	if res := obj(s["results"]); res != nil {
		total := 0
		for _, k := range []string{"passed", "failed", "warned", "skipped"} {
			total += num(res[k])
		}
		if isInt(res["total"]) && num(res["total"]) != total {
			c.bad("002 §3.2", f, "results add up to %d, total says %v", total, res["total"])
		}
		if exit == 0 && num(res["failed"]) > 0 {
			c.bad("002 §4", f, "exit_code 0 with results.failed %v", res["failed"])
		}
		if exit == 1 && num(res["failed"]) == 0 {
			c.bad("002 §4", f, "exit_code 1 with results.failed 0")
		}
	}
	if sa := obj(s["sarif"]); sa != nil && (!isInt(sa["omitted"]) || num(sa["omitted"]) < 1) {
		c.bad("002 §6.3", f, "sarif.omitted %v, expected ≥ 1", sa["omitted"])
	}
	if str(s["correlation_id"]) == "" {
		c.bad("000 correlation", f, "no correlation_id (required in run-level aggregate artifacts)")
	}
	return s
}

func (c *checker) seeds(spec, f string, seeds map[string]any) {
	if seeds == nil {
		c.bad(spec, f, "no seeds")
		return
	}
	if seeds["seed_version"] != 1.0 {
		c.bad(spec, f, "seed_version %v, expected 1", seeds["seed_version"])
	}
	for _, k := range []string{"order_seed", "judge_seed"} {
		v, present := seeds[k]
		if !present {
			c.bad(spec, f, "%s is missing (string or null required)", k)
			continue
		}
		if v != nil && !decimal.MatchString(str(v)) {
			c.bad(spec, f, "%s %v is not a decimal string or null", k, v)
		}
	}
}

// run002 checks run.json's seeds (specs/002 §3.3.1): present, and those
// of summary.json (sum), the same run's.
func (c *checker) run002(sum map[string]any) {
	r := c.object("002 §3.3.1", "run.json")
	if r == nil {
		return
	}
	c.seeds("002 §3.3.1", "run.json", r)
	if seeds := obj(sum["seeds"]); seeds != nil {
		for _, k := range []string{"order_seed", "judge_seed"} {
			if r[k] != seeds[k] {
				c.bad("002 §3.3.1", "run.json", "%s %v, summary.json's %v: one run, one seed", k, show(r[k]), show(seeds[k]))
			}
		}
	}
}

// show is a seed as JSON writes it.
func show(v any) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprintf("%q", v)
}

// SameSeed checks that the bundle in bundleDir replays the run of the
// reports in reportDir with the run's own order seed: repro.json's
// seed_decimal and repro.env's CASSETTE_ORDER_SEED are summary.json's
// order_seed (specs/002 §3.3.1, specs/004; a null order_seed, the seed
// of an early exit that does not know it, matches none).
func SameSeed(reportDir, bundleDir string) []string {
	c := &checker{dir: reportDir}
	sum := c.object("002 §3.3.1", "summary.json")
	b := &checker{dir: bundleDir}
	repro := b.object("004", "repro.json")
	if sum == nil || repro == nil {
		return append(c.probs, b.probs...)
	}
	order := show(obj(sum["seeds"])["order_seed"])
	if got := show(repro["seed_decimal"]); got != order {
		c.bad("002 §3.3.1", "summary.json", "order_seed %s, the bundle's repro.json seed_decimal %s: one run, one seed", order, got)
	}
	env := string(b.read("repro.env"))
	if want := "CASSETTE_ORDER_SEED=" + strings.Trim(order, `"`) + "\n"; !strings.Contains(env, want) {
		c.bad("002 §3.3.1", "summary.json", "order_seed %s, the bundle's repro.env holds no %q", order, strings.TrimSpace(want))
	}
	return c.probs
}

type junitCase struct {
	Name      string `xml:"name,attr"`
	Classname string `xml:"classname,attr"`
	Failure   []struct {
		Type string `xml:"type,attr"`
	} `xml:"failure"`
	Error   []xml.Name `xml:"error"`
	Skipped []xml.Name `xml:"skipped"`
}

// junit002 checks junit.xml (specs/002 §2): it validates against the XSD,
// Fail/Error are <failure>, and it counts what summary.json and
// report.jsonl count.
func (c *checker) junit002(sum map[string]any, cases caseTally) {
	const f = "junit.xml"
	data := c.read(f)
	if data == nil {
		return
	}
	if c.opts.Shared != "" {
		if xl, err := exec.LookPath("xmllint"); err == nil {
			out, err := exec.Command(xl, "--noout", "--schema", filepath.Join(c.opts.Shared, "schemas", "junit-10.xsd"), filepath.Join(c.dir, f)).CombinedOutput()
			if err != nil {
				c.bad("002 §2", f, "does not validate against the JUnit XSD: %s", out)
			}
		}
	}
	var doc struct {
		Suites []struct {
			Cases []junitCase `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		c.bad("002 §2", f, "not XML: %v", err)
		return
	}
	var tests, failures, errs, skipped int
	for _, s := range doc.Suites {
		for _, tc := range s.Cases {
			tests++
			failures += min(len(tc.Failure), 1)
			for _, fl := range tc.Failure {
				if reasonCode.MatchString(fl.Type) {
					c.registered("002 §5", f, "testcase "+tc.Classname+"/"+tc.Name+" failure type", fl.Type, -1)
				}
			}
			errs += min(len(tc.Error), 1)
			skipped += min(len(tc.Skipped), 1)
		}
	}
	if errs > 0 {
		c.bad("002 §2", f, "%d <error> elements: Fail/Error map to <failure>", errs)
	}
	if res := obj(sum["results"]); res != nil {
		if num(res["total"]) != tests {
			c.bad("002 §2", f, "%d testcases, summary.json results.total %v", tests, res["total"])
		}
		if num(res["failed"]) != failures+errs {
			c.bad("002 §2", f, "%d failures, summary.json results.failed %v", failures+errs, res["failed"])
		}
	}
	if cases.ok {
		if cases.records != tests {
			c.bad("001/002", f, "%d testcases, report.jsonl %d case records", tests, cases.records)
		}
		if cases.fail != failures+errs {
			c.bad("001/002", f, "%d failures, report.jsonl %d failed cases", failures+errs, cases.fail)
		}
		if e := num(sum["exit_code"]); sum != nil && min(e, 2) != cases.exit {
			c.bad("001/002", "report.jsonl", "exit_code %d, summary.json %d (3 maps to 2 in report.jsonl)", cases.exit, e)
		}
	}
}

// volatileContext are fields that vary between equivalent runs (timing,
// correlation): specs/000 keeps them out of the six stable fields that
// cross-run comparison projects on (schema, type, level, category, message,
// context).
var volatileContext = []string{"correlation_id", "trace_id", "span_id", "parent_span_id", "ci_correlation_id",
	"duration_ms", "ts", "timestamp", "started_at", "ended_at", "started_at_utc", "ended_at_utc", "generated_at_utc"}

// log000 checks log.jsonl against specs/000: the v2 log schema's stable
// fields on every record, no timing or correlation field inside context,
// one trace id for the run (the correlation_id of summary.json), failure
// digests, and for a live run the live_record fields and the retry
// telemetry of each live call.
func (c *checker) log000(sum map[string]any) {
	const f = "log.jsonl"
	data := c.read(f)
	if data == nil {
		return
	}
	trace := ""
	liveCalls := map[string]int{} // case → live_call records
	var liveCases []string
	for i, ln := range bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n")) {
		line := i + 1
		var r map[string]any
		if err := json.Unmarshal(ln, &r); err != nil {
			c.bad("000", f, "line %d is not a JSON object", line)
			continue
		}
		if s := str(r["schema"]); !strings.HasSuffix(s, ".test.log.v2") {
			c.bad("000", f, "line %d: schema %q is not a v2 test log schema", line, s)
		}
		for _, k := range []string{"type", "level", "category", "message"} {
			if _, ok := r[k].(string); !ok {
				c.bad("000", f, "line %d: %s is not a string", line, k)
			}
		}
		ctx, ok := r["context"].(map[string]any)
		if !ok {
			c.bad("000", f, "line %d: context is not an object", line)
		}
		for _, k := range volatileContext {
			if _, in := ctx[k]; in {
				c.bad("000 stable fields", f, "line %d: %s inside context, one of the six stable fields cross-run comparison projects on", line, k)
			}
		}
		tid := str(r["trace_id"])
		if tid == "" {
			c.bad("000", f, "line %d: no trace_id", line)
		} else if trace == "" {
			trace = tid
		} else if tid != trace {
			c.bad("000", f, "line %d: trace_id %s differs from the run's %s", line, tid, trace)
		}
		for _, k := range []string{"span_id", "parent_span_id", "ci_correlation_id", "correlation_id"} {
			if v, ok := r[k]; ok {
				if _, isStr := v.(string); !isStr {
					c.bad("000", f, "line %d: %s is not a string", line, k)
				}
			}
		}
		if cid, ok := r["correlation_id"]; ok && sum != nil && cid != sum["correlation_id"] {
			c.bad("000 correlation", f, "line %d: correlation_id %v differs from summary.json's %v", line, cid, sum["correlation_id"])
		}
		c.registered("002 §5", f, fmt.Sprintf("line %d: context.reason_code", line), str(ctx["reason_code"]), -1)
		switch r["type"] {
		case "failure_digest":
			c.digest(f, line, ctx)
		case "case":
			if c.opts.Live && ctx["status"] != "skipped" && str(ctx["case"]) != "cassette/refresh" {
				c.liveFields(f, fmt.Sprintf("line %d", line), ctx)
				liveCases = append(liveCases, str(ctx["case"]))
			}
		case "live_call":
			c.liveFields(f, fmt.Sprintf("line %d", line), ctx)
			c.telemetry(f, fmt.Sprintf("line %d", line), ctx)
			liveCalls[str(ctx["case"])]++
		}
	}
	for _, cs := range liveCases {
		if liveCalls[cs] == 0 {
			c.bad("000 retry", f, "live case %s has no live_call record with its retry telemetry", cs)
		}
	}
	if sum != nil && trace != "" && str(sum["correlation_id"]) != trace {
		c.bad("000 correlation", "summary.json", "correlation_id %v differs from log.jsonl's trace_id %s", sum["correlation_id"], trace)
	}
}

// digest checks a failure digest's context (specs/000).
func (c *checker) digest(f string, line int, ctx map[string]any) {
	rc := str(ctx["root_cause_class"])
	if !slices.Contains(c.reg.RootCauses, rc) {
		c.bad("000", f, "line %d: root_cause_class %q is not declared", line, rc)
	}
	if _, known := c.reg.Exit[str(ctx["reason_code"])]; rc == "unknown" && known {
		c.bad("000", f, "line %d: root_cause_class unknown for the registered reason %v", line, ctx["reason_code"])
	}
	if str(ctx["first_failing_assertion"]) == "" {
		c.bad("000", f, "line %d: empty first_failing_assertion", line)
	}
	if str(obj(ctx["remediation_pointer"])["replay_command"]) == "" {
		c.bad("000", f, "line %d: no remediation_pointer.replay_command", line)
	}
	for _, k := range []string{"suite_replay_command", "targeted_test_replay_command"} {
		if str(ctx[k]) == "" {
			c.bad("000", f, "line %d: no %s", line, k)
		}
	}
}

// liveFields checks the live_record result fields (specs/000).
func (c *checker) liveFields(f, where string, ctx map[string]any) {
	for k, want := range map[string]string{"execution_mode": "live_record",
		"replay_boundary": "live_request_then_vcr_trace_extract", "trace_origin": "vcr_last_interaction"} {
		if ctx[k] != want {
			c.bad("000 live", f, "%s: %s %v, expected %s", where, k, ctx[k], want)
		}
	}
}

// secrets checks that no credential value appears in any report file.
func (c *checker) secrets() {
	if len(c.opts.Secrets) == 0 {
		return
	}
	_ = filepath.WalkDir(c.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		data, _ := os.ReadFile(p)
		for _, s := range c.opts.Secrets {
			if s != "" && bytes.Contains(data, []byte(s)) {
				c.bad("000 redaction", p, "holds a credential value")
			}
		}
		return nil
	})
}

// TraceID is the trace id of a report directory's log.jsonl ("" if none).
func TraceID(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, "log.jsonl"))
	if err != nil {
		return ""
	}
	var r map[string]any
	ln, _, _ := bytes.Cut(data, []byte("\n"))
	if json.Unmarshal(ln, &r) != nil {
		return ""
	}
	return str(r["trace_id"])
}
