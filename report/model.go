package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
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
	Actions      []Action         `json:"actions,omitempty"`
	Artifacts    []Artifact       `json:"artifacts,omitempty"`
	Quarantine   *QuarantineInfo  `json:"quarantine,omitempty"`
	// Live is the live_record result of a case re-recorded against the
	// real service (refresh), with its retry telemetry; nil for replay.
	Live *LiveRecord `json:"live,omitempty"`
	// ReplayCommand is the command that reproduces this case; empty means
	// the run's replay command with " --case <adapter>/<scenario>".
	ReplayCommand string `json:"replay_command,omitempty"`
}

// LiveRecord is the result contract of one live recording (specs/000): the
// live_record fields and the retry telemetry.
type LiveRecord struct {
	ExecutionMode  string  `json:"execution_mode"`  // "live_record"
	ReplayBoundary string  `json:"replay_boundary"` // "live_request_then_vcr_trace_extract"
	TraceOrigin    string  `json:"trace_origin"`    // "vcr_last_interaction"
	Attempts       int     `json:"attempts"`
	RetryBackoffMS []int64 `json:"retry_backoff_ms"`
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

// FailureDigest is the triage summary of a failed case (specs/000).
type FailureDigest struct {
	RootCauseClass        string `json:"root_cause_class"` // one of RootCauseClasses
	FirstFailingAssertion string `json:"first_failing_assertion"`
	ReplaySuite           string `json:"suite_replay_command,omitempty"`
	ReplayCase            string `json:"targeted_test_replay_command,omitempty"`
}

// The declared root-cause taxonomy of failure digests.
const (
	RootContractDrift   = "contract_drift"   // the fake's output differs from the cassette
	RootFakeError       = "fake_error"       // the fake answered with an error or crashed
	RootFakeUnavailable = "fake_unavailable" // the fake did not start or answer
	RootReplayMiss      = "replay_miss"      // a request matched no recorded interaction
	RootRealUnreachable = "real_unreachable" // the real service could not be reached
	RootTimeout         = "timeout"
	RootRateLimit       = "rate_limit"
	RootConfig          = "config"      // configuration or cassette error
	RootSecretLeak      = "secret_leak" // a credential would have been written
	RootQuarantine      = "quarantine_expired"
	RootRealDrift       = "real_drift"   // refresh: the real service changed; the fake still matches
	RootFakeDrift       = "fake_drift"   // refresh: the real service changed and the fake does not follow
	RootEscalated       = "escalated"    // refresh: drifting for escalate_after cycles
	RootProvider5xx     = "provider_5xx" // the real service answered 5xx after the retries
	RootForge           = "forge"        // the forge (git push, GitHub API) refused or failed
	RootInterrupted     = "interrupted"  // stopped by SIGINT/SIGTERM
	RootIO              = "io"           // a local file could not be read or written
	RootUnknown         = "unknown"
)

// RootCauseClasses lists the declared taxonomy, in a fixed order.
var RootCauseClasses = []string{RootContractDrift, RootRealDrift, RootFakeDrift, RootEscalated,
	RootFakeError, RootFakeUnavailable, RootReplayMiss, RootRealUnreachable, RootProvider5xx,
	RootTimeout, RootRateLimit, RootConfig, RootSecretLeak, RootQuarantine, RootForge,
	RootInterrupted, RootIO, RootUnknown}

// Action is one thing a case did: an HTTP round trip or a process run.
// Bodies and outputs appear in the reports only as lengths and bounded
// base64url previews.
type Action struct {
	Kind string `json:"kind"`         // "http" or "proc"
	ID   string `json:"id,omitempty"` // stable id within the case, e.g. "interactions[0]"
	// http
	Method     string `json:"method,omitempty"`
	URL        string `json:"url,omitempty"`
	StatusCode int    `json:"status_code,omitempty"`
	Body       []byte `json:"body,omitempty"` // the response body
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
	// Attempts and RetryBackoffMS are the retry telemetry of a live call
	// (specs/000); zero for a replay.
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

func (c *Case) failed() bool { return c.Status == StatusFail || c.Status == StatusError }

// reason is the case's reason code when it failed.
func (c *Case) reason(now time.Time) cassettes.Reason {
	if !c.failed() {
		return ""
	}
	if c.Quarantine != nil && !c.Quarantined(now) {
		return cassettes.EQuarantineExpired
	}
	if c.Reason != "" {
		return c.Reason
	}
	if c.Status == StatusFail {
		return cassettes.EContractDrift
	}
	return cassettes.ETestFailed
}

// blocking reports whether the case's failure fails the run.
func (c *Case) blocking(now time.Time) bool { return c.failed() && !c.Quarantined(now) }

// now is the reference time for quarantine expiry.
func (r *Run) now() time.Time {
	if !r.Started.IsZero() {
		return r.Started
	}
	return r.Finished
}

// Reason is the run's reason code: a run-level error's own reason; else,
// when cases failed (quarantined ones do not count), the reason of the most
// severe exit class among them (infrastructure 3, then user error 2, then
// failure 1: an infrastructure failure is never hidden behind a drift): the
// common reason of that class if its failures share one, else E_TEST_FAILED
// for class 1 and the first such failure's reason (in report order) for the
// others; else "" (pass).
func (r *Run) Reason() cassettes.Reason {
	if r.Err != nil {
		if r.Err.Reason == "" {
			return cassettes.EIO
		}
		return r.Err.Reason
	}
	severity := map[cassettes.Exit]int{cassettes.ExitFail: 1, cassettes.ExitUser: 2, cassettes.ExitInfra: 3}
	var common cassettes.Reason
	mixed := false
	for _, c := range r.sortedCases() {
		if !c.blocking(r.now()) {
			continue
		}
		rc := c.reason(r.now())
		switch {
		case common == "" || severity[rc.Exit()] > severity[common.Exit()]:
			common, mixed = rc, false
		case rc != common && rc.Exit() == common.Exit():
			mixed = true
		}
	}
	if mixed && common.Exit() == cassettes.ExitFail {
		return cassettes.ETestFailed
	}
	return common
}

// Exit is the run's exit class, derived from [Run.Reason].
func (r *Run) Exit() cassettes.Exit {
	rc := r.Reason()
	if rc == "" {
		return cassettes.ExitPass
	}
	return rc.Exit()
}

// Message is the run's one-line outcome.
func (r *Run) Message() string {
	if r.Err != nil {
		return firstLine(r.Err.Message)
	}
	c := r.Counts()
	var failed []string
	for _, cs := range r.sortedCases() {
		if cs.blocking(r.now()) {
			failed = append(failed, cs.ID())
		}
	}
	if len(failed) > 0 {
		const show = 3
		list := strings.Join(failed[:min(show, len(failed))], ", ")
		if len(failed) > show {
			list += fmt.Sprintf(", and %d more", len(failed)-show)
		}
		return fmt.Sprintf("%d of %d cassettes failed: %s", len(failed), c.Total, list)
	}
	msg := fmt.Sprintf("%d of %d cassettes passed", c.Pass, c.Total)
	if c.Quarantined > 0 {
		msg += fmt.Sprintf(" (%d quarantined failures)", c.Quarantined)
	}
	if c.Skipped > 0 {
		msg += fmt.Sprintf(" (%d skipped)", c.Skipped)
	}
	return msg
}

// NextStepCommand is the one concrete next step of a failing run: the
// run-level error's, Run.NextStep, the first failing case's own next step,
// or that case's targeted replay command. It is empty when the run passed.
func (r *Run) NextStepCommand() string {
	if r.Exit() == cassettes.ExitPass {
		return ""
	}
	if r.Err != nil && r.Err.NextStep != "" {
		return r.Err.NextStep
	}
	if r.NextStep != "" {
		return r.NextStep
	}
	for _, c := range r.sortedCases() {
		if !c.blocking(r.now()) {
			continue
		}
		if c.NextStep != "" {
			return c.NextStep
		}
		return "Run: " + r.caseReplay(c)
	}
	return "Run: " + r.suiteReplay()
}

func (r *Run) suiteReplay() string {
	if r.ReplayCommand != "" {
		return r.ReplayCommand
	}
	return "cassette verify"
}

func (r *Run) caseReplay(c *Case) string {
	if c.ReplayCommand != "" {
		return c.ReplayCommand
	}
	return r.suiteReplay() + " " + cassettes.Command("--case", c.ID())
}

// Counts are the case counts of a run.
type Counts struct {
	Total, Pass, Fail, Skipped int
	// Quarantined counts failed cases under an unexpired quarantine; they are
	// included in Fail but do not fail the run.
	Quarantined int
	// Blocking counts the failures that fail the run.
	Blocking int
}

// Counts counts the run's cases by outcome; a run-level error counts as
// one failed case (see [Run.reportCases]).
func (r *Run) Counts() Counts {
	var c Counts
	for _, cs := range r.reportCases() {
		c.Total++
		switch {
		case cs.failed():
			c.Fail++
			if cs.Quarantined(r.now()) {
				c.Quarantined++
			} else {
				c.Blocking++
			}
		case cs.Status == StatusSkipped:
			c.Skipped++
		default:
			c.Pass++
		}
	}
	return c
}

// Duration is the run's wall time (Finished − Started), or the sum of the
// case durations when the bounds are unknown.
func (r *Run) Duration() time.Duration {
	if !r.Started.IsZero() && !r.Finished.IsZero() {
		return r.Finished.Sub(r.Started)
	}
	var d time.Duration
	for _, c := range r.Cases {
		d += c.Duration
	}
	return d
}

// sortedCases returns pointers to the cases in report order: adapter, then
// scenario, then cassette path, by bytes.
func (r *Run) sortedCases() []*Case {
	out := make([]*Case, len(r.Cases))
	for i := range r.Cases {
		out[i] = &r.Cases[i]
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Adapter != b.Adapter {
			return a.Adapter < b.Adapter
		}
		if a.Scenario != b.Scenario {
			return a.Scenario < b.Scenario
		}
		return a.CassettePath < b.CassettePath
	})
	return out
}

// reportCases returns the cases every report file lists, in report order:
// the run's cases and, when the run has a run-level error, one failed case
// <tool>/<command> (e.g. cassette/verify) standing for it, so that
// junit.xml, summary.json, report.jsonl, log.jsonl and the bundle count the
// same tests.
func (r *Run) reportCases() []*Case {
	cs := r.sortedCases()
	if r.Err == nil {
		return cs
	}
	msg := r.Err.Message
	for _, p := range r.Err.Problems {
		msg += "\n" + p.String()
	}
	next := r.NextStepCommand()
	return append(cs, &Case{Adapter: r.toolName(), Scenario: r.command(), CassettePath: r.ConfigPath,
		Status: StatusError, Reason: r.Reason(), Message: msg, NextStep: next,
		ReplayCommand: strings.TrimPrefix(cmpOr(next, "Run: "+r.suiteReplay()), "Run: ")})
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// InventoryBytes is the normalized inventory byte sequence: one line
// "<sha256> <bytes> <path>\n" per distinct path, sorted by path bytes. The
// empty inventory is the empty byte sequence.
func InventoryBytes(items []InventoryItem) []byte {
	s := append([]InventoryItem(nil), items...)
	sort.SliceStable(s, func(i, j int) bool { return s[i].Path < s[j].Path })
	var b strings.Builder
	for i, it := range s {
		if i > 0 && s[i-1].Path == it.Path {
			continue
		}
		fmt.Fprintf(&b, "%s %d %s\n", it.SHA256, it.Bytes, it.Path)
	}
	return []byte(b.String())
}

// InventoryDigest is the lowercase hex SHA-256 of [InventoryBytes].
func InventoryDigest(items []InventoryItem) string { return sha256Hex(InventoryBytes(items)) }

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// traceID is the run's trace id: Run.TraceID, else one derived from the
// run's inputs and its start time (to the nanosecond) and shard, so that two
// runs' logs differ. In golden mode, which promises equal bytes for equal
// inputs, it is derived from the inputs only.
func (r *Run) traceID(golden bool) string {
	if r.TraceID != "" && !golden {
		return r.TraceID
	}
	in := r.command() + "\x1f" + r.Suite + "\x1f" + InventoryDigest(r.Inventory) + "\x1f" + sha256Hex(r.ConfigBytes)
	if !golden {
		in += "\x1f" + r.Started.UTC().Format(time.RFC3339Nano) + "\x1f" + r.Shard
	}
	return sha256Hex([]byte(in))[:32]
}

// digest returns the failure digest of a failed case: the case's own, with
// empty fields derived.
func (r *Run) digest(c *Case) FailureDigest {
	var d FailureDigest
	if c.Digest != nil {
		d = *c.Digest
	}
	if d.RootCauseClass == "" {
		d.RootCauseClass = rootCause(c.reason(r.now()))
	}
	if d.FirstFailingAssertion == "" {
		switch {
		case len(c.Drifts) > 0:
			d.FirstFailingAssertion = driftText(c.Drifts[0])
		case c.Message != "":
			d.FirstFailingAssertion = firstLine(c.Message)
		default:
			d.FirstFailingAssertion = fmt.Sprintf("%s: %s", c.ID(), c.Status)
		}
	}
	if d.ReplaySuite == "" {
		d.ReplaySuite = r.suiteReplay()
	}
	if d.ReplayCase == "" {
		d.ReplayCase = r.caseReplay(c)
	}
	return d
}

func driftText(d Drift) string { return driftOnce(d) }

// rootCause maps a reason code to the declared taxonomy.
func rootCause(rc cassettes.Reason) string {
	switch rc {
	case cassettes.EContractDrift:
		return RootContractDrift
	case cassettes.EFakeError:
		return RootFakeError
	case cassettes.EFakeUnavailable:
		return RootFakeUnavailable
	case cassettes.EReplayMiss:
		return RootReplayMiss
	case cassettes.ERealUnreachable:
		return RootRealUnreachable
	case cassettes.EProvider5xx:
		return RootProvider5xx
	case cassettes.ERealDrift:
		return RootRealDrift
	case cassettes.EFakeDrift:
		return RootFakeDrift
	case cassettes.EEscalated:
		return RootEscalated
	case cassettes.EForge, cassettes.EPushRejected:
		return RootForge
	case cassettes.EInterrupted:
		return RootInterrupted
	case cassettes.EIO:
		return RootIO
	case cassettes.ETestFailed:
		return RootContractDrift
	case cassettes.ETimeout:
		return RootTimeout
	case cassettes.ERateLimit:
		return RootRateLimit
	case cassettes.ESecretLeak:
		return RootSecretLeak
	case cassettes.EQuarantineExpired:
		return RootQuarantine
	}
	if rc != "" && rc.Exit() == cassettes.ExitUser {
		return RootConfig
	}
	return RootUnknown
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
