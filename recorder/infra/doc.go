// Package infra says what is infrastructure, never drift: the one
// classification of a failure to reach a real service, shared by every door
// that makes a live call (the recording proxy, the HTTP recorder, refresh).
//
// Decisions:
//
//   - A transport error (refused, DNS, TLS, reset, timeout) and a status the
//     live-call retry policy gives up on (408, 429, 500, 502, 503, 504, 529;
//     specs/000) are failures of the real side, each with its reason code
//     and exit 3. A recording during which one happened is not a recording
//     of the service: it never becomes a cassette, a drift, a refresh
//     branch, a pull request or an issue.
//   - Every other status (404, 401, 501, …) is the service's real answer
//     and is recorded.
//   - Each class carries its own advice (NextStep): what to address before
//     running the command again.
//   - The package sits below the recorder and the proxy and imports only
//     cassettes (for the reason codes), so that both can call it.
package infra
