// Package recorder captures real interactions into cassettes: one HTTP
// scenario (a request issued against an adapter's real base URL), one CLI
// process (its stdin, stdout, stderr, exit code and the HTTP(S) calls it made
// through the recording proxy), a session of the recording proxy driven by
// hand (SaveProxy), or a user's own Go client through an http.RoundTripper
// built on go-vcr; and it records a committed cassette again from its own
// input (Live, what refresh and `cassette record` re-record with). It owns
// the live-call retry policy. Everything it captures is redacted before it
// is stored by one redact.Redactor per recording (a session: what it learns
// in one call is scrubbed from the others), walked through the cassette by
// cassettes (Cassette.Redact); the recording proxy is given the same
// session.
//
// A CLI cassette is run again in one place: Live.cliOptions decides which
// command runs (real.command when the cassette was recorded through it)
// and whether behind the recording proxy, and RerecordCLI runs it.
//
// A failure of the real side (see infra.ClassifyTransport) is never a
// recording: an HTTP scenario that still fails after the retry policy, or a
// CLI run during which the recording proxy could not complete a request,
// returns that class's infrastructure error and no cassette. What a CLI
// printed is handed back only once it has exited, redacted like the
// cassette with every value learned during the run, so that what a CI log
// keeps holds no credential.
package recorder
