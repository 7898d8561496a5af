// Package observe runs the two observing jobs, for cassette coverage:
// `cassette observe` (Job: each adapter's fake in reach of a test command,
// an http fake behind an observing reverse proxy, a cli fake behind a shim
// on PATH, every call written to a run of .cassette/observed) and
// `cassette proxy --mode observe` (ProxyJob: an observing reverse proxy in
// front of a fake the tests start themselves). The command line binds its
// flags into a job's fields and calls Run; what is observed, and how a
// call is shaped, is package coverage's.
//
// Decisions:
//
//   - A job is a value with every input a field (the project, the streams,
//     the environment, the clock, the binary the shims run): a test runs it
//     without the process, as the command does.
//   - The new run's directory is removed when the test command could not
//     run, and the earlier runs only once it has run: a failed observe
//     never costs the observations coverage reads now.
//   - The fakes are started and built as verify starts and builds them
//     (verify.StartFake, verify.BuildFake), with no live credential in
//     their environment.
package observe
