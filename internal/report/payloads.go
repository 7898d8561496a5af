package report

import (
	"fmt"
	"net/http"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// The bytes a run carries (each action's body, stdout and stderr, on both
// sides) reach run.json and the bundle in base64, where the text scan of
// the files cannot read them, and a fake's body may be compressed (it
// answered a recorded Accept-Encoding). Before anything is rendered, each
// is decoded (redact.Readable: its Content-Encoding, or gzip and zstd
// magic), redacted with the declared values, the known formats and the
// credential names, and kept decoded; one that cannot be decoded is
// replaced by a note, never written unread. The scan then reads the same
// bytes decoded (scanPayloads).

// undecodedNote replaces a payload redaction cannot read.
const undecodedNote = "[cassette: not shown: %v, so it could not be scanned for credentials]"

// redactPayloads returns run with every action payload decoded and
// redacted (see above); run itself is not changed.
func redactPayloads(run *Run, declared map[string]string) *Run {
	if run.PayloadsRedacted {
		return run // Publish redacted it once, for the reports and the bundle alike
	}
	red := redact.New(nil, declared)
	out := *run
	out.PayloadsRedacted = true
	out.Cases = make([]verdict.Case, len(run.Cases))
	for i, c := range run.Cases {
		c.Actions = redactActions(red, c.Actions)
		c.Recorded = redactActions(red, c.Recorded)
		out.Cases[i] = c
	}
	return &out
}

func redactActions(red *redact.Redactor, acts []verdict.Action) []verdict.Action {
	if acts == nil {
		return nil
	}
	out := make([]verdict.Action, len(acts))
	for i, a := range acts {
		h := a.Headers
		if plain, decoded := readablePayload(h, a.Body); decoded {
			h = h.Clone()
			h.Del("Content-Encoding")
			a.Headers = h
			a.Body = plain
		}
		a.Body = redactPayload(red, h.Get("Content-Type"), a.Body)
		a.Stdout = redactPayload(red, "", readableOr(a.Stdout))
		a.Stderr = redactPayload(red, "", readableOr(a.Stderr))
		a.URL, a.Err = red.URL(a.URL), red.String(a.Err)
		for j, arg := range a.Argv {
			if j == 0 {
				a.Argv = append([]string(nil), a.Argv...)
			}
			a.Argv[j] = red.String(arg)
		}
		if a.Headers != nil {
			a.Headers = red.Headers(a.Headers)
		}
		out[i] = a
	}
	return out
}

// readablePayload is the decoded body and true when its Content-Encoding
// or its magic bytes say it is compressed (a note when it cannot be
// decoded), or the body and false.
func readablePayload(h http.Header, b []byte) ([]byte, bool) {
	if len(b) == 0 || (len(redact.Codings(h)) == 0 && redact.Sniff(b) == "") {
		return b, false
	}
	plain, _, err := redact.Readable(h, b)
	if err != nil {
		return []byte(fmt.Sprintf(undecodedNote, err)), true
	}
	return plain, true
}

func readableOr(b []byte) []byte {
	plain, _ := readablePayload(nil, b)
	return plain
}

func redactPayload(red *redact.Redactor, contentType string, b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	return red.Body(contentType, b)
}

// scanPayload is the scan of one payload as the reports will hold it:
// decoded when compressed.
func scanPayload(data []byte, declared map[string]string) ([]redact.Finding, error) {
	plain, _, err := redact.Readable(nil, data)
	if err != nil {
		return nil, err
	}
	return redact.Scan(plain, declared), nil
}

// undecodableProblem is the problem of a payload the scan cannot read.
func undecodableProblem(dir, field string, err error) outcome.Problem {
	return outcome.Problem{File: dir, Field: field, Message: "the payload " + err.Error() + ": it would be written unread", Expected: "a payload that decodes"}
}
