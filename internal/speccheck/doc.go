// Package speccheck holds checkers written from the report specifications in
// ../shared/specs — 001 (runner report v0), 002 (PR-gate outputs v1), 000
// (test/logging contract), 004 (artifact bundle v1) — and from GitHub's
// code-scanning SARIF requirements, for the project's tests.
//
// The checkers read the files as an independent consumer would: they decode
// into map[string]any (or generic XML) and test the spec's rules. They import
// no package of this project, so that a rule our own types get wrong is
// caught rather than repeated. Where cassette deliberately deviates from a
// spec (its names, its mapping of exit code 3 in report.jsonl), the checker
// encodes the documented mapping from README.md's "Reports" section.
//
// Nothing here is needed by a user of cassette.
package speccheck
