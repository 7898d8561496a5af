package verdict

import (
	"net/http"
	"time"

	"github.com/cassette-dev/cassette/internal/outcome"
)

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
	Adapter      string         `json:"adapter"`
	Scenario     string         `json:"scenario"`
	CassettePath string         `json:"cassette_path,omitempty"` // slash-separated
	Status       Status         `json:"status"`
	Reason       outcome.Reason `json:"reason,omitempty"` // why it failed; empty for a drift means E_CONTRACT_DRIFT
	Message      string         `json:"message,omitempty"`
	NextStep     string         `json:"next_step,omitempty"`
	Drifts       []Drift        `json:"drifts,omitempty"`
	Duration     time.Duration  `json:"duration,omitempty"`
	Digest       *FailureDigest `json:"digest,omitempty"` // nil: derived for failed cases
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
	Status  Status         `json:"status"` // fail or error
	Reason  outcome.Reason `json:"reason,omitempty"`
	Message string         `json:"message,omitempty"`
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

// FailureDigest is the triage summary of a failed case (specs/000).
type FailureDigest struct {
	RootCauseClass        string `json:"root_cause_class"` // one of report.RootCauseClasses
	FirstFailingAssertion string `json:"first_failing_assertion"`
	ReplaySuite           string `json:"suite_replay_command,omitempty"`
	ReplayCase            string `json:"targeted_test_replay_command,omitempty"`
}

// Quarantined reports whether the case is under a quarantine that has not
// expired at time now.
func (c *Case) Quarantined(now time.Time) bool {
	if c.Quarantine == nil {
		return false
	}
	if c.Quarantine.Expired {
		return false
	}
	return c.Quarantine.Expires.IsZero() || !now.After(c.Quarantine.Expires)
}

// Failed reports whether the case failed: a drift (fail) or an error.
func (c *Case) Failed() bool { return c.Status == StatusFail || c.Status == StatusError }

// ReasonAt is the case's reason code when it failed.
func (c *Case) ReasonAt(now time.Time) outcome.Reason {
	if !c.Failed() {
		return ""
	}
	if c.Quarantine != nil && !c.Quarantined(now) {
		return outcome.EQuarantineExpired
	}
	if c.Reason != "" {
		return c.Reason
	}
	if c.Status == StatusFail {
		return outcome.EContractDrift
	}
	return outcome.ETestFailed
}

// Blocking reports whether the case's failure fails the run.
func (c *Case) Blocking(now time.Time) bool { return c.Failed() && !c.Quarantined(now) }
