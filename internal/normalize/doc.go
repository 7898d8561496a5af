// Package normalize rewrites volatile values (timestamps, SHAs, ids, ports,
// temporary paths, credentials) out of recorded and replayed outputs, so that
// two outputs are "the same" exactly when their normalized forms are
// byte-identical.
//
// A Registry holds named normalizers (built-ins from Builtins, project ones
// from Define); a Pipeline built from a list of names applies them, in order,
// to HTTP headers and bodies and to CLI output, using one State per cassette
// so that the same volatile value always maps to the same placeholder
// (<uuid:1>, <sha:2>). JSON bodies are normalized as JSON values by path,
// JSONL and SSE streams record by record, other UTF-8 as text; binary bodies
// are only touched by byte-safe normalizers. A body is JSON when its type
// says so, or when it is an object or an array: a bare scalar with no JSON
// type (a CLI's `1612651`, a short SHA of digits) is text, so that text
// rules see it whatever its digits happen to be.
//
// Decisions:
//
//   - Two engines for a JSON document, one answer. The tree engine parses
//     every value (jsonparse.go) and is the reference. The streamed engine
//     (stream.go) is what runs when it can: one validating scan keeps only
//     the values something may rewrite (by the features a string holds,
//     the redaction's prefilter, credential and time-like member names, the
//     pipeline's JSON paths) and the same stages run on those; most of a
//     body (names, numbers, words) is never held. It gives way to the tree
//     for json.canonical (which sorts members), path unions, slices and
//     negative indexes, and paths that select an object or an array.
//     FuzzStreamMatchesTree holds the two to the same bytes and the same
//     State; a difference is a bug in the streamed engine.
//   - A pipeline of this package's own normalizers reads a body in place
//     (its values are slices of the caller's bytes, not of a copy): they
//     keep nothing, the State keeps copies of what it numbers (in blocks of
//     its own, not an allocation each), and the output is written by
//     copying. A project's Register'ed normalizer may keep what it is
//     given, so with one the scan copies the body first. The nodes of a
//     document written are cleared and reused by the pipeline's next
//     (they were a third of what a page allocated).
//   - Cheap prefilters before any expression: features of a string
//     (features.go) decide which text parts may change it, and each
//     built-in pattern's candidates are found by a byte search (matchers.go)
//     that FuzzMatchersAgreeWithRegexp holds to the expression.
package normalize
