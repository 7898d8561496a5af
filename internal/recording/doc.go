// Package recording is the command line's recording pipeline: it captures
// real interactions into cassettes: one HTTP scenario (a request issued
// against an adapter's real base URL), one CLI process (its stdin, stdout,
// stderr, exit code and the HTTP(S) calls it made through the recording
// proxy), or a session of the recording proxy driven by hand (SaveProxy);
// and it records a committed cassette again from its own
// input (Live, what refresh and `cassette record` re-record with). It owns
// the live-call retry policy. Everything it captures is redacted before it
// is stored by one redact.Redactor per recording (a session: what it learns
// in one call is scrubbed from the others), walked through the cassette by
// cassettes (Cassette.Redact); the recording proxy is given the same
// session.
//
// One recording job is a Session, built from the loaded project
// (NewSession): the adapter, the redactor, the metadata, the transport to
// the real side, the interrupts, and the environment a recorded command
// inherits (RecordingEnviron: its own adapter's credentials only, never
// another adapter's or the forge's). `cassette record` (a command, the
// declared scenarios, a cassette again) and `cassette proxy --mode record`
// record through it; the command line keeps the flags and what it prints,
// and a test reaches every recording without the process.
//
// A CLI cassette is run again in one place: Live.cliOptions decides which
// command runs (real.command from cassette.yaml, always), with which
// credentials (the adapter's own) and behind which recording proxy, and
// RerecordCLI runs it with the cassette's arguments and stdin, after
// refusing a cassette whose input.command is not real.command. A cassette
// is data: nothing it names is ever run, and it never chooses where a
// credential goes.
//
// A failure of the real side (see infra.ClassifyTransport) is never a
// recording: an HTTP scenario that still fails after the retry policy, a
// CLI run during which the recording proxy could not complete a request,
// or one whose exit code or stderr matches a fault signature of its tool
// (infra.FaultsFor, real.faults), returns that class's infrastructure
// error and no cassette. A re-recorded command that went from exit 0 to a
// failure with nothing on stdout, no signature saying why, is refused as
// suspect (E_REAL_SUSPECT); one whose tool says it is not logged in is a
// missing credential (ErrNotLoggedIn), which refresh skips. What a CLI
// printed is handed back only once it has exited, redacted like the
// cassette with every value learned during the run, so that what a CI log
// keeps holds no credential.
//
// A program that records CLI processes calls Supervise first in main: on
// Linux the recorder then runs each command under a supervisor (the same
// program, started again) that kills the command's whole process group,
// whatever it started included, when the recorder dies, SIGKILL included.
package recording
