// Package learn finds what is volatile in a scenario by comparing several
// recordings of it, and proposes the normalizers that make them equal.
//
// Given N recordings of each scenario of an adapter (cassettes as recorded,
// normalized here with the adapter's current normalizers), Learn lists every
// place that still differs between them: a JSON value by path (array
// indices generalised to [*]), a header, a query value, a token of a line of
// output, a record of a stream. It classifies the values of each place
// (ISO 8601, RFC 1123 and git dates, Unix times, UUIDs, SHAs, ports,
// temporary paths, durations, counters, request ids) and proposes the
// smallest set of normalizers that makes the recordings equal: a built-in
// where one fits, else one project normalizer per kind of target (JSON
// paths, headers, text), numbered where a value recurs elsewhere in the
// recording, so that identity is kept.
//
// Decisions:
//
//   - A proposal is proved, not guessed: Learn applies the proposed
//     normalizers to the recordings and keeps only a set under which every
//     scenario's recordings are byte-identical. A built-in that also rewrites
//     a value that never varied (a constant timestamp, a fixed SHA) is
//     dropped for a normalizer aimed at the varying places only: a value
//     that never varies is never normalized.
//   - Learned normalizers come after the current ones (they were learned on
//     what the current ones leave), targeted ones (by path, header, text
//     context) before the built-ins, which rewrite every text: an id
//     numbered by its path first keeps its identity wherever it recurs.
//   - What no normalizer can express (a list whose order changes, a value
//     that is sometimes absent, a line count that changes) is reported with
//     what to do instead, never papered over.
//   - Samples shown to a user go through the project's redaction.
//   - The patch of cassette.yaml is made by inserting and replacing lines
//     located with yaml.v3's node positions, so that comments and layout
//     stay as the user wrote them, and is checked by loading it again.
package learn
