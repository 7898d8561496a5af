// Package report renders the shared report contracts of one cassette run
// (verify, refresh or record) from a plain data model, [Run], that the
// commands fill: it never runs, reads or normalizes anything itself.
//
// # The files
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
//     provenance, seeds, results, performance (specs/002 §3). [ParseSummary]
//     reads it back and ignores unknown keys.
//   - report.jsonl — the canonical JSONL report: header, case, assert, action,
//     artifact and summary records (specs/001). In golden mode keys are
//     byte-sorted and volatile fields omitted, so equal inputs give equal bytes.
//   - log.jsonl    — the structured test log (schema cassette.test.log.v2,
//     the fields of pi.test.log.v2): one trace_id per run on every record,
//     a live_call record per live call with its own retry telemetry, failure
//     digests for failed cases (specs/000). Timing and correlation fields
//     are beside the six stable fields, never inside context.
//   - run.json     — the seeds (specs/002 §3.3.1) and the run model itself, so
//     that [Merge] can combine the outputs of sharded runs into the set an
//     unsharded run writes, and report.html can be rebuilt.
//   - report.html  — the same run for people: one self-contained page
//     (inline CSS, no script) with each failed case's recorded and compared
//     outputs side by side; [WriteHTML] rebuilds it from run.json.
//
// A run-level error is one more failed case, <tool>/<command>, in every
// file, so that the files of one run count the same tests.
//
// Golden mode ([Options.Golden]) omits volatile fields and writes the
// volatile values it cannot omit as stable sentinels (see goldenRun): a
// loopback port in a message, a path below the report directory, a refresh
// cycle's date. Retry telemetry is per live call, on each [Action]; a
// quarantined case's earlier attempts are [Case.Retries]. README.md's
// Reports and Exit codes sections document how each file maps cassette's
// outcomes onto its spec. [WriteBundle] writes the forensic bundle of
// specs/004 and [AppendStepSummary] the GitHub job summary, which fits in
// what the step has left of GitHub's 1 MiB and is cut only between whole
// blocks.
//
// # The run model
//
// A producer (verify.Run, refresh's cycle, or any other that compares a
// cassette with what a side under test gave) fills a verdict.Run, the
// model, which package verdict holds so that a producer needs no renderer;
// [Run] is that same value under the renderer's methods ((*Run)(run)
// converts it, without a copy): one verdict.Case per
// cassette with its outcome, its drifts and both sides as they were
// compared, normalized: Case.Recorded (the cassette's) and Case.Actions (the
// fake's, or the real service's), the shape verify.CompareSides returns.
// Everything a report shows comes from the model; the verdicts (exit code,
// reason, next step, counts) are derived from it by methods of
// verdict.Run, so every file agrees. Something new to report goes into the model (so that
// run.json, [Merge] and `cassette report html` carry it) and each file that
// shows it gets one call in its renderer: a file of its own one entry in
// [Render], a report.html section one block of html.tmpl and the field of
// the page it shows, a job-summary section one function in the list
// stepSummary writes, SARIF results one call where sarif collects them.
//
// # Rendering, writing and reading
//
// [Render] renders every file in memory, each once, from the run alone: it
// takes no directory and reads nothing. [Publish] renders once and writes
// the report directory, the job summary and the bundle, whose reports/ are
// those same bytes. Every file is first run through the secret scan of
// package redact: a finding is an E_SECRET_LEAK error and nothing is
// written. Write also redacts in place the logs the run's artifacts point
// at (the fakes write them into the report directory from an environment
// that may hold credentials): the one file it reads, to rewrite it.
//
// Two commands start from files an earlier run wrote; reading them is not
// rendering. `cassette report merge` and `cassette report html` read
// run.json with [ReadShard] / [ReadRun], then merge with the pure [Merge];
// `cassette bundle validate` checks a bundle with [ValidateBundle]. These
// read through an fs.FS the command opens on the directory (os.DirFS), so
// that the package itself opens no path, and a test hands them a
// fstest.MapFS.
package report
