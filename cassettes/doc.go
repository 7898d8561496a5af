// Package cassettes is the cassette file format (one scenario's recorded
// input and output), its strict load and its atomic save; and the strict
// load of cassette.yaml, whose schema (the adapters, normalizers, refresh
// and quarantine settings) is internal/cfgschema's, because the two loads
// share one strict-YAML checker. It stands on the lowest floors only
// (redact, whose scan refuses a leak before a save, normalize, whose
// JSONPaths a contract names, cfgschema, whose Config a cassette is
// checked against, and outcome, whose errors it returns), and knows
// nothing of how a cassette was captured, replayed or compared.
//
// Decisions:
//
//   - HTTP cassettes are a superset of go-vcr's `version: 2` file: the
//     interactions keep go-vcr's field names and shape, cassette's own
//     metadata sits in top-level keys go-vcr ignores, so go-vcr loads our
//     files unchanged.
//   - Two loads. A file with any of our own top-level keys (`cassette:`,
//     `adapter:`, `kind:`, `input:` …; carriesMetadata), and cassette.yaml,
//     are loaded strictly: an unknown key, a wrong type, an unknown adapter
//     or normalizer is an error naming file, line and field, with a
//     suggestion. A plain go-vcr file (only `version:` and `interactions:`)
//     is loaded as go-vcr loads it (adapter and scenario from its path;
//     keys other tools added are warnings, never fatal, except that a
//     missing required key names the unknown key that misspells it).
//   - One byte layout (Marshal): fixed field order, sorted keys, bodies as
//     block scalars when they are UTF-8 text and base64 otherwise, so that a
//     cassette written twice from the same recording is the same bytes and a
//     review diff shows only what changed. Large bodies go to
//     content-addressed sidecar files next to the cassette.
//   - A large file's interactions are read by a decoder of that layout
//     (fastdecode.go), batches in parallel; whatever it does not know it
//     leaves to yaml.v3, which then says what is wrong, so the strict load
//     and its messages are the same either way (fuzzed against yaml.v3).
//   - Save is atomic (temp file, fsync, rename) and scans before it writes:
//     a cassette that still holds a declared credential value or a known
//     key format is refused (E_SECRET_LEAK) and nothing is written.
//   - What is read is confined: regular files of bounded size inside the
//     project, symlinks resolved and kept inside, sidecars only in their
//     one form (confine.go), so that a pull request adding a file can
//     neither hang CI nor make it read outside the project.
//   - What is wrong is said in outcome's one error model: every problem
//     with its file, line and field, and one next step to run.
//   - Names cassette creates follow one strict rule (ValidNewName); names
//     from the wild (go-vcr files named after tests) are kept as they are.
package cassettes
