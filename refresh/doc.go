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
package refresh
