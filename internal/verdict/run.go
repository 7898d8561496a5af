package verdict

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// Run is everything the report contracts say about one run of one command.
// The command that ran (verify, refresh, coverage, check) fills it; the
// renderer, package report, only reads it. The zero value of every optional field is a sensible default.
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
	// bundle_digest are computed from it (see report.InventoryDigest).
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
	Err *outcome.Error `json:"-"`
	// NextStep overrides the derived next step of a failing run.
	NextStep string `json:"next_step,omitempty"`
	// FailMessage overrides the derived one-line outcome of a failing run
	// (coverage: which adapters fall short, and by how much).
	FailMessage string `json:"fail_message,omitempty"`
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
	// Coverage is what a run of `cassette coverage` found.
	Coverage *Coverage `json:"coverage,omitempty"`
	// MinModelled are the adapters' coverage.min_modelled, by adapter.
	MinModelled map[string]*float64 `json:"min_modelled,omitempty"`

	// PayloadsRedacted: the renderer decoded and redacted the run's
	// payloads already (report.Publish sets it on the copy it renders, so
	// that the reports and the bundle redact them once). Never written.
	PayloadsRedacted bool `json:"-"`
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

// FileOrder is the order seed of every run cassette makes, early exits
// included: cases run in file order (adapter, then scenario), no seed is
// drawn, and 0 names that order. summary.json, run.json, the Seeds line and
// the bundle's repro.json and repro.env say the same. No judge seed: none
// is drawn (null, which specs/002 §3.3.1 allows until a judge exists).
func FileOrder() Seeds {
	order := uint64(0)
	return Seeds{Order: &order}
}

// AdapterHistory is refresh's drift history of one adapter: its last cycles
// from the escalation state, oldest first.
type AdapterHistory struct {
	Adapter     string         `json:"adapter"`
	Threshold   int            `json:"threshold"`   // the escalation threshold (escalate_after)
	Consecutive int            `json:"consecutive"` // the escalation count now
	Escalated   bool           `json:"escalated,omitempty"`
	Cycles      []HistoryCycle `json:"cycles"`
}

// HistoryCycle is one refresh cycle of an adapter.
type HistoryCycle struct {
	At          string `json:"at"`               // the cycle's start, RFC 3339
	Drifts      int    `json:"drifts"`           // cassettes that drifted
	Failed      int    `json:"failed,omitempty"` // cassettes the real side failed for: not compared
	Consecutive int    `json:"consecutive"`      // the escalation count after it
	Escalated   bool   `json:"escalated,omitempty"`
}

// File is one file of a run's evidence (a cassette as it was read, a
// fake's log), for the bundle: a slash-separated relative path (or a base
// name) and its content.
type File struct {
	Path string
	Data []byte
}

// GitInfo describes the working tree a run ran in.
type GitInfo struct {
	Commit string `json:"commit"`
	Branch string `json:"branch"`
	Dirty  bool   `json:"dirty"`
}
