package report

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"time"

	"github.com/cassette-dev/cassette/internal/verdict"
)

// The canonical JSONL report's constants (specs/001).
const (
	ReportKind    = "cassette_report" // the header's k (the spec's observer_report)
	ReportVersion = "0"
	// DefaultPreviewBytes bounds each base64url preview when
	// Options.PreviewBytes is 0.
	DefaultPreviewBytes = 256
)

// caseID is the canonical case identifier of specs/001 §6.2: the unpadded
// base64url of item_id (the adapter), byte 0x1f, case_key (the scenario).
func caseID(itemID, caseKey string) string {
	b := make([]byte, 0, len(itemID)+1+len(caseKey))
	b = append(b, itemID...)
	b = append(b, 0x1f)
	b = append(b, caseKey...)
	return base64.RawURLEncoding.EncodeToString(b)
}

type record map[string]any

// jsonLine encodes one record on one line. Go's encoder writes map keys in
// ascending byte order, which is golden mode's required order; HTML escaping
// is off so that text stays as written.
func jsonLine(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func ms(d time.Duration) int64 { return d.Milliseconds() }

// preview adds <name>_len, <name>_preview_b64 and <name>_truncated for data.
func preview(rec record, lenKey, prevKey, truncKey string, data []byte, limit int) {
	rec[lenKey] = len(data)
	if len(data) == 0 {
		return
	}
	p := data
	if len(p) > limit {
		p = p[:limit]
		rec[truncKey] = true
	}
	rec[prevKey] = base64.RawURLEncoding.EncodeToString(p)
}

// jsonl renders the canonical JSONL report (report.jsonl): the header, each
// case's records, the summary.
func (r *Run) jsonl(opts Options) ([]byte, error) {
	limit := opts.PreviewBytes
	if limit <= 0 {
		limit = DefaultPreviewBytes
	}
	var buf bytes.Buffer
	if err := jsonLine(&buf, r.jsonlHeader(opts)); err != nil {
		return nil, err
	}
	var sum jsonlCounts
	for _, c := range r.reportCases() {
		if err := r.jsonlCase(&buf, c, limit, opts.Golden, &sum); err != nil {
			return nil, err
		}
	}
	if err := jsonLine(&buf, r.jsonlSummary(sum, opts.Golden)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// jsonlCounts are the summary record's counts, added up case by case.
type jsonlCounts struct{ casePass, caseFail, caseQuar, caseSkip, assertPass, assertFail int }

func (r *Run) jsonlHeader(opts Options) record {
	mode := "default"
	if opts.Golden {
		mode = "golden"
	}
	head := record{
		"k": ReportKind, "v": ReportVersion,
		"inventory_sha256": InventoryDigest(r.Inventory),
		"suite_sha256":     sha256Hex(r.ConfigBytes),
		"mode":             mode,
		"suite":            r.Suite,
		"command":          r.command(),
	}
	if !opts.Golden {
		head["generated_at_utc"] = opts.now().UTC().Format(time.RFC3339)
		head["implementation"] = r.toolName() + " " + r.Tool.Version
		if opts.Host != "" {
			head["host"] = opts.Host
		}
		if r.Shard != "" {
			head["shard"] = r.Shard
		}
	}
	return head
}

// jsonlAsserts are a case's assert records: one pass, or one per drift.
func (r *Run) jsonlAsserts(c *verdict.Case) []record {
	var asserts []record
	switch c.Status {
	case verdict.StatusPass:
		asserts = append(asserts, record{"status": "pass", "msg": "normalized output equals the cassette"})
	case verdict.StatusFail, verdict.StatusError:
		for _, d := range c.Drifts {
			a := record{"status": "fail", "msg": driftText(d), "predicate": "drift/" + d.Class}
			if d.Line > 0 {
				a["loc"] = record{"line": d.Line, "col": 0}
			}
			asserts = append(asserts, a)
		}
		if len(c.Drifts) == 0 && c.Status == verdict.StatusFail {
			asserts = append(asserts, record{"status": "fail", "msg": r.digest(c).FirstFailingAssertion})
		}
	}
	return asserts
}

// jsonlCase writes a case's records: the case, its asserts, its actions
// and artifacts; and adds it to sum.
func (r *Run) jsonlCase(buf *bytes.Buffer, c *verdict.Case, limit int, golden bool, sum *jsonlCounts) error {
	id := caseID(c.Adapter, c.Scenario)
	asserts := r.jsonlAsserts(c)
	ap, af := 0, 0
	for _, a := range asserts {
		if a["status"] == "pass" {
			ap++
		} else {
			af++
		}
	}
	actions, artifacts := r.caseEvents(c, id, limit, golden)
	unhandled := 0
	for _, a := range actions {
		if a["status"] == "fail" {
			unhandled++
		}
	}
	// status is the case's verdict for the gate (pass or fail, specs/001):
	// a skipped case and a quarantined failure do not fail the run, so
	// they are "pass"; outcome says what happened.
	status := "pass"
	if c.Blocking(r.now()) {
		status = "fail"
	}
	cr := r.caseRecord(c, id, status, golden)
	cr["assert_pass"], cr["assert_fail"], cr["unhandled_action_fail"] = ap, af, unhandled
	switch {
	case status == "fail":
		sum.caseFail++
	default:
		sum.casePass++
		if c.Status == verdict.StatusSkipped {
			sum.caseSkip++
		}
		if c.Failed() {
			sum.caseQuar++
		}
	}
	sum.assertPass += ap
	sum.assertFail += af
	if err := jsonLine(buf, cr); err != nil {
		return err
	}
	for i, a := range asserts {
		a["k"] = "assert"
		a["case_id"] = id
		a["case"] = c.ID()
		a["assert_ix"] = i
		if err := jsonLine(buf, a); err != nil {
			return err
		}
	}
	for _, rec := range append(actions, artifacts...) {
		rec["case"] = c.ID()
		if err := jsonLine(buf, rec); err != nil {
			return err
		}
	}
	return nil
}

// caseRecord is a case's summary record but for its counts.
func (r *Run) caseRecord(c *verdict.Case, id, status string, golden bool) record {
	cr := record{
		"k": "case", "case_id": id, "case": c.ID(), "item_id": c.Adapter, "case_key": c.Scenario, "test_name": c.Scenario,
		"status": status, "outcome": string(c.Status),
	}
	if c.CassettePath != "" {
		cr["case_inputs"] = record{"cassette": c.CassettePath}
	}
	if c.Failed() {
		cr["reason_code"] = string(c.ReasonAt(r.now()))
		cr["blocking"] = c.Blocking(r.now())
	}
	if c.Quarantine != nil {
		cr["quarantined"] = c.Quarantined(r.now())
	}
	if n := len(c.Retries); n > 0 {
		// the quarantine retry policy (specs/000): how many times the case
		// was run again, after which delay, and what the first attempt gave
		cr["retries"], cr["retry_delay_ms"], cr["first_outcome"] = n, c.Retries[0].DelayMS, string(c.Retries[0].Status)
	}
	if c.Message != "" {
		cr["notes"] = truncateString(c.Message, 1024)
	}
	if !golden {
		cr["duration_ms"] = ms(c.Duration)
	}
	return cr
}

// jsonlSummary is the last record. Its exit_code follows specs/001 §9 (0,
// 1, 2): an infrastructure failure (exit 3 of specs/002) is a runner error
// there, 2; process_exit_code and reason_code keep the precise outcome.
func (r *Run) jsonlSummary(sum jsonlCounts, golden bool) record {
	final := record{"k": "summary", "case_pass": sum.casePass, "case_fail": sum.caseFail,
		"case_quarantined": sum.caseQuar, "case_skip": sum.caseSkip,
		"assert_pass": sum.assertPass, "assert_fail": sum.assertFail,
		"exit_code": min(int(r.Exit()), 2), "process_exit_code": int(r.Exit()), "reason_code": string(r.Reason())}
	if !golden {
		final["duration_ms"] = ms(r.Duration())
	}
	return final
}

// caseEvents renders a case's action and artifact records. Every artifact
// names the action that produced it: the case's action with the artifact's
// Action ID, or else an artifactPublish action of its own. A case that
// errored without a failing action gets one "run" action that failed, so
// that unhandled_action_fail counts records a consumer can see.
func (r *Run) caseEvents(c *verdict.Case, id string, limit int, golden bool) (actions, artifacts []record) {
	failing := false
	byID := map[string]int{}
	for i, a := range c.Actions {
		rec := actionRecord(id, i, a, limit, golden)
		if a.ID != "" {
			byID[a.ID] = i
		}
		failing = failing || a.Err != ""
		actions = append(actions, rec)
	}
	if c.Status == verdict.StatusError && !failing {
		rc := c.ReasonAt(r.now())
		msg := firstLine(c.Message)
		if msg == "" {
			msg = string(rc)
		}
		actions = append(actions, record{"k": "action", "case_id": id, "action_ix": len(actions), "action": "run",
			"action_id": "case", "args": record{"cassette": c.CassettePath}, "status": "fail",
			"fail": record{"kind": rootCause(rc), "msg": truncateString(msg, 1024), "code": string(rc)}})
	}
	for i, a := range c.Artifacts {
		ix, ok := byID[a.Action]
		if a.Action == "" || !ok {
			ix = len(actions)
			actions = append(actions, record{"k": "action", "case_id": id, "action_ix": ix, "action": "artifactPublish",
				"action_id": "publish:" + a.Name, "args": record{"name": a.Name}, "status": "ok",
				"ok": record{"name": a.Name, "kind": a.Kind, "path": a.Path}})
		}
		artifacts = append(artifacts, record{"k": "artifact", "case_id": id, "artifact_ix": i, "action_ix": ix,
			"name": a.Name, "event": "publish", "kind": a.Kind, "status": "ok",
			"location": record{"path": a.Path}})
	}
	return actions, artifacts
}

func actionRecord(id string, ix int, a verdict.Action, limit int, golden bool) record {
	rec := record{"k": "action", "case_id": id, "action_ix": ix, "action": a.Kind}
	if a.ID != "" {
		rec["action_id"] = a.ID
	}
	payload := record{}
	switch a.Kind {
	case "http":
		rec["args"] = record{"method": a.Method, "url": a.URL}
		payload["status"] = a.StatusCode
		preview(payload, "body_len", "body_preview_b64", "body_truncated", a.Body, limit)
	default:
		argv := a.Argv
		if argv == nil {
			argv = []string{}
		}
		rec["args"] = record{"argv": argv}
		payload["exit"] = a.Exit
		preview(payload, "out_len", "out_preview_b64", "out_truncated", a.Stdout, limit)
		preview(payload, "err_len", "err_preview_b64", "err_truncated", a.Stderr, limit)
	}
	if a.Err != "" {
		rec["status"] = "fail"
		kind := a.ErrKind
		if kind == "" {
			kind = "error"
		}
		rec["fail"] = record{"kind": kind, "msg": truncateString(a.Err, 1024)}
	} else {
		rec["status"] = "ok"
		rec["ok"] = payload
	}
	if a.Attempts > 0 {
		rec["attempts"] = a.Attempts
		rec["retry_backoff_ms"] = backoffList(a.RetryBackoffMS)
	}
	if !golden {
		rec["duration_ms"] = ms(a.Duration)
	}
	return rec
}

func truncateString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	// cut on a rune boundary
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n] + "…"
}
