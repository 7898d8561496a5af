package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// LogSchema is the schema id of every record of the structured test log:
// cassette's counterpart of specs/000's pi.test.log.v2, whose stable fields
// (schema, type, level, category, message, context) and correlation fields
// (trace_id, span_id, parent_span_id, ci_correlation_id) every record
// carries under the same names (README.md, Reports).
const LogSchema = "cassette.test.log.v2"

func spanID(parts ...string) string {
	var b bytes.Buffer
	for _, p := range parts {
		b.WriteString(p)
		b.WriteByte(0x1f)
	}
	return sha256Hex(b.Bytes())[:16]
}

// testLog renders log.jsonl: run_start, one case record per case (with a
// live_call record per live call, and a failure_digest record when it
// failed, a run-level error's included), and run_end. Every record
// carries schema and trace_id; span ids are strings.
func (r *Run) testLog(opts Options) ([]byte, error) {
	trace := r.traceID(opts.Golden)
	w := &logWriter{run: r, opts: opts, trace: trace, runSpan: spanID(trace, "run")}
	start := record{"suite": r.Suite, "command": r.command(), "cases": len(r.Cases),
		"inventory_sha256": InventoryDigest(r.Inventory), "suite_sha256": sha256Hex(r.ConfigBytes)}
	corr := record{"correlation_id": r.correlationID(opts.Golden)}
	if err := w.emit("run_start", "info", "run", r.command()+" "+r.Suite, w.runSpan, "", start, corr); err != nil {
		return nil, err
	}
	for _, c := range r.reportCases() {
		if err := w.logCase(c); err != nil {
			return nil, err
		}
	}
	c := r.Counts()
	end := record{"exit_code": int(r.Exit()), "reason_code": string(r.Reason()), "next_step": r.NextStepCommand(),
		"total": c.Total, "pass": c.Pass, "fail": c.Fail, "quarantined": c.Quarantined, "skip": c.Skipped}
	endCorr := record{"correlation_id": r.correlationID(opts.Golden)}
	if !opts.Golden {
		endCorr["duration_ms"] = ms(r.Duration())
	}
	level := "info"
	if r.Exit() != outcome.ExitPass {
		level = "error"
	}
	if err := w.emit("run_end", level, "run", r.Message(), w.runSpan, "", end, endCorr); err != nil {
		return nil, err
	}
	return w.buf.Bytes(), nil
}

// logWriter writes the records of one log.jsonl.
type logWriter struct {
	run            *Run
	opts           Options
	trace, runSpan string
	buf            bytes.Buffer
}

// emit writes one record. The six stable fields (schema, type, level,
// category, message, context) are what cross-run comparison projects on
// (specs/000): the correlation and timing fields (trace and span ids,
// correlation_id, duration_ms, ts: volatile) are beside them, never inside
// context.
func (w *logWriter) emit(typ, level, category, msg, span, parent string, ctx, volatile record) error {
	rec := record{"schema": LogSchema, "type": typ, "trace_id": w.trace, "level": level,
		"category": category, "message": msg, "span_id": span, "context": ctx}
	for k, v := range volatile {
		rec[k] = v
	}
	if parent != "" {
		rec["parent_span_id"] = parent
	}
	if w.run.CICorrelationID != "" {
		rec["ci_correlation_id"] = w.run.CICorrelationID
	}
	if !w.opts.Golden {
		rec["ts"] = w.opts.now().UTC().Format(time.RFC3339Nano)
	}
	return jsonLine(&w.buf, rec)
}

// logCase writes a case's records: the case, its live calls, its failure
// digest.
func (w *logWriter) logCase(c *verdict.Case) error {
	r := w.run
	id := caseID(c.Adapter, c.Scenario)
	span := spanID(w.trace, id)
	level := "info"
	switch {
	case c.Failed() && c.Quarantined(r.now()):
		level = "warn"
	case c.Failed():
		level = "error"
	}
	ctx := record{"case_id": id, "case": c.ID(), "adapter": c.Adapter, "scenario": c.Scenario, "status": string(c.Status), "cassette": c.CassettePath}
	if c.Failed() {
		ctx["reason_code"] = string(c.ReasonAt(r.now()))
	}
	if c.Quarantine != nil {
		ctx["quarantined"] = c.Quarantined(r.now())
	}
	if n := len(c.Retries); n > 0 {
		ctx["retries"], ctx["retry_delay_ms"], ctx["first_outcome"] = n, c.Retries[0].DelayMS, string(c.Retries[0].Status)
	}
	if l := c.Live; l != nil {
		ctx["execution_mode"], ctx["replay_boundary"], ctx["trace_origin"] = l.ExecutionMode, l.ReplayBoundary, l.TraceOrigin
	}
	var timing record
	if !w.opts.Golden {
		timing = record{"duration_ms": ms(c.Duration)}
	}
	if err := w.emit("case", level, "case", c.ID()+" "+string(c.Status), span, w.runSpan, ctx, timing); err != nil {
		return err
	}
	if err := liveCalls(c, id, func(failed bool, msg string, ctx record) error {
		lv := "info"
		if failed {
			lv = level
		}
		return w.emit("live_call", lv, "live", msg, span, w.runSpan, ctx, nil)
	}); err != nil {
		return err
	}
	if !c.Failed() {
		return nil
	}
	dctx := digestRecord(id, c, r.digest(c))
	dctx["reason_code"] = string(c.ReasonAt(r.now()))
	return w.emit("failure_digest", level, "case", c.ID()+" failed", span, w.runSpan, dctx, nil)
}

// liveCalls emits one live_call record per live call of a re-recorded
// case (an action with retry telemetry): the live provider result of
// specs/000, with the live_record fields and the call's own attempts and
// retry_backoff_ms.
func liveCalls(c *verdict.Case, id string, emit func(failed bool, msg string, ctx record) error) error {
	if c.Live == nil {
		return nil
	}
	for i, a := range c.Actions {
		if a.Attempts == 0 {
			continue
		}
		ctx := record{"case_id": id, "case": c.ID(), "action_ix": i, "action_id": a.ID,
			"execution_mode": c.Live.ExecutionMode, "replay_boundary": c.Live.ReplayBoundary, "trace_origin": c.Live.TraceOrigin,
			"attempts": a.Attempts, "retry_backoff_ms": backoffList(a.RetryBackoffMS)}
		status := "ok"
		if a.Err != "" {
			status = "fail"
		}
		ctx["status"] = status
		if err := emit(a.Err != "", fmt.Sprintf("%s %s: %d attempt(s), %s", c.ID(), cmpOr(a.ID, a.Kind), a.Attempts, status), ctx); err != nil {
			return err
		}
	}
	return nil
}

// backoffList never returns nil, so that JSON shows [] for no retries.
func backoffList(b []int64) []int64 {
	if b == nil {
		return []int64{}
	}
	return b
}

// correlationID identifies the run in run-level summaries (specs/000:
// correlation_id in evidence and replay summaries): the trace id.
func (r *Run) correlationID(golden bool) string { return r.traceID(golden) }

func digestRecord(id string, c *verdict.Case, d verdict.FailureDigest) record {
	rec := record{"root_cause_class": d.RootCauseClass, "first_failing_assertion": d.FirstFailingAssertion,
		"suite_replay_command": d.ReplaySuite, "targeted_test_replay_command": d.ReplayCase,
		"remediation_pointer": record{"replay_command": d.ReplayCase}}
	if c != nil {
		rec["case_id"] = id
		rec["case"] = c.ID()
		rec["adapter"] = c.Adapter
		rec["scenario"] = c.Scenario
	}
	return rec
}

// ValidateLog checks a structured test log against cassette.test.log.v2:
// every line a JSON object with the schema id, a non-empty trace_id, span
// fields that are strings when present, and failure digests whose
// root_cause_class is declared and whose first_failing_assertion is
// non-empty. file names the log in the problems.
func ValidateLog(file string, data []byte) []outcome.Problem {
	var probs []outcome.Problem
	bad := func(line int, field, msg, want string) {
		probs = append(probs, outcome.Problem{File: file, Line: line, Field: field, Message: msg, Expected: want})
	}
	for i, ln := range bytes.Split(data, []byte("\n")) {
		line := i + 1
		if len(bytes.TrimSpace(ln)) == 0 {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal(ln, &rec); err != nil {
			bad(line, "", "not a JSON object: "+err.Error(), "one JSON object per line")
			continue
		}
		if rec["schema"] != LogSchema {
			bad(line, "schema", fmt.Sprintf("schema is %v", rec["schema"]), LogSchema)
		}
		if s, ok := rec["trace_id"].(string); !ok || s == "" {
			bad(line, "trace_id", "missing or empty trace_id", "a non-empty string")
		}
		for _, f := range []string{"span_id", "parent_span_id", "ci_correlation_id"} {
			if v, ok := rec[f]; ok {
				if _, isStr := v.(string); !isStr {
					bad(line, f, f+" is not a string", "a string")
				}
			}
		}
		if rec["type"] == "failure_digest" {
			ctx, _ := rec["context"].(map[string]any)
			rc, _ := ctx["root_cause_class"].(string)
			if !slices.Contains(RootCauseClasses, rc) {
				bad(line, "context.root_cause_class", fmt.Sprintf("root_cause_class %q is not declared", rc), fmt.Sprint(RootCauseClasses))
			}
			if s, _ := ctx["first_failing_assertion"].(string); s == "" {
				bad(line, "context.first_failing_assertion", "empty first_failing_assertion", "a non-empty string")
			}
		}
	}
	return probs
}
