package outcome

import (
	"errors"
	"fmt"
	"strings"
)

// Exit is the coarse process exit class of the PR-gate contract
// (specs/002 §4): it never changes meaning; reason codes carry the nuance.
type Exit int

// The exit classes.
const (
	ExitPass  Exit = 0 // everything passed
	ExitFail  Exit = 1 // one or more cassettes drifted or failed
	ExitUser  Exit = 2 // configuration or user error
	ExitInfra Exit = 3 // infrastructure: fake/real side unavailable, timeout, rate limit
)

// Reason is a stable, machine-readable reason code (specs/002 §5).
type Reason string

// The registered reason codes. New codes are added, never repurposed.
const (
	// exit 2: configuration or user error
	ECfgParse                Reason = "E_CFG_PARSE"
	EMissingConfig           Reason = "E_MISSING_CONFIG"
	ECassetteNotFound        Reason = "E_CASSETTE_NOT_FOUND"
	ECassetteInvalid         Reason = "E_CASSETTE_INVALID"
	EReplayMissingDependency Reason = "E_REPLAY_MISSING_DEPENDENCY"
	ESecretLeak              Reason = "E_SECRET_LEAK"
	EUsage                   Reason = "E_USAGE"
	EQuarantineInvalid       Reason = "E_QUARANTINE_INVALID"
	EBundleInvalid           Reason = "E_BUNDLE_INVALID"
	EObservationInvalid      Reason = "E_OBSERVATION_INVALID" // a line of .cassette/observed is not an observation
	ELocked                  Reason = "E_LOCKED"              // another process is writing the same cassette or adapter directory
	// exit 3: infrastructure
	ETimeout         Reason = "E_TIMEOUT"
	ERateLimit       Reason = "E_RATE_LIMIT"
	EProvider5xx     Reason = "E_PROVIDER_5XX"
	EFakeUnavailable Reason = "E_FAKE_UNAVAILABLE"
	ERealUnreachable Reason = "E_REAL_UNREACHABLE"
	EForge           Reason = "E_FORGE"
	EPushRejected    Reason = "E_PUSH_REJECTED"
	EIO              Reason = "E_IO"
	EInterrupted     Reason = "E_INTERRUPTED"  // stopped by SIGINT/SIGTERM before it finished
	ERealTLS         Reason = "E_REAL_TLS"     // the real side's TLS failed: certificate not trusted, wrong name, expired
	ERealDNS         Reason = "E_REAL_DNS"     // the real side's host name does not resolve
	ERealReset       Reason = "E_REAL_RESET"   // the real side closed or reset the connection mid-exchange
	ERealUpgrade     Reason = "E_REAL_UPGRADE" // the real side refused a WebSocket upgrade, or answered it with a handshake that is not valid
	ERealAuth        Reason = "E_REAL_AUTH"    // the real side refused the credentials (401, 403): wrong or expired

	// ERealSuspect: a re-recorded command went from exit 0 to a failure
	// with nothing on stdout, and no fault signature said why.
	ERealSuspect Reason = "E_REAL_SUSPECT"
	// exit 1: test failure
	ETestFailed        Reason = "E_TEST_FAILED"
	EContractDrift     Reason = "E_CONTRACT_DRIFT"
	EFakeError         Reason = "E_FAKE_ERROR"
	EQuarantineExpired Reason = "E_QUARANTINE_EXPIRED"
	EReplayMiss        Reason = "E_REPLAY_MISS"
	EEscalated         Reason = "E_ESCALATED"
	// coverage (exit 1): a call shape the tests sent to a fake is backed by
	// no cassette, or an adapter whose fake was called has none at all.
	EUncoveredCall Reason = "E_UNCOVERED_CALL"
	// refresh (exit 1): the real service changed and a refresh PR now
	// carries the new cassettes (the fake still matches them) …
	ERealDrift Reason = "E_REAL_DRIFT"
	// … or the fake no longer matches the re-recorded cassettes, and a
	// fake-drift companion issue was filed.
	EFakeDrift Reason = "E_FAKE_DRIFT"
)

var reasonExit = map[Reason]Exit{
	ECfgParse: ExitUser, EMissingConfig: ExitUser, ECassetteNotFound: ExitUser,
	ECassetteInvalid: ExitUser, EReplayMissingDependency: ExitUser, ESecretLeak: ExitUser,
	EUsage: ExitUser, EQuarantineInvalid: ExitUser, EBundleInvalid: ExitUser, EObservationInvalid: ExitUser, ELocked: ExitUser,
	ETimeout: ExitInfra, ERateLimit: ExitInfra, EProvider5xx: ExitInfra,
	EFakeUnavailable: ExitInfra, ERealUnreachable: ExitInfra, EForge: ExitInfra,
	EPushRejected: ExitInfra, EIO: ExitInfra, EInterrupted: ExitInfra,
	ERealTLS: ExitInfra, ERealDNS: ExitInfra, ERealReset: ExitInfra, ERealSuspect: ExitInfra, ERealUpgrade: ExitInfra, ERealAuth: ExitInfra,
	ETestFailed: ExitFail, EContractDrift: ExitFail, EFakeError: ExitFail,
	EQuarantineExpired: ExitFail, EReplayMiss: ExitFail, EEscalated: ExitFail,
	ERealDrift: ExitFail, EFakeDrift: ExitFail, EUncoveredCall: ExitFail,
}

// Exit returns the exit class a reason code maps to; an unregistered code is a
// user error so that nothing unknown ever passes as success.
func (r Reason) Exit() Exit {
	if e, ok := reasonExit[r]; ok {
		return e
	}
	return ExitUser
}

// Reasons lists every registered reason code (for documentation and tests).
func Reasons() []Reason {
	out := make([]Reason, 0, len(reasonExit))
	for r := range reasonExit {
		out = append(out, r)
	}
	return out
}

// Problem is one thing wrong with one place of one file.
type Problem struct {
	File       string `json:"file,omitempty"`       // path as the user gave it
	Line       int    `json:"line,omitempty"`       // 1-based; 0 when unknown
	Column     int    `json:"column,omitempty"`     // 1-based; 0 when unknown
	Field      string `json:"field,omitempty"`      // field path in yaml names, e.g. interactions[0].response.code
	Message    string `json:"message"`              // what is wrong
	Expected   string `json:"expected,omitempty"`   // what was expected, if it can be said
	Suggestion string `json:"suggestion,omitempty"` // e.g. "did you mean `timestamps.ISO8601`?"
}

// Location renders "file:line:col" as far as it is known; the file name
// is Printable (a name holding a line break cannot start a line of its
// own).
func (p Problem) Location() string {
	loc := Printable(p.File)
	if loc == "" {
		loc = "<input>"
	}
	if p.Line > 0 {
		loc += fmt.Sprintf(":%d", p.Line)
		if p.Column > 0 {
			loc += fmt.Sprintf(":%d", p.Column)
		}
	}
	return loc
}

// String renders the problem for a terminal or a log: on one line, unless
// its message has lines of its own (a fake log's last lines).
func (p Problem) String() string {
	var b strings.Builder
	if p.File != "" || p.Line > 0 { // a flag or an argument has no file: no made-up location
		b.WriteString(p.Location())
		b.WriteString(": ")
	}
	if p.Field != "" {
		b.WriteString(Printable(p.Field))
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	if p.Expected != "" {
		b.WriteString(" (expected ")
		b.WriteString(p.Expected)
		b.WriteString(")")
	}
	if p.Suggestion != "" {
		b.WriteString("; ")
		b.WriteString(p.Suggestion)
	}
	return b.String()
}

// Error is the one error model of every command: a reason code (which fixes
// the exit class), a message, the problems found (each with file, line and
// field) and one concrete next step.
type Error struct {
	Reason   Reason
	Message  string
	Problems []Problem
	NextStep string // a command the user can run next
	Err      error  // the underlying cause, if any
}

// Errorf builds an Error with a formatted message.
func Errorf(reason Reason, next string, format string, args ...any) *Error {
	return &Error{Reason: reason, NextStep: next, Message: fmt.Sprintf(format, args...)}
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Headline())
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Headline is the error's message and, when the message does not hold it
// already, its cause: the line a command prints after error[REASON]:,
// without the problems.
func (e *Error) Headline() string {
	if e.Err != nil && !strings.Contains(e.Message, e.Err.Error()) {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

// JSON is the error as a command's --json prints it: exit_code,
// reason_code, message (the Headline), problems ([] for none) and
// next_step.
func (e *Error) JSON() map[string]any {
	return map[string]any{
		"exit_code": int(e.Exit()), "reason_code": e.Reason, "message": e.Headline(),
		"problems": ProblemList(e.Problems), "next_step": e.NextStep,
	}
}

// ProblemList is ps, or an empty list for none: JSON shows [], never null.
func ProblemList(ps []Problem) []Problem {
	if ps == nil {
		return []Problem{}
	}
	return ps
}

// Exit is the exit class of the error's reason.
func (e *Error) Exit() Exit { return e.Reason.Exit() }

// AsError finds the *Error in err's chain. An error of another kind is
// wrapped as an infrastructure error so that no failure goes unclassified.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var ce *Error
	if errors.As(err, &ce) {
		return ce
	}
	return &Error{Reason: EIO, Message: err.Error(), Err: err, NextStep: Command("cassette", "validate")}
}
