// Package report writes the shared report contracts of one cassette run
// (verify, refresh or record) from a plain data model, [Run], that the
// commands fill: it never runs anything itself.
//
// [Write] puts these files in the report directory (default
// .cassette/reports):
//
//   - junit.xml    — JUnit XML: one testsuite per adapter, one testcase per
//     cassette, <failure> with the drift diff for a drift and an error alike,
//     <skipped> for skipped and quarantined cases (specs/002 §2).
//   - sarif.json   — SARIF 2.1.0: one rule per failure class, every result
//     located (cassette file and line of the drifting field, or a synthetic
//     location), deterministic truncation recorded in
//     runs[0].properties.cassette (specs/002 §6).
//   - summary.json — the PR-gate summary: exit and reason codes, next step,
//     provenance, seeds, results, performance (specs/002 §3). [ReadSummary]
//     reads it back and ignores unknown keys.
//   - report.jsonl — the canonical JSONL report: header, case, assert, action,
//     artifact and summary records (specs/001). In golden mode keys are
//     byte-sorted and volatile fields omitted, so equal inputs give equal bytes.
//   - log.jsonl    — the structured test log (schema cassette.test.log.v2,
//     the fields of pi.test.log.v2): one trace_id per run on every record,
//     failure digests for failed cases (specs/000).
//   - run.json     — the seeds (specs/002 §3.3.1) and the run model itself, so
//     that [Merge] can combine the outputs of sharded runs into the set an
//     unsharded run writes.
//   - report.html  — the same run for people: one self-contained page
//     (inline CSS, no script) with each drift's recorded and fake outputs side
//     by side, as the run holds them (Case.Recorded and Case.Actions);
//     [WriteHTML] rebuilds it from run.json.
//
// A run-level error is one more failed case, <tool>/<command>, in every
// file, so that the files of one run count the same tests. README.md's
// Reports and Exit codes sections document how each file maps cassette's
// outcomes onto its spec.
//
// [Render] renders them in memory, reading nothing; [Publish] renders them
// once and writes them, the job summary and the bundle, whose reports/ are
// the same bytes.
//
// [WriteBundle] writes the forensic bundle of specs/004 and [ValidateBundle]
// checks one. Every file either function writes is first run through the
// secret scan of package redact: a finding is an E_SECRET_LEAK error and
// nothing is written.
package report
