// Package verdict is what a run found, case by case: each cassette's
// status (pass, fail, error, skipped), its drifts, the actions it made
// against the side under test, its retries, quarantine and failure digest.
// The doors that judge (verify, refresh, coverage, the harness) say their
// findings in these words, and report renders them; so saying "pass" needs
// no renderer, and a renderer judges nothing of its own.
//
// Decisions:
//
//   - A quarantined case keeps its real status and carries its quarantine;
//     whether its failure fails the run (Blocking) and which reason code it
//     has (ReasonAt) depend on the time of the run, which the caller gives.
//   - The types are plain data with JSON tags: a run's model is written as
//     run.json and read back (report.Merge), so a field is added, never
//     repurposed.
package verdict
