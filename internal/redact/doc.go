// Package redact is cassette's one redaction: it says what a credential is
// and removes it from what a door is about to keep. Every door calls it —
// the recording proxy, the recorder (HTTP scenarios, CLI processes: their
// command line, input, output and environment, the go-vcr Transport),
// import, the reports and bundle, the fakes' logs and what the commands
// print — and it calls nobody back. It imports no other package of
// the project, so that the lowest floor (cassettes, whose save refuses a
// leak) and the highest use one definition.
//
// Decisions worth knowing:
//
//   - A value is known to be secret in three ways. By its name (Rules): a
//     header, query or form parameter, multipart field or JSON key named
//     like a credential (names.go says which), plus the names a project
//     adds in cassette.yaml (redact.names); on a command line a flag
//     (--token=X), a header given to a tool, an assignment, a URL's
//     password or token user, JSON (args.go). By its format (Patterns):
//     gitleaks' default rules and cassette's own (below). By its value:
//     the declared credential variables, the credential-named variables
//     of a recorded command's environment, and every value hidden because
//     of its name, which a Redactor learns and from then on scrubs where
//     it stands as a whole value (a bearer token echoed in a body; never
//     inside a longer word or a JSON key: learned.go). A dictionary word
//     ("secret", "changeme") is hidden where it stood, not learned; a
//     declared value is scrubbed wherever it appears. An import makes
//     one Redactor per source file: nothing learned in one file is
//     carried into another.
//   - Every value is matched in every form it takes on the wire
//     (Encodings: raw, percent-encoded, JSON-escaped with and without `\/`
//     and HTML escaping, base64 standard and URL-safe, padded or not). One
//     learned set holds them all, so a door cannot store a form another
//     door would have caught.
//   - The formats come from a maintained rule set, not a hand-kept list:
//     gitleaks v8's default configuration (MIT), copied into
//     rules/gitleaks.json by redact/rulegen (a module of its own, so that
//     gitleaks is no dependency), plus cassette's patterns (patterns.go:
//     private key blocks cut short, AWS secret keys by name, ya29. tokens,
//     passwords in URLs and connection strings, a token as a URL's user).
//     gitleaks.go says which rules are left out and why (generic-api-key:
//     measured false positives; rules on file paths). Documented example
//     keys (AKIAIOSFODNN7EXAMPLE…) are not secrets. Every pattern refuses
//     (Pattern.Refuse): none had a false positive on the real cassettes of
//     ../shared/testdata and the examples, or on 133 MB of JSON and YAML
//     from the Go module cache (README: "Token formats").
//   - The scan runs over every byte written (cassette save and load,
//     import, reports), so it must be fast: keywords are found in one pass
//     (keywords.go), a pattern whose matches start with a keyword is tried
//     only there, anchored, bounded ones on windows around their keywords
//     (match.go), and an expression is parsed and compiled when a text
//     first holds one of its keywords (building the set reads the rules
//     and indexes their keywords, nothing more). Go's expressions without
//     a literal prefix run at a few MB/s over a whole text; this runs at
//     100s of MB/s (BenchmarkScan).
//   - Names and sessions are values, never process state: a project makes
//     one Rules (cassettes.Project) and passes it down; each recording,
//     import or proxy run makes one Redactor (New), safe for concurrent use.
//     A nil *Rules is the built-in names alone. The rule set is built once,
//     on first use, and never changes.
//   - Redaction by name changes only the bytes of the value: key order,
//     spacing and the encoding of the other parameters are kept, so that a
//     cassette stays reviewable and replays byte for byte. It never fails:
//     a body that does not parse is redacted up to where it stops parsing.
//   - Values shorter than 6 bytes are not scrubbed: they would redact
//     ordinary text ("1", "on") and are too weak to be credentials.
//   - Compressed bodies are decoded before redaction so that it sees inside
//     them. The codings are a table of decoder and encoder keyed by content
//     coding (decode.go: gzip, x-gzip, deflate, br, zstd); layers ("gzip,
//     br") are undone from the last; gzip and zstd are recognised by their
//     magic bytes without a header. Such a body, and every integral one
//     (an archive, an image layer, octet-stream, a body checked by digest:
//     integral.go), is never rewritten: the scan reads inside it and its
//     callers refuse it when a credential is there, since a rewritten
//     tarball fails npm's integrity check on replay. A body that says or looks compressed and
//     does not decode (corrupt, an unknown coding, past MaxDecoded) is
//     ErrUndecodable: its callers refuse it rather than keep it unread.
//   - The scan (Scan, Redactor.Scan) reports where and what kind, never the
//     value. A caller that refuses what it finds instead of redacting it
//     (import without --redact) makes its Redactor with KeepFormats.
//   - Adding a coding, a key format or a credential name is one entry in
//     its table: codings, cassettePatterns (or a gitleaks upgrade), the
//     name lists of names.go.
//
// Walking the cassette types (an interaction's headers, URLs, form and
// bodies; a CLI cassette's input and output) lives next to those types, in
// package cassettes (Interaction.Redact, Cassette.Redact), as a thin call
// into a Redactor.
package redact
