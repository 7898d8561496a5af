package report

import (
	"strings"

	"github.com/cassette-dev/cassette/internal/verdict"
)

// driftOnce is a drift's one-line account that names its place once: the
// message as written, preceded by the cassette field and followed by the
// JSONPath only when the message does not already say them (verify's
// messages do: "value drift at interactions[0].response.body $.tag: …").
func driftOnce(d verdict.Drift) string {
	s := d.Message
	if d.Field != "" && !strings.Contains(s, d.Field) {
		s = d.Field + ": " + s
	}
	if d.JSONPath != "" && !strings.Contains(s, d.JSONPath) {
		s += " (at " + d.JSONPath + ")"
	}
	return firstLine(s)
}
