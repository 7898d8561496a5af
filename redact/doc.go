// Package redact finds and removes credentials: the values of declared
// credential variables and the known key formats (GitHub, AWS, Slack,
// OpenAI/Anthropic-style keys, JWTs, private keys, bearer tokens).
//
// It is a leaf package that imports no other package of the project, so that
// both the cassette writer (which refuses to save a leak) and the recorder and
// normalizers (which redact before anything is stored) use one definition.
package redact
