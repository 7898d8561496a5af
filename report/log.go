package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
)

// LogSchema is the schema id of every record of the structured test log
// (the counterpart of specs/000's pi.test.log.v2).
const LogSchema = "cassette.test.log.v1"

func spanID(parts ...string) string {
	var b bytes.Buffer
	for _, p := range parts {
		b.WriteString(p)
		b.WriteByte(0x1f)
	}
	return sha256Hex(b.Bytes())[:16]
}

// testLog renders log.jsonl: run_start, one case record per case, a
// failure_digest record per failed case (and for a run-level error), and
// run_end. Every record carries schema and trace_id; span ids are strings.
func (r *Run) testLog(opts Options) ([]byte, error) {
	trace := r.traceID()
	runSpan := spanID(trace, "run")
	var buf bytes.Buffer
	emit := func(typ, level, category, msg, span, parent string, ctx record) error {
		rec := record{"schema": LogSchema, "type": typ, "trace_id": trace, "level": level,
			"category": category, "message": msg, "span_id": span, "context": ctx}
		if parent != "" {
			rec["parent_span_id"] = parent
		}
		if r.CICorrelationID != "" {
			rec["ci_correlation_id"] = r.CICorrelationID
		}
		if !opts.Golden {
			rec["ts"] = opts.now().UTC().Format(time.RFC3339Nano)
		}
		return jsonLine(&buf, rec)
	}
	start := record{"suite": r.Suite, "command": r.command(), "cases": len(r.Cases),
		"inventory_sha256": InventoryDigest(r.Inventory), "suite_sha256": sha256Hex(r.ConfigBytes)}
	if err := emit("run_start", "info", "run", r.command()+" "+r.Suite, runSpan, "", start); err != nil {
		return nil, err
	}
	for _, c := range r.sortedCases() {
		id := caseID(c.Adapter, c.Scenario)
		span := spanID(trace, id)
		level := "info"
		switch {
		case c.failed() && c.Quarantined(r.now()):
			level = "warn"
		case c.failed():
			level = "error"
		}
		ctx := record{"case_id": id, "case": c.ID(), "adapter": c.Adapter, "scenario": c.Scenario, "status": string(c.Status), "cassette": c.CassettePath}
		if c.failed() {
			ctx["reason_code"] = string(c.reason(r.now()))
		}
		if !opts.Golden {
			ctx["duration_ms"] = ms(c.Duration)
		}
		if err := emit("case", level, "case", c.ID()+" "+string(c.Status), span, runSpan, ctx); err != nil {
			return nil, err
		}
		if !c.failed() {
			continue
		}
		if err := emit("failure_digest", level, "case", c.ID()+" failed", span, runSpan, digestRecord(id, c, r.digest(c))); err != nil {
			return nil, err
		}
	}
	if r.Err != nil {
		d := FailureDigest{
			RootCauseClass:        rootCause(r.Reason()),
			FirstFailingAssertion: firstLine(r.Err.Message),
			ReplaySuite:           r.suiteReplay(),
			ReplayCase:            r.NextStepCommand(),
		}
		if d.FirstFailingAssertion == "" {
			d.FirstFailingAssertion = string(r.Reason())
		}
		ctx := digestRecord("", nil, d)
		ctx["reason_code"] = string(r.Reason())
		if err := emit("failure_digest", "error", "run", r.Err.Message, spanID(trace, "error"), runSpan, ctx); err != nil {
			return nil, err
		}
	}
	c := r.Counts()
	end := record{"exit_code": int(r.Exit()), "reason_code": string(r.Reason()), "next_step": r.NextStepCommand(),
		"total": c.Total, "pass": c.Pass, "fail": c.Fail, "quarantined": c.Quarantined, "skip": c.Skipped}
	if !opts.Golden {
		end["duration_ms"] = ms(r.Duration())
	}
	level := "info"
	if r.Exit() != cassettes.ExitPass {
		level = "error"
	}
	if err := emit("run_end", level, "run", r.Message(), runSpan, "", end); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func digestRecord(id string, c *Case, d FailureDigest) record {
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

// ValidateLog checks a structured test log against cassette.test.log.v1:
// every line a JSON object with the schema id, a non-empty trace_id, span
// fields that are strings when present, and failure digests whose
// root_cause_class is declared and whose first_failing_assertion is
// non-empty. file names the log in the problems.
func ValidateLog(file string, data []byte) []cassettes.Problem {
	var probs []cassettes.Problem
	bad := func(line int, field, msg, want string) {
		probs = append(probs, cassettes.Problem{File: file, Line: line, Field: field, Message: msg, Expected: want})
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
