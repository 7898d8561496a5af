package report

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
)

// Run is everything the report contracts say about one run of one command.
// The command that ran (verify, refresh, record) fills it; the report package
// only reads it. The zero value of every optional field is a sensible default.
type Run struct {
	// Tool identifies the cassette build that ran.
	Tool Tool `json:"tool"`
	// Command is "verify", "refresh" or "record".
	Command string `json:"command"`
	// Mode is the command's mode as the user chose it (e.g. "replay",
	// "record", "passthrough"); informational.
	Mode string `json:"mode,omitempty"`
	// VerifyMode is "enabled" unless the run was made with its checks turned
	// off (e.g. --no-verify), then "disabled" (specs/002 §3.2). Empty means
	// "enabled".
	VerifyMode string `json:"verify_mode,omitempty"`
	// Suite names the suite: the project directory's name, e.g. "shop".
	Suite string `json:"suite"`
	// ConfigPath is the path of cassette.yaml as the user gave it; it is the
	// synthetic SARIF location of results that have no file of their own.
	ConfigPath string `json:"config_path,omitempty"`
	// ConfigBytes is the normalized configuration; suite_sha256 is its
	// SHA-256 (nil hashes as the empty byte sequence).
	ConfigBytes []byte `json:"config_bytes,omitempty"`
	// Inventory is the cassette set the run used; inventory_sha256 and
	// bundle_digest are computed from it (see [InventoryDigest]).
	Inventory []InventoryItem `json:"inventory,omitempty"`
	// Started and Finished bound the run (volatile: omitted in golden mode).
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	// Seeds are the run's seeds; nil ones are written as null.
	Seeds Seeds `json:"seeds"`
	// Shard is "i/n" when the run was one shard of a matrix (informational).
	Shard string `json:"shard,omitempty"`
	// Cases are the cases run, in any order: reports sort them by adapter,
	// then scenario.
	Cases []Case `json:"cases,omitempty"`
	// Err is a run-level error (missing config, fake unavailable, …). Its
	// reason decides the run's exit code and its next step is the run's.
	Err *cassettes.Error `json:"-"`
	// NextStep overrides the derived next step of a failing run.
	NextStep string `json:"next_step,omitempty"`
	// ReplayCommand is the command that replays the whole suite; empty means
	// "cassette verify". A case's targeted replay appends
	// " --case <adapter>/<scenario>".
	ReplayCommand string `json:"replay_command,omitempty"`
	// TraceID correlates every record of the structured log and is the
	// run's correlation_id; empty means one derived from the inputs, the
	// start time and the shard (in golden mode always from the inputs only,
	// so that golden logs are stable).
	TraceID string `json:"trace_id,omitempty"`
	// CICorrelationID links the shards of one CI run (optional).
	CICorrelationID string `json:"ci_correlation_id,omitempty"`
	// History is refresh's drift history by adapter (report.html draws it).
	History []AdapterHistory `json:"history,omitempty"`
	// Coverage is what a run of `cassette coverage` found (coverage.go).
	Coverage *Coverage `json:"coverage,omitempty"`
	// MinModelled are the adapters' coverage.min_modelled, by adapter
	// (modelled.go).
	MinModelled map[string]*float64 `json:"min_modelled,omitempty"`

	// payloadsRedacted: redactPayloads made this run (its payloads are
	// decoded and redacted already).
	payloadsRedacted bool
}

// Tool identifies the cassette build that produced a report.
type Tool struct {
	Name    string `json:"name"`          // "cassette"
	Version string `json:"version"`       // e.g. "0.3.0"
	SHA     string `json:"sha,omitempty"` // VCS revision of the build
	URI     string `json:"uri,omitempty"` // information URI (SARIF)
}

// InventoryItem is one cassette file of the set a run used.
type InventoryItem struct {
	Path   string `json:"path"`   // slash-separated, relative to the project
	SHA256 string `json:"sha256"` // lowercase hex of the file's bytes
	Bytes  int64  `json:"bytes"`
}

// NewInventoryItem describes the file at path with the given content.
func NewInventoryItem(path string, data []byte) InventoryItem {
	sum := sha256.Sum256(data)
	return InventoryItem{Path: path, SHA256: hex.EncodeToString(sum[:]), Bytes: int64(len(data))}
}

// Seeds are the run's seeds (specs/002 §3.3.1); nil means unknown.
type Seeds struct {
	Order *uint64 `json:"order,omitempty"`
	Judge *uint64 `json:"judge,omitempty"`
}

// Status is the outcome of one case.
type Status string

// The case outcomes. A quarantined case keeps its real outcome and carries
// Case.Quarantine; its failure does not fail the run unless the quarantine
// has expired.
const (
	StatusPass    Status = "pass"
	StatusFail    Status = "fail"    // the fake's output differs from the cassette
	StatusError   Status = "error"   // the case could not be run to a comparison
	StatusSkipped Status = "skipped" // not run (e.g. no credentials for a refresh)
)

// Case is the result of one cassette: one scenario of one adapter.
type Case struct {
	Adapter      string           `json:"adapter"`
	Scenario     string           `json:"scenario"`
	CassettePath string           `json:"cassette_path,omitempty"` // slash-separated
	Status       Status           `json:"status"`
	Reason       cassettes.Reason `json:"reason,omitempty"` // why it failed; empty for a drift means E_CONTRACT_DRIFT
	Message      string           `json:"message,omitempty"`
	NextStep     string           `json:"next_step,omitempty"`
	Drifts       []Drift          `json:"drifts,omitempty"`
	Duration     time.Duration    `json:"duration,omitempty"`
	Digest       *FailureDigest   `json:"digest,omitempty"` // nil: derived for failed cases
	// Actions are what the case did against the side under test (the fake,
	// or the real service in a refresh), with that side's outputs
	// normalized as they were compared.
	Actions []Action `json:"actions,omitempty"`
	// Recorded is the cassette's side, normalized as it was compared, in
	// the shape of Actions: one "http" action per interaction (ID
	// "interactions[i]", with the response's status, headers and body) or
	// one "proc" action (ID "output"). report.html pairs it with Actions by
	// ID. A producer gives it for the cases that failed; without it a case
	// shows its drifts and their diffs only.
	Recorded   []Action        `json:"recorded,omitempty"`
	Artifacts  []Artifact      `json:"artifacts,omitempty"`
	Quarantine *QuarantineInfo `json:"quarantine,omitempty"`
	// Retries are the attempts of a quarantined case that failed before its
	// last one, oldest first (specs/000: a failing quarantined case is run
	// again after a delay, within its retry budget); the case's own outcome
	// is its last attempt's. A case that is not quarantined is never retried.
	Retries []Retry `json:"retries,omitempty"`
	// Live is the live_record result of a case re-recorded against the
	// real service (refresh), with its retry telemetry; nil for replay.
	Live *LiveRecord `json:"live,omitempty"`
	// ReplayCommand is the command that reproduces this case; empty means
	// the run's replay command with " --case <adapter>/<scenario>".
	ReplayCommand string `json:"replay_command,omitempty"`
	// Modelled is, for a case compared in modelled mode, what its fake
	// models of what reality returned (modelled.go).
	Modelled *Modelled `json:"modelled,omitempty"`
}

// Retry is one failed attempt of a quarantined case that was run again.
type Retry struct {
	Status  Status           `json:"status"` // fail or error
	Reason  cassettes.Reason `json:"reason,omitempty"`
	Message string           `json:"message,omitempty"`
	// DelayMS is the wait before the next attempt, in milliseconds.
	DelayMS int64 `json:"delay_ms"`
}

// LiveRecord is the result contract of one live recording (specs/000): the
// live_record fields. The retry telemetry is per live call, on each of the
// case's actions (Action.Attempts, Action.RetryBackoffMS).
type LiveRecord struct {
	ExecutionMode  string `json:"execution_mode"`  // "live_record"
	ReplayBoundary string `json:"replay_boundary"` // "live_request_then_vcr_trace_extract"
	TraceOrigin    string `json:"trace_origin"`    // "vcr_last_interaction"
}

// Drift is one difference between the normalized output and the cassette.
type Drift struct {
	Class    string `json:"class"`               // failure class, e.g. "status", "header", "body", "stdout", "exit_code"; the SARIF rule
	Field    string `json:"field,omitempty"`     // field path in the cassette, e.g. interactions[0].response.body
	JSONPath string `json:"json_path,omitempty"` // within a JSON body, e.g. $.items[2].title
	Line     int    `json:"line,omitempty"`      // 1-based line of Field in the cassette file; 0 when unknown
	Message  string `json:"message"`
	Diff     string `json:"diff,omitempty"` // unified diff, cassette → fake
}

// Action is one thing a case did: an HTTP round trip or a process run.
// Bodies and outputs appear in the reports only as lengths and bounded
// base64url previews.
type Action struct {
	Kind string `json:"kind"`         // "http" or "proc"
	ID   string `json:"id,omitempty"` // stable id within the case, e.g. "interactions[0]"
	// http
	Method     string      `json:"method,omitempty"`
	URL        string      `json:"url,omitempty"`
	StatusCode int         `json:"status_code,omitempty"`
	Headers    http.Header `json:"headers,omitempty"` // the response headers (Case.Recorded)
	Body       []byte      `json:"body,omitempty"`    // the response body
	// proc
	Argv   []string `json:"argv,omitempty"`
	Stdout []byte   `json:"stdout,omitempty"`
	Stderr []byte   `json:"stderr,omitempty"`
	Exit   int      `json:"exit,omitempty"`
	// Err is set when the action itself failed (no response, could not
	// start); ErrKind classifies it (e.g. "timeout", "connect").
	Err      string        `json:"err,omitempty"`
	ErrKind  string        `json:"err_kind,omitempty"`
	Duration time.Duration `json:"duration,omitempty"`
	// Attempts and RetryBackoffMS are the retry telemetry of this live call
	// (specs/000): its attempts in all and the wait before each retry, so
	// Attempts is len(RetryBackoffMS)+1; zero for a replay.
	Attempts       int     `json:"attempts,omitempty"`
	RetryBackoffMS []int64 `json:"retry_backoff_ms,omitempty"`
}

// Artifact is a file a case produced, e.g. the fake's log.
type Artifact struct {
	Name string `json:"name"`
	Kind string `json:"kind"` // e.g. "log", "diff", "cassette"
	Path string `json:"path"`
	// Action is the ID of the case's action that produced the artifact;
	// empty (or an unknown ID) means the artifact was published by its own
	// artifactPublish action in report.jsonl.
	Action string `json:"action,omitempty"`
}

// QuarantineInfo is the quarantine entry of a case (specs/000 quarantine).
type QuarantineInfo struct {
	Category    string    `json:"category"` // FLAKE-TIMING, FLAKE-ENV, …
	Owner       string    `json:"owner"`
	Quarantined time.Time `json:"quarantined"`
	Expires     time.Time `json:"expires"`
	Issue       string    `json:"issue"` // tracking issue (the spec's bead)
	Evidence    string    `json:"evidence"`
	Repro       string    `json:"repro"`
	Reason      string    `json:"reason"`
	RemoveWhen  string    `json:"remove_when"`
	// Expired records that the quarantine had expired when the run ran, so
	// that a report read back (a golden run.json has no clock) keeps it.
	Expired bool `json:"expired,omitempty"`
}

// ID is the case's identity: "<adapter>/<scenario>".
func (c *Case) ID() string { return c.Adapter + "/" + c.Scenario }
