// Package cassettes is what cassette keeps on disk and how it says what is
// wrong with it: the cassette file (one scenario's recorded input and
// output), cassette.yaml (the adapters, normalizers, refresh and quarantine
// settings), their strict load and atomic save, and the one error model
// every command exits through. It is the ground floor: it imports no other
// package of the project except redact, and knows nothing of how a
// cassette was captured, replayed or compared.
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
//   - Errors are one type (Error): a registered reason code that maps to an
//     exit class (0 pass, 1 drift or failure, 2 config or user error, 3
//     infrastructure), every problem with its file, line and field, and one
//     next step to run. Reason codes are added, never repurposed.
//   - A next step is one command that runs as printed: built from words by
//     Command (each word quoted by Quote, the one quoting rule of every
//     command cassette prints), never prose, a placeholder or a comment;
//     what to fix first goes in the message.
//   - Names cassette creates follow one strict rule (ValidNewName); names
//     from the wild (go-vcr files named after tests) are kept as they are.
package cassettes
