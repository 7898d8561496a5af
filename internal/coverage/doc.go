// Package coverage holds the call shapes a project's own test suite sends to
// its fakes against the cassettes, so that every shape the code uses is
// backed by a cassette recorded from the real side (the seed ADR's rule: "a
// new call shape is added to a fake: the fake code must be backed by a
// cassette proving the new shape matches the real API").
//
// # Call shapes
//
// A call shape is what a call is without its values, as one line of text:
//
//	GET /repos/{}/{}/labels?page&per_page        an HTTP call
//	POST /repos/{}/{}/labels {color,name}         with a JSON body's key paths
//	git log --oneline -n                          a CLI call
//	gh pr merge --squash <stdin>                  with standard input
//
// HTTP: the method; the path, where a segment that is a value by its form
// (a number, a UUID, a hex SHA of 7 or more digits, a date, an e-mail
// address, a credential of a known format, a long mix of letters and
// digits) or that sits under a declared path parameter becomes {}; the
// sorted names of the query parameters; the sorted key paths of a JSON body
// (leaves only: `a.b`, `items[].name`), `form{…}` for a form, `<body>` for
// any other body (and for a body over 1 MiB). CLI: the command's base name,
// its leading subcommand words (as many as the adapter's depth, default 1,
// stopping at the first word that is not a lower-case word), the sorted
// names of its flags (`--name=value` and `-n3` give `--name` and `-n`; the
// value of a declared value flag is skipped), and `<stdin>` when standard
// input was given. Every other word of a call is a value and is dropped.
// A cassette has the shapes of its requests (HTTP) or of its input (CLI),
// by the same rules, so that a call and a cassette meet on equal shapes.
//
// Decisions. Shapes are text, not structs: what a person reads in the
// table, greps in coverage.json and compares in a test is the same string.
// Values are recognised by their form, never by position, so that a shape
// never holds an id, a token or a SHA even in a place no rule was declared
// for (the fuzz test holds the rules to that); names and slugs cannot be
// told from path words by their form, so a project declares them
// (`coverage.paths`). Rules are per adapter (`coverage:` in cassette.yaml)
// and are applied when coverage runs, to the observed call and to the
// cassettes alike: changing a rule never needs the tests to run again.
//
// # Observations
//
// Calls are observed into `.cassette/observed/*.jsonl`, one JSON object a
// line (format version 1, `observed.schema.json`): the adapter, the kind,
// the shape as the writer saw it (informative: coverage computes it again
// from the call), the concrete call with credentials redacted, and the
// test that made it. Writers: `cassette observe` (an observing reverse proxy
// in front of each HTTP fake, a shim on PATH for each CLI fake),
// cassettetest.Observe and ObserveCLI for in-process Go fakes, and any
// other language through the documented format. A line is appended with
// one write(2) on a file opened O_APPEND, so that any number of processes
// may share a file.
package coverage
