// Package verify replays committed cassettes against fakes and decides, case
// by case, whether each fake still gives the recorded output: the fake's
// output and the cassette's, normalized, must be byte-identical.
//
// A case is one cassette. HTTP cases send the cassette's requests, in order,
// to the fake (a base URL, a process verify starts, or an in-process
// http.Handler) and compare status, the adapter's contract headers and the
// normalized body (a WebSocket session: the recorded client messages are
// sent, and the fake's messages compared one by one, websocket.go); CLI
// cases run the fake command with the recorded
// arguments, stdin and environment names and compare stdout, stderr and the
// exit code. A case of another kind (package kind: Options.Kinds, the
// project's) is played by its kind (kind.Replayer) against the adapter's
// fake as cassette.yaml declares it (kinds.go); what of two cassettes is
// compared and how a report shows them is the kind's for every case
// (kind.Kind.Compared, Actions). Cases run in parallel and are reported in a deterministic order
// (adapter order in cassette.yaml, then scenario). A quarantined case that
// fails is run again once, 5 s later ([QuarantineRetry], specs/000); no
// other case is ever retried: a drift is a verdict, not a flake.
//
// A fake process of one case (the default) is started ahead of its case
// (pool.go); its output goes to a pipe verify reads, kept in memory and
// written to the case's log only when the case does not pass; it is asked
// for readiness when it writes a line, on the connection the case then
// uses (fake.go, fakelog.go). What every start of an adapter's fake shares
// (its program looked up, its environment, what the run learned of when its
// fakes are ready) is worked out once a run (launch.go); the process is
// started and reaped by procgroup.Command, without a thread held per fake.
// The limit of such a run is the fake's own start/stop rate, which
// BenchmarkVerifyFresh1000 measures beside it.
//
// The comparison ([CompareSides]) returns, besides the drifts, both sides as
// they were compared: the cassette's and the fake's outputs, normalized once
// each. [Outcome.Report] hands them to package report in the run model
// (verdict.Case.Recorded and verdict.Case.Actions), with the cassette set's
// digest from what was loaded, so that the reports show what was compared
// without reading or normalizing anything again. A producer other than
// [Run] (refresh, a check of outputs another test runner captured) compares
// through CompareSides and fills the same model.
package verify
