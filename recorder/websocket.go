package recorder

import "github.com/cassette-dev/cassette/redact"

// A WebSocket message is redacted as a body is: a text message's JSON keys
// named like a credential are hidden and their values learned (a token a
// realtime session's first message carries is scrubbed from the rest),
// then declared and learned values and known key formats are scrubbed from
// every message, text or binary.

// learnMessage learns the values a text message hides by name.
func (r *Redactor) learnMessage(text []byte) {
	_, hidden := redact.RedactByName("", text)
	for _, v := range hidden {
		r.learn(v)
	}
}

// scrubMessage redacts one message's data.
func (r *Redactor) scrubMessage(data []byte, text bool) []byte {
	if text {
		data, _ = redact.RedactByName("", data)
	}
	return r.Bytes(data)
}
