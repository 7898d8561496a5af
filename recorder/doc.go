// Package recorder captures real interactions into cassettes: one HTTP
// scenario (a request issued against an adapter's real base URL), one CLI
// process (its stdin, stdout, stderr, exit code and the HTTP(S) calls it made
// through the recording proxy), or a user's own Go client through an
// http.RoundTripper built on go-vcr. It owns the live-call retry policy and
// the redaction that runs before anything is stored.
package recorder
