// Package refresh keeps the cassette corpus true without a human: one Cycle
// re-records every cassette against the real services, diffs it against the
// committed one, pushes a refresh branch and opens (or updates) a refresh PR
// when reality drifted, re-runs the replay gate against the fake, files a
// fake-drift companion issue when the fake must change, and escalates an
// adapter that keeps drifting. Daemon runs the cycle on a cron schedule.
//
// Escalation state lives in the repository itself: a one-file branch
// (StateBranch, holding state.json) pushed to the same remote as the refresh
// branches, so that a scheduled run on a fresh CI machine finds the count the
// previous run left, whatever the forge.
//
// A dry run writes nowhere but this machine (no push, no PR or issue, no
// state) and sends the real services only what cannot change them: the
// HTTP cassettes whose every request is GET, HEAD or OPTIONS are
// re-recorded; CLI cassettes and other methods are listed as skipped
// unless Options.DryRunUnsafe. Re-recording itself goes through the
// Recorder interface (its own records through recorder.Session), so that
// tests and other callers can put anything behind it.
package refresh
