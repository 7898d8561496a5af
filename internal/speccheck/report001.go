package speccheck

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// caseTally is what report.jsonl's case records say.
type caseTally struct {
	records, pass, fail int
	exit                int
	ok                  bool
	golden              bool
}

// report001 checks report.jsonl against specs/001 §6–§9: its records, the
// header, each case with its assert, action and artifact records, and the
// summary that counts them.
func (c *checker) report001() caseTally {
	const f = "report.jsonl"
	var t caseTally
	data := c.read(f)
	if data == nil {
		return t
	}
	lines, recs := c.records001(data)
	if len(recs) < 2 {
		return t
	}
	t.golden = c.header001(lines, recs)
	l := &caseLedger{checker: c, byID: map[string]*caseState{}}
	for i, r := range recs[1 : len(recs)-1] {
		l.record(i+2, r)
	}
	l.reconcile()
	t.records, t.pass, t.fail = l.records, l.pass, l.fail
	c.summary001(recs[len(recs)-1], &t, l)
	t.ok = true
	return t
}

// records001 reads report.jsonl's lines as JSON objects (specs/001 §6). It
// returns no records when a line is not one, or when there are not the
// header and the summary at least.
func (c *checker) records001(data []byte) ([][]byte, []map[string]any) {
	const f = "report.jsonl"
	if !utf8.Valid(data) {
		c.bad("001 §6", f, "not UTF-8")
	}
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	var recs []map[string]any
	for i, ln := range lines {
		var m map[string]any
		if err := json.Unmarshal(ln, &m); err != nil {
			c.bad("001 §6", f, "line %d is not a JSON object: %v", i+1, err)
			return nil, nil
		}
		recs = append(recs, m)
	}
	if len(recs) < 2 {
		c.bad("001 §6", f, "needs a header and a summary record, has %d records", len(recs))
		return nil, nil
	}
	return lines, recs
}

// header001 checks the header record, that the last record is the
// summary, and in golden mode that every line is byte-stable (keys sorted,
// no volatile field). It says whether the run is golden.
func (c *checker) header001(lines [][]byte, recs []map[string]any) (golden bool) {
	const f = "report.jsonl"
	head, last := recs[0], recs[len(recs)-1]
	if k := str(head["k"]); !strings.HasSuffix(k, "_report") || head["v"] != "0" {
		c.bad("001 §6.1", f, "first record is not the v0 header: k=%v v=%v", head["k"], head["v"])
	}
	for _, key := range []string{"inventory_sha256", "suite_sha256"} {
		if !hex64.MatchString(str(head[key])) {
			c.bad("001 §6.1", f, "header %s %q is not a SHA-256", key, head[key])
		}
	}
	mode := str(head["mode"])
	if mode != "default" && mode != "golden" {
		c.bad("001 §6.1", f, "header mode %q, expected default or golden", mode)
	}
	if last["k"] != "summary" {
		c.bad("001 §6.8", f, "last record is %v, expected the summary", last["k"])
	}
	if mode != "golden" {
		return false
	}
	for i, ln := range lines {
		if err := sortedKeys(ln); err != nil {
			c.bad("001 §6", f, "line %d (golden mode): %v", i+1, err)
		}
		for _, v := range []string{"duration_ms", "generated_at_utc", "started_at_utc", "ended_at_utc", "host"} {
			if _, ok := recs[i][v]; ok {
				c.bad("001 §10", f, "line %d (golden mode) carries volatile field %s", i+1, v)
			}
		}
	}
	return true
}

// caseState is what one case's record announces, and what its assert,
// action and artifact records have added up to so far.
type caseState struct {
	assertPass, assertFail, unhandled int
	asserts, actions, artifacts       int
	failedActions                     int
	actionIx                          map[int]bool
}

// caseLedger follows report.jsonl's records between the header and the
// summary, case by case (specs/001 §6.2–§6.6).
type caseLedger struct {
	*checker
	byID                   map[string]*caseState
	records, pass, fail    int
	assertPass, assertFail int
}

const reportJSONL = "report.jsonl"

// record checks one record and adds it to its case.
func (l *caseLedger) record(line int, r map[string]any) {
	id := str(r["case_id"])
	switch r["k"] {
	case "case":
		l.caseRecord(line, id, r)
	case "assert":
		if cs := l.of("001 §6.4", "assert", line, id); cs != nil {
			l.assert(cs, line, r)
		}
	case "action":
		if cs := l.of("001 §6.5", "action", line, id); cs != nil {
			if !isInt(r["action_ix"]) || num(r["action_ix"]) != cs.actions {
				l.bad("001 §6.5", reportJSONL, "line %d: action_ix %v, expected %d", line, r["action_ix"], cs.actions)
			}
			cs.actionIx[cs.actions] = true
			cs.actions++
			l.action(reportJSONL, line, r)
			if r["status"] == "fail" {
				cs.failedActions++
			}
		}
	case "artifact":
		if cs := l.of("001 §6.6", "artifact", line, id); cs != nil {
			l.artifact(cs, line, r)
		}
	case "extract":
	default:
		l.bad("001 §6", reportJSONL, "line %d: unknown record kind %v", line, r["k"])
	}
}

// of is the case a record names, which an earlier case record announced.
func (l *caseLedger) of(spec, kind string, line int, id string) *caseState {
	cs := l.byID[id]
	if cs == nil {
		l.bad(spec, reportJSONL, "line %d: %s of unknown case %q", line, kind, id)
	}
	return cs
}

// caseRecord checks a case record (specs/001 §6.2, §6.3) and opens its case.
func (l *caseLedger) caseRecord(line int, id string, r map[string]any) {
	const f = reportJSONL
	l.records++
	for _, k := range []string{"case_id", "item_id", "case_key"} {
		if str(r[k]) == "" {
			l.bad("001 §6.3", f, "line %d: case record without %s", line, k)
		}
	}
	for _, k := range []string{"assert_pass", "assert_fail", "unhandled_action_fail"} {
		if !isInt(r[k]) {
			l.bad("001 §6.3", f, "line %d: %s is not an integer", line, k)
		}
	}
	want := base64.RawURLEncoding.EncodeToString([]byte(str(r["item_id"]) + "\x1f" + str(r["case_key"])))
	if id != want {
		l.bad("001 §6.2", f, "line %d: case_id %q, expected %q", line, id, want)
	}
	l.registered("002 §5", f, fmt.Sprintf("line %d: reason_code", line), str(r["reason_code"]), -1)
	l.retries(f, line, r)
	if tn, ok := r["test_name"]; ok && tn != r["case_key"] {
		l.bad("001 §6.2", f, "line %d: test_name %v differs from case_key", line, tn)
	}
	switch r["status"] {
	case "pass":
		l.pass++
	case "fail":
		l.fail++
	default:
		l.bad("001 §6.3", f, "line %d: status %v, expected pass or fail", line, r["status"])
	}
	if l.byID[id] != nil {
		l.bad("001 §4", f, "line %d: case %s appears twice", line, id)
	}
	l.byID[id] = &caseState{assertPass: num(r["assert_pass"]), assertFail: num(r["assert_fail"]),
		unhandled: num(r["unhandled_action_fail"]), actionIx: map[int]bool{}}
	l.assertPass += num(r["assert_pass"])
	l.assertFail += num(r["assert_fail"])
}

// assert checks an assert record (specs/001 §6.4) and counts it off its
// case's announced assert_pass or assert_fail.
func (l *caseLedger) assert(cs *caseState, line int, r map[string]any) {
	const f = reportJSONL
	if !isInt(r["assert_ix"]) || num(r["assert_ix"]) != cs.asserts {
		l.bad("001 §6.4", f, "line %d: assert_ix %v, expected %d", line, r["assert_ix"], cs.asserts)
	}
	cs.asserts++
	if st := r["status"]; st == "pass" {
		cs.assertPass--
	} else if st == "fail" {
		cs.assertFail--
	} else {
		l.bad("001 §6.4", f, "line %d: assert status %v", line, st)
	}
	if _, ok := r["msg"].(string); !ok {
		l.bad("001 §6.4", f, "line %d: assert without msg", line)
	}
}

// artifact checks an artifact record (specs/001 §6.6): its index, the
// action of its case it belongs to, and its fields.
func (l *caseLedger) artifact(cs *caseState, line int, r map[string]any) {
	const f = reportJSONL
	if !isInt(r["artifact_ix"]) || num(r["artifact_ix"]) != cs.artifacts {
		l.bad("001 §6.6", f, "line %d: artifact_ix %v, expected %d", line, r["artifact_ix"], cs.artifacts)
	}
	cs.artifacts++
	if !isInt(r["action_ix"]) || !cs.actionIx[num(r["action_ix"])] {
		l.bad("001 §6.6", f, "line %d: action_ix %v names no action record of the case", line, r["action_ix"])
	}
	for _, k := range []string{"name", "kind"} {
		if str(r[k]) == "" {
			l.bad("001 §6.6", f, "line %d: artifact without %s", line, k)
		}
	}
	if ev := r["event"]; ev != "publish" && ev != "check" {
		l.bad("001 §6.6", f, "line %d: event %v", line, ev)
	}
	if st := r["status"]; st != "ok" && st != "fail" {
		l.bad("001 §6.6", f, "line %d: status %v", line, st)
	}
}

// reconcile checks that each case's records add up to what its case
// record announced (specs/001 §6.3).
func (l *caseLedger) reconcile() {
	for id, cs := range l.byID {
		if cs.assertPass != 0 || cs.assertFail != 0 {
			l.bad("001 §6.3", reportJSONL, "case %s: assert_pass/assert_fail differ from its assert records by %d/%d", id, cs.assertPass, cs.assertFail)
		}
		if cs.unhandled > cs.failedActions {
			l.bad("001 §6.3", reportJSONL, "case %s: unhandled_action_fail %d but %d failing action records", id, cs.unhandled, cs.failedActions)
		}
	}
}

// summary001 checks the summary record (specs/001 §6.8, §9): its counts
// are the records', and its exit code agrees with the failed cases.
func (c *checker) summary001(last map[string]any, t *caseTally, l *caseLedger) {
	const f = reportJSONL
	for k, want := range map[string]int{"case_pass": l.pass, "case_fail": l.fail, "assert_pass": l.assertPass, "assert_fail": l.assertFail} {
		if !isInt(last[k]) || num(last[k]) != want {
			c.bad("001 §6.8", f, "summary %s is %v, the records say %d", k, last[k], want)
		}
	}
	t.exit = num(last["exit_code"])
	if pe, ok := last["process_exit_code"]; ok {
		c.registered("002 §5", f, "summary reason_code", str(last["reason_code"]), num(pe))
	}
	switch {
	case !isInt(last["exit_code"]) || t.exit < 0 || t.exit > 2:
		c.bad("001 §9", f, "summary exit_code %v, expected 0, 1 or 2", last["exit_code"])
	case t.exit == 0 && t.fail > 0:
		c.bad("001 §9", f, "exit_code 0 with %d failed cases", t.fail)
	case t.exit != 0 && t.fail == 0 && t.exit == 1:
		c.bad("001 §9", f, "exit_code 1 without a failed case")
	case t.fail > 0 && t.exit == 0:
		c.bad("001 §9", f, "failed cases but exit_code 0")
	}
}

// action checks one action record's payload (001 §6.5, §8).
func (c *checker) action(f string, line int, r map[string]any) {
	if str(r["action"]) == "" {
		c.bad("001 §6.5", f, "line %d: action without a kind", line)
	}
	if _, ok := r["args"].(map[string]any); !ok {
		c.bad("001 §6.5", f, "line %d: action without args", line)
	}
	okP, hasOK := r["ok"].(map[string]any)
	failP, hasFail := r["fail"].(map[string]any)
	if hasOK == hasFail {
		c.bad("001 §6.5", f, "line %d: exactly one of ok and fail must be present", line)
	}
	switch r["status"] {
	case "ok":
		if !hasOK {
			c.bad("001 §6.5", f, "line %d: status ok without ok payload", line)
		}
	case "fail":
		if !hasFail || str(failP["kind"]) == "" || str(failP["msg"]) == "" {
			c.bad("001 §6.5", f, "line %d: status fail needs fail{kind, msg}", line)
		}
	default:
		c.bad("001 §6.5", f, "line %d: status %v", line, r["status"])
	}
	if hasOK {
		var need []string
		switch r["action"] {
		case "run", "proc":
			need = []string{"exit", "out_len", "err_len"}
		case "httpGet", "http":
			need = []string{"status", "body_len"}
		case "artifactPublish", "artifactCheck":
			need = []string{"name", "kind", "path"}
		}
		for _, k := range need {
			if _, ok := okP[k]; !ok {
				c.bad("001 §6.5", f, "line %d: %v ok payload without %s", line, r["action"], k)
			}
		}
		for k, v := range okP {
			if strings.HasSuffix(k, "_preview_b64") {
				if _, err := base64.RawURLEncoding.DecodeString(str(v)); err != nil {
					c.bad("001 §8", f, "line %d: %s is not unpadded base64url", line, k)
				}
			}
		}
	}
	if hasFail {
		c.registered("002 §5", f, fmt.Sprintf("line %d: fail.code", line), str(failP["code"]), -1)
	}
	if _, ok := r["attempts"]; ok || r["retry_backoff_ms"] != nil {
		c.telemetry(f, fmt.Sprintf("line %d", line), r)
	} else if c.opts.Live && (r["action"] == "http" || r["action"] == "proc") {
		c.bad("000 retry", f, "line %d: a live call without its retry telemetry (attempts, retry_backoff_ms)", line)
	}
}

// sortedKeys reports an object whose keys are not in ascending byte order,
// at any depth.
func sortedKeys(line []byte) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	type frame struct {
		obj     bool
		last    string
		wantKey bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				if top != nil && top.obj {
					top.wantKey = true
				}
				stack = append(stack, &frame{obj: d == '{', wantKey: d == '{'})
			default:
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].obj {
					stack[len(stack)-1].wantKey = true
				}
			}
			continue
		}
		if top != nil && top.obj {
			if top.wantKey {
				k := tok.(string)
				if top.last != "" && k <= top.last {
					return fmt.Errorf("key %q after %q: keys not in byte order", k, top.last)
				}
				top.last = k
				top.wantKey = false
			} else {
				top.wantKey = true
			}
		}
	}
}

var junitCaseRe = regexp.MustCompile(`<testcase name="([^"]*)" classname="([^"]*)"`)

// caseOrder checks that every file listing the run's cases lists them in
// report.jsonl's order (specs/001 §3: "this ordering rule defines report
// order as well"): junit.xml's test cases (classname/name) and log.jsonl's
// case records, and that the order is the same sort every time: by suite
// item, then case key (cassette: adapter, then scenario).
func (c *checker) caseOrder() {
	var want []string
	var keys [][2]string
	command := ""
	for _, ln := range bytes.Split(c.read(reportJSONL), []byte("\n")) {
		var r map[string]any
		if json.Unmarshal(ln, &r) != nil {
			continue
		}
		if r["k"] == "cassette_report" {
			command = str(r["command"])
		}
		if r["k"] == "case" {
			want = append(want, str(r["case"]))
			keys = append(keys, [2]string{str(r["item_id"]), str(r["case_key"])})
		}
	}
	sorted := keys
	if n := len(keys); n > 0 && keys[n-1] == [2]string{"cassette", command} {
		sorted = keys[:n-1] // the run-level error, a case of its own after the run's (README: deviations)
	}
	for i := 1; i < len(sorted); i++ {
		if keys[i][0] < keys[i-1][0] || keys[i][0] == keys[i-1][0] && keys[i][1] < keys[i-1][1] {
			c.bad("001 §3", reportJSONL, "case %s comes after %s: not in item, then case key order", want[i], want[i-1])
			break
		}
	}
	if data := c.read("junit.xml"); data != nil {
		var got []string
		for _, m := range junitCaseRe.FindAllSubmatch(data, -1) {
			got = append(got, html.UnescapeString(string(m[2]))+"/"+html.UnescapeString(string(m[1])))
		}
		if !slices.Equal(got, want) && len(got) == len(want) {
			c.bad("001 §3", "junit.xml", "test cases in the order %v, report.jsonl's is %v", got, want)
		}
	}
	var logged []string
	for _, ln := range bytes.Split(c.read("log.jsonl"), []byte("\n")) {
		var r map[string]any
		if json.Unmarshal(ln, &r) == nil && r["category"] == "case" {
			if cs := str(obj(r["context"])["case"]); cs != "" && (len(logged) == 0 || logged[len(logged)-1] != cs) {
				logged = append(logged, cs)
			}
		}
	}
	if len(logged) == len(want) && !slices.Equal(logged, want) {
		c.bad("001 §3", "log.jsonl", "cases in the order %v, report.jsonl's is %v", logged, want)
	}
}
