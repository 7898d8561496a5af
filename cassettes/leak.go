package cassettes

import (
	"fmt"
	"net/http"

	"github.com/cassette-dev/cassette/redact"
)

// The leak scan that runs before every write (Save) and on every load:
// the raw bytes of the file, then what they carry encoded. A problem names
// the file, line and kind of credential, never its value.

// leakProblems scans the raw bytes of a file for credentials.
func leakProblems(path string, data []byte, declared map[string]string) []Problem {
	var out []Problem
	for _, f := range redact.Scan(data, declared) {
		out = append(out, Problem{File: path, Line: f.Line, Column: f.Column, Message: "a credential (" + f.Kind + ") is stored in the file", Expected: redact.Redacted})
	}
	return out
}

// encodedLeaks scans the bodies the raw scan cannot read: bodies under a
// Content-Encoding redact decodes (a plain go-vcr cassette keeps them as
// recorded) and sidecar files.
func encodedLeaks(c *Cassette, declared map[string]string) []Problem {
	var out []Problem
	scan := func(field string, h http.Header, body Body, sidecar bool) {
		data := []byte(body)
		if dec, ok := redact.Decode(redact.Codings(h), data); ok {
			data = dec
		} else if !sidecar {
			return // already scanned as part of the file
		}
		for _, f := range redact.Scan(data, declared) {
			out = append(out, Problem{File: c.Path, Line: c.Line(field), Field: field,
				Message: "a credential (" + f.Kind + ") is stored in this body (found after decoding it)", Expected: redact.Redacted})
		}
	}
	for i, in := range c.Interactions {
		scan(fmt.Sprintf("interactions[%d].request.body", i), in.Request.Headers, in.Request.Body, in.Request.BodyFile != "")
		scan(fmt.Sprintf("interactions[%d].response.body", i), in.Response.Headers, in.Response.Body, in.Response.BodyFile != "")
	}
	return out
}
