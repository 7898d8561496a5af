package harness

import (
	"encoding/base64"
	"fmt"
	"unicode/utf8"

	"github.com/cassette-dev/cassette/internal/verdict"
)

// Version is the version of the harness protocol this build speaks. It is
// in every listing and summary; a line that asks for a later version is
// refused. A new optional field keeps the version; a field that changes
// meaning or becomes required makes the next one.
const Version = 1

// Listing is what `cassette cases --json` prints: the cases a harness must
// drive, in verify's order.
type Listing struct {
	// Type is "cases" when check answers a cases line with the listing
	// (empty, and left out, in what `cassette cases --json` prints).
	Type     string `json:"type,omitempty"`
	Protocol int    `json:"protocol"`
	// Config is cassette.yaml as given; Dir the absolute directory holding
	// it, which every file below is relative to (and where a binding runs
	// `cassette check`, so that its paths read as verify's).
	Config string `json:"config"`
	Dir    string `json:"dir"`
	Cases  []Case `json:"cases"`
}

// Case is one cassette as a harness drives it.
type Case struct {
	ID       string `json:"id"` // adapter/scenario
	Adapter  string `json:"adapter"`
	Scenario string `json:"scenario"`
	Kind     string `json:"kind"` // "cli" or "http"
	// File is the cassette, relative to the listing's dir with slashes;
	// Line the line of its scenario. File is unique where ID may not be.
	File       string      `json:"file"`
	Line       int         `json:"line"`
	Quarantine *Quarantine `json:"quarantine,omitempty"`
	CLI        *CLIInput   `json:"cli,omitempty"`
	HTTP       *HTTPInput  `json:"http,omitempty"`
}

// Quarantine is the case's entry under quarantine: in cassette.yaml. A
// quarantined case that fails does not fail the run until it expires.
type Quarantine struct {
	Category string `json:"category"`
	Owner    string `json:"owner"`
	Reason   string `json:"reason"`
	Expires  string `json:"expires"` // YYYY-MM-DD, the last day it holds
	Expired  bool   `json:"expired"`
	Issue    string `json:"issue,omitempty"`
}

// CLIInput is what to run a CLI fake with: the recorded command and
// arguments, standard input, the names (never the values) of the
// environment variables to pass from the harness's environment, and the
// directory verify runs the fake in (fake.dir, absolute).
type CLIInput struct {
	Command     string   `json:"command"`
	Args        []string `json:"args"`
	Stdin       *string  `json:"stdin,omitempty"`
	StdinBase64 string   `json:"stdin_base64,omitempty"`
	Env         []string `json:"env"`
	Dir         string   `json:"dir"`
}

// HTTPInput is the recorded requests of an HTTP case, in order. Request 0
// is sent as listed; a later request may depend on what the fake answered
// before (an id it made): ask for it with a "next" line, or send it as
// listed to a fake whose ids are the recorded ones.
type HTTPInput struct {
	Requests []Request `json:"requests"`
}

// Request is one request to send to an HTTP fake.
type Request struct {
	Method string `json:"method"`
	URL    string `json:"url"`    // as recorded, on the real service
	Target string `json:"target"` // the path and query to ask the fake
	// Headers as recorded, less the hop-by-hop ones a client sets itself.
	Headers    map[string][]string `json:"headers"`
	Body       *string             `json:"body,omitempty"`
	BodyBase64 string              `json:"body_base64,omitempty"`
}

// Line is one line a harness sends to `cassette check`.
type Line struct {
	Protocol int    `json:"protocol,omitempty"` // the version the harness speaks; 0 means 1
	Type     string `json:"type,omitempty"`     // "check" (the default), "next" or "cases"
	ID       string `json:"id,omitempty"`       // the case, as listed
	File     string `json:"file,omitempty"`     // the case's file, when its id is not unique
	Adapter  string `json:"adapter,omitempty"`  // for "cases": list only this adapter's cases
	// What the fake produced: CLI output, HTTP responses (for "next": the
	// responses so far), or Error when it could not answer at all.
	CLI        *CLIOutput  `json:"cli,omitempty"`
	HTTP       *HTTPOutput `json:"http,omitempty"`
	Error      string      `json:"error,omitempty"`
	DurationMS float64     `json:"duration_ms,omitempty"` // the fake's time, for the reports
	// Replay is the command that runs this case again in the harness
	// (a pytest node id, a node --test name pattern): the reports' next step.
	Replay string `json:"replay,omitempty"`
	// Test is the runner's test item that drove the fake (a pytest node
	// id, a node:test name): the reports hold one result per case and
	// test, as the runner counts them, so that a case two tests drive (a
	// test parametrized over two fakes) is two results, not the last one.
	Test string `json:"test,omitempty"`
}

// CLIOutput is what a CLI fake printed and its exit code.
type CLIOutput struct {
	Stdout       *string `json:"stdout,omitempty"`
	StdoutBase64 string  `json:"stdout_base64,omitempty"`
	Stderr       *string `json:"stderr,omitempty"`
	StderrBase64 string  `json:"stderr_base64,omitempty"`
	ExitCode     int     `json:"exit_code"`
}

// HTTPOutput is the fake's responses, in the order of the requests.
type HTTPOutput struct {
	Responses []Response `json:"responses"`
}

// Response is one response of an HTTP fake. Reason is the status text
// ("OK"); empty means the standard one.
type Response struct {
	Status     int                 `json:"status"`
	Reason     string              `json:"reason,omitempty"`
	Headers    map[string][]string `json:"headers,omitempty"`
	Body       *string             `json:"body,omitempty"`
	BodyBase64 string              `json:"body_base64,omitempty"`
}

// Result answers a "check" line: the case's verdict as verify gives it.
type Result struct {
	Type    string         `json:"type"` // "result"
	ID      string         `json:"id"`
	File    string         `json:"file"`
	Line    int            `json:"line"`   // the first drift's line, else the case's
	Status  verdict.Status `json:"status"` // pass, fail or error
	Reason  string         `json:"reason,omitempty"`
	Message string         `json:"message,omitempty"`
	// Blocking is whether the case fails the run: a failure that no
	// quarantine entry covers, or one whose entry expired.
	Blocking    bool            `json:"blocking"`
	Quarantined bool            `json:"quarantined"`
	Drifts      []verdict.Drift `json:"drifts"`
	// Explain is verify's rendering of the drifts (the text under a FAIL
	// line); Text is what a binding prints for a case that did not pass:
	// "file:line: message", then Explain.
	Explain string `json:"explain,omitempty"`
	Text    string `json:"text,omitempty"`
}

// NextRequest answers a "next" line: the request to send after the
// responses the line carried.
type NextRequest struct {
	Type    string  `json:"type"` // "request"
	ID      string  `json:"id"`
	Index   int     `json:"index"`
	Request Request `json:"request"`
}

// Problem answers a line that could not be taken: not JSON, an unknown
// case, a field missing. The run then exits 2.
type Problem struct {
	Type     string `json:"type"`  // "error"
	Input    int    `json:"input"` // the line's number on stdin, from 1
	ID       string `json:"id,omitempty"`
	Reason   string `json:"reason"`
	Message  string `json:"message"`
	NextStep string `json:"next_step"`
}

// Summary is the last line, once stdin is closed.
type Summary struct {
	Type        string `json:"type"` // "summary"
	Protocol    int    `json:"protocol"`
	Checked     int    `json:"checked"` // cases with a result (a case checked twice counts once: its last result)
	Passed      int    `json:"passed"`
	Failed      int    `json:"failed"`      // blocking failures and errors
	Quarantined int    `json:"quarantined"` // failures a quarantine entry covers
	Problems    int    `json:"problems"`    // lines answered with "error"
	ExitCode    int    `json:"exit_code"`
	Reason      string `json:"reason"`            // summary.json's reason_code: "" when the run passed
	Reports     string `json:"reports,omitempty"` // the report directory, when one was written
}

// encode gives bytes as a JSON string when they are UTF-8 and as base64
// (for the field's *_base64 twin) when they are not.
func encode(b []byte) (s *string, b64 string) {
	if utf8.Valid(b) {
		t := string(b)
		return &t, ""
	}
	return nil, base64.StdEncoding.EncodeToString(b)
}

// decode returns the bytes of a text field and its base64 twin; name is
// the field, for the message when both are set or the base64 is bad.
func decode(s *string, b64, name string) ([]byte, error) {
	switch {
	case s != nil && b64 != "":
		return nil, fmt.Errorf("%s and %s_base64 are both set: give one", name, name)
	case s != nil:
		return []byte(*s), nil
	case b64 != "":
		b, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			return nil, fmt.Errorf("%s_base64 is not standard base64: %v", name, err)
		}
		return b, nil
	}
	return nil, nil
}
