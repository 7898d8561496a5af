// Package verdict is what a run found, case by case: each cassette's
// status (pass, fail, error, skipped), its drifts, the actions it made
// against the side under test, its retries, quarantine and failure digest;
// and the run as a whole (Run: its cases, its run-level error, what
// coverage and refresh add, and the verdict they come to: Reason, Exit,
// Message, NextStepCommand, Counts). The doors that judge (verify,
// refresh, coverage, the harness) fill a Run in these words and hand it
// to the run ending, which has package report render it; so saying "pass"
// needs no renderer, and a renderer judges nothing of its own.
//
// Decisions:
//
//   - A quarantined case keeps its real status and carries its quarantine;
//     whether its failure fails the run (Blocking) and which reason code it
//     has (ReasonAt) depend on the time of the run, which the caller gives.
//   - The types are plain data with JSON tags: a run's model is written as
//     run.json and read back (report.Merge), so a field is added, never
//     repurposed.
//   - report.Run is this Run under the renderer's methods (a defined type
//     of the same struct): a *Run converts to a *report.Run and back
//     without a copy, so the run ending renders the value a door filled.
package verdict
