// Package speccheck holds checkers written from the report specifications in
// ../shared/specs — 001 (runner report v0), 002 (PR-gate outputs v1), 000
// (test/logging contract), 004 (artifact bundle v1) — and from GitHub's
// code-scanning SARIF and job-summary requirements, for the project's tests.
//
// The checkers read the files as an independent consumer would: they decode
// into map[string]any (or generic XML) and test the spec's rules. They import
// no package of this project, so that a rule our own types get wrong is
// caught rather than repeated. What the specs leave to the implementation
// (the reason codes a producer adds to specs/002 §5's, the root-cause
// taxonomy) is read from docs/reference/exit-codes.md ([ReadRegistry]), so that a code the
// page does not document is refused; where cassette deliberately deviates
// from a spec (its names, its mapping of exit code 3 in report.jsonl), the
// checker encodes the mapping that page documents.
//
// [Reports] checks a report directory, [Bundle] a bundle, [Console] what a
// command printed, [Same] two golden runs, [StepSummary] the GitHub job
// summary, and [Verdict] a bundle validator's verdict on a bundle and on the
// [Tampers]' broken copies of it.
//
// Nothing here is needed by a user of cassette.
package speccheck
