package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// The versions summary.json carries (specs/002 §3).
const (
	SummarySchemaVersion = 1
	ReasonCodeVersion    = 1
	SeedVersion          = 1
)

// Summary is summary.json (specs/002 §3). [ParseSummary] ignores keys it
// does not know, as the spec requires of consumers.
type Summary struct {
	SchemaVersion     int          `json:"schema_version"`
	ReasonCodeVersion int          `json:"reason_code_version"`
	ExitCode          int          `json:"exit_code"`
	ReasonCode        string       `json:"reason_code"`
	Message           string       `json:"message,omitempty"`
	NextStep          string       `json:"next_step,omitempty"`
	Provenance        Provenance   `json:"provenance"`
	Seeds             SummarySeeds `json:"seeds"`
	Results           Results      `json:"results"`
	Performance       *Performance `json:"performance,omitempty"`
	SARIF             *SARIFInfo   `json:"sarif,omitempty"`
	// CorrelationID identifies the run (specs/000: correlation_id in run
	// summaries); it is log.jsonl's trace_id.
	CorrelationID string `json:"correlation_id"`
	// Problems are the run-level error's problems (an extension key).
	Problems []ProblemJSON `json:"problems,omitempty"`
	// Modelled are the modelled figures per adapter and scenario of the
	// cases compared in modelled mode (an extension key: specs/002 §3
	// says consumers ignore unknown top-level keys).
	Modelled []ModelledAdapter `json:"modelled,omitempty"`
}

// Provenance makes a gate auditable (specs/002 §3.2). CassetteVersion plays
// the spec's tool-version role.
type Provenance struct {
	CassetteVersion  string `json:"cassette_version"`
	CassetteSHA      string `json:"cassette_sha,omitempty"`
	VerifyMode       string `json:"verify_mode"`
	PolicyPackDigest string `json:"policy_pack_digest,omitempty"` // sha256:<suite_sha256>, the config's digest
	Replay           bool   `json:"replay"`
	ReplayMode       string `json:"replay_mode,omitempty"`
	BundleDigest     string `json:"bundle_digest,omitempty"` // sha256:<inventory_sha256>, the cassette set's digest
}

// SummarySeeds are the seeds as decimal strings or null (specs/002 §3.3.1).
type SummarySeeds struct {
	SeedVersion int     `json:"seed_version"`
	OrderSeed   *string `json:"order_seed"`
	JudgeSeed   *string `json:"judge_seed"`
}

// Results are the case counts. Failed counts the failures that fail the
// run; Warned the quarantined ones.
type Results struct {
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Warned  int `json:"warned"`
	Skipped int `json:"skipped"`
	Total   int `json:"total"`
}

// Performance holds the run's timing (volatile: omitted in golden mode).
type Performance struct {
	TotalDurationMS int64 `json:"total_duration_ms"`
}

// SARIFInfo is present only when sarif.json was truncated.
type SARIFInfo struct {
	Omitted int `json:"omitted"`
}

// ProblemJSON is a outcome.Problem as JSON (its own tags).
type ProblemJSON = outcome.Problem

func problemsJSON(ps []outcome.Problem) []ProblemJSON {
	var out []ProblemJSON
	for _, p := range ps {
		out = append(out, ProblemJSON(p))
	}
	return out
}

func seedString(p *uint64) *string {
	if p == nil {
		return nil
	}
	s := strconv.FormatUint(*p, 10)
	return &s
}

// summary builds summary.json's content; omitted is the SARIF truncation count.
func (r *Run) summary(opts Options, omitted int) Summary {
	c := r.Counts()
	s := Summary{
		SchemaVersion:     SummarySchemaVersion,
		ReasonCodeVersion: ReasonCodeVersion,
		ExitCode:          int(r.Exit()),
		ReasonCode:        string(r.Reason()),
		Message:           r.Message(),
		NextStep:          r.NextStepCommand(),
		Provenance: Provenance{
			CassetteVersion: r.Tool.Version,
			CassetteSHA:     r.Tool.SHA,
			VerifyMode:      r.verifyMode(),
		},
		Seeds: SummarySeeds{SeedVersion: SeedVersion, OrderSeed: seedString(r.Seeds.Order), JudgeSeed: seedString(r.Seeds.Judge)},
		Results: Results{
			Passed: c.Pass, Failed: c.Blocking, Warned: c.Quarantined, Skipped: c.Skipped, Total: c.Total,
		},
		CorrelationID: r.correlationID(opts.Golden),
	}
	if len(r.ConfigBytes) > 0 { // no config read: no digest, rather than the empty input's
		s.Provenance.PolicyPackDigest = "sha256:" + sha256Hex(r.ConfigBytes)
	}
	if s.Provenance.CassetteVersion == "" {
		s.Provenance.CassetteVersion = "unknown"
	}
	if r.Command == "verify" || r.Command == "" {
		s.Provenance.Replay = true
		s.Provenance.ReplayMode = "offline"
		s.Provenance.BundleDigest = "sha256:" + InventoryDigest(r.Inventory)
	}
	if !opts.Golden {
		s.Performance = &Performance{TotalDurationMS: r.Duration().Milliseconds()}
	}
	if omitted > 0 {
		s.SARIF = &SARIFInfo{Omitted: omitted}
	}
	if r.Err != nil {
		s.Problems = problemsJSON(r.Err.Problems)
	}
	if m := r.ModelledFigures(); len(m) > 0 {
		s.Modelled = m
	}
	return s
}

// WriteSeeds prints the console line specs/002 §3.3.1 requires, so that CI
// job summaries show the seeds a replay needs:
//
//	Seeds: seed_version=1 order_seed=0 judge_seed=null
//
// An unknown seed is "null", as in summary.json.
func WriteSeeds(w io.Writer, run *Run) error {
	show := func(p *uint64) string {
		if s := seedString(p); s != nil {
			return *s
		}
		return "null"
	}
	_, err := fmt.Fprintf(w, "Seeds: seed_version=%d order_seed=%s judge_seed=%s\n", SeedVersion, show(run.Seeds.Order), show(run.Seeds.Judge))
	return err
}

func (r *Run) verifyMode() string {
	if r.VerifyMode == "" {
		return "enabled"
	}
	return r.VerifyMode
}

// ParseSummary parses summary.json bytes, ignoring unknown keys; path names
// the file in errors. It fails on a schema_version or reason_code_version
// it does not know (the spec's "compat required"), and on a non-zero exit
// without a reason code.
func ParseSummary(path string, data []byte) (*Summary, error) {
	var s Summary
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, &outcome.Error{Reason: outcome.ECfgParse, Message: "summary.json is not valid JSON", Err: err,
			Problems: []outcome.Problem{{File: path, Message: err.Error(), Expected: "a JSON object (specs/002 §3)"}},
			NextStep: outcome.Command("cassette", "verify", "--report-dir", dirOf(path))}
	}
	var probs []outcome.Problem
	if s.SchemaVersion != SummarySchemaVersion {
		probs = append(probs, outcome.Problem{File: path, Field: "schema_version", Message: fmt.Sprintf("unsupported schema_version %d", s.SchemaVersion), Expected: strconv.Itoa(SummarySchemaVersion)})
	}
	if s.ReasonCodeVersion != ReasonCodeVersion {
		probs = append(probs, outcome.Problem{File: path, Field: "reason_code_version", Message: fmt.Sprintf("unsupported reason_code_version %d", s.ReasonCodeVersion), Expected: strconv.Itoa(ReasonCodeVersion)})
	}
	if s.ExitCode != 0 && s.ReasonCode == "" {
		probs = append(probs, outcome.Problem{File: path, Field: "reason_code", Message: "empty reason_code on a non-zero exit", Expected: "a registered reason code"})
	}
	if len(probs) > 0 {
		return &s, &outcome.Error{Reason: outcome.ECfgParse, Message: "summary.json does not follow Outputs-v1", Problems: probs,
			NextStep: outcome.Command("cassette", "verify", "--report-dir", dirOf(path))}
	}
	return &s, nil
}
