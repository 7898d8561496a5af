// Package infra says what is infrastructure, never drift: the one
// classification of a failure to reach a real service, shared by every door
// that makes a live call (the recording proxy, the HTTP recorder, refresh).
//
// Decisions:
//
//   - A transport error (refused, DNS, TLS, reset, timeout), 408, 429 and
//     every 5xx are failures of the real side, each with its reason code and
//     exit 3. Two lists, not one: the statuses the live-call policy
//     *retries* are specs/000's (408, 429, 500, 502, 503, 504, 529); the
//     statuses that *fail* a recording are those plus any other 5xx (501,
//     505, …: specs/002 maps a provider 5xx to E_PROVIDER_5XX), which fail
//     at their first answer. A recording during which one happened is not a recording
//     of the service: it never becomes a cassette, a drift, a refresh
//     branch, a pull request or an issue.
//   - Every other status (404, 401, 409, …) is the service's real answer
//     and is recorded. A failing status a scenario declares on purpose
//     (status: 503, --allow-status) is recorded too: the caller lets it
//     through.
//   - A CLI that reaches its service past the recording proxy says it
//     failed only in its exit code and on stderr: fault signatures
//     (FaultsFor) read them, built in for the tools cassette was made for
//     (curl's documented exit codes; git's, gh's, docker's and podman's,
//     LLM CLIs' own texts), plus those an adapter declares (real.faults),
//     which are tried first. A pattern without a class of its own takes
//     the one its stderr's words say (ClassifyText). Signatures also say
//     when a tool is not logged in: a missing credential, not a fault.
//   - Each class carries its own advice (NextStep): what to address before
//     running the command again.
//   - The package sits below the recorder and the proxy and imports only
//     cassettes (for the reason codes), so that both can call it.
package infra
