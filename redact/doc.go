// Package redact is cassette's one redaction: it says what a credential is
// and removes it from what a door is about to keep. Every door calls it —
// the recording proxy, the recorder (HTTP scenarios, CLI processes, the
// go-vcr Transport), import, the reports, the fakes' logs and what the
// commands print — and it calls nobody back. It imports no other package of
// the project, so that the lowest floor (cassettes, whose save refuses a
// leak) and the highest use one definition.
//
// Decisions worth knowing:
//
//   - A value is known to be secret in three ways. By its name (Rules): a
//     header, query or form parameter, multipart field or JSON key named
//     like a credential (names.go says which), plus the names a project
//     adds in cassette.yaml (redact.names). By its format (Patterns): GitHub,
//     AWS, Slack, OpenAI/Anthropic-style keys, JWTs, private key blocks.
//     By its value: the declared credential variables, and every value
//     hidden because of its name, which a Redactor learns and from then on
//     scrubs wherever it appears (a bearer token echoed in a body).
//   - Every value is matched in every form it takes on the wire
//     (Encodings: raw, percent-encoded, JSON-escaped with and without `\/`
//     and HTML escaping, base64 standard and URL-safe, padded or not). One
//     learned set holds them all, so a door cannot store a form another
//     door would have caught.
//   - Names and sessions are values, never process state: a project makes
//     one Rules (cassettes.Project) and passes it down; each recording,
//     import or proxy run makes one Redactor (New), safe for concurrent use.
//     A nil *Rules is the built-in names alone.
//   - Redaction by name changes only the bytes of the value: key order,
//     spacing and the encoding of the other parameters are kept, so that a
//     cassette stays reviewable and replays byte for byte. It never fails:
//     a body that does not parse is redacted up to where it stops parsing.
//   - Values shorter than 6 bytes are not scrubbed: they would redact
//     ordinary text ("1", "on") and are too weak to be credentials.
//   - Compressed bodies are decoded before redaction so that it sees inside
//     them. The decoders are a table keyed by content coding (decode.go:
//     gzip, x-gzip, deflate as zlib or raw); a coding without an entry
//     (brotli, zstd) is kept as it came, and a body that would inflate past
//     MaxDecoded is kept encoded.
//   - The scan (Scan, Redactor.Scan) reports where and what kind, never the
//     value. It runs over every byte written (cassette save and load,
//     reports), so each key format carries literals that must occur for it
//     to match: a text with none of them costs a few substring searches.
//   - Adding a coding, a key format or a credential name is one entry in
//     its table: decoders, Patterns, the name lists of names.go.
//
// Walking the cassette types (an interaction's headers, URLs, form and
// bodies; a CLI cassette's input and output) lives next to those types, in
// package cassettes (Interaction.Redact, Cassette.Redact), as a thin call
// into a Redactor.
package redact
