// Package harness is cassette's side of the harness protocol, which lets a
// test runner in any language verify fakes that live inside its own
// process (a Python FakeGit, a JavaScript object): the runner lists the
// cases it must drive (List, `cassette cases --json`), calls its fake with
// each case's input, and sends what the fake produced back (Checker,
// `cassette check`), which answers pass or drift for each case.
//
// Decisions:
//
//   - All judgement stays here, in one process: loading the project,
//     normalizing both sides, comparing, the drift text, its classes and
//     file:line, quarantine and the report files are verify's own (Judge,
//     Compare, Outcome.Report), so a binding is a thin client that only
//     runs its fake, and a drift reads the same from pytest, from
//     `node --test` and from `cassette verify`.
//   - One process serves a whole batch: JSON lines in, one answer line per
//     line out, flushed whenever the input has nothing more buffered. A
//     binding may write everything and then read (a batch), or write a line
//     and wait for its answer (a co-process): both cost milliseconds per
//     case, not a process per case.
//   - An HTTP fake that makes its own ids is asked for the next request
//     ("next"): the answer carries the recorded request with the recording's
//     ids replaced by the ones the fake gave earlier, as verify does when it
//     sends a sequence to a fake process.
//   - Text is JSON strings when it is UTF-8 and base64 (the *_base64 twin
//     of the field) when it is not, so bytes survive every JSON library.
//   - The protocol is versioned (Version); the fields and the exit codes
//     are documented in the README and in protocol.schema.json beside this
//     file, which the tests hold the real output to.
package harness
