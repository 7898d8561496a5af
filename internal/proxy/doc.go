// Package proxy is cassette's intercepting HTTP(S) proxy, built on goproxy:
// it records real interactions (forward proxy with HTTPS MITM, or a reverse
// proxy in front of one upstream), replays them from cassettes through the
// same two front doors (package match decides which recorded interaction
// answers, and explains a miss), or passes traffic through. In observe
// mode it is the front door of coverage's observer in front of a fake
// (Options.Observe): one listener, one shutdown, for every mode. It also
// owns the local MITM certificate authority.
//
// Decisions worth knowing:
//
//   - Wire bytes. The client's Accept-Encoding is not forwarded and the
//     upstream transport never asks for compression, so an upstream that
//     honours HTTP sends identity bodies: what is recorded is exactly what
//     came over the wire, and it is readable. A body that is compressed
//     anyway (gzip or deflate, request or response) is decoded before
//     redaction (cassettes.Interaction.DecodeBodies): the cassette holds
//     the plain body without Content-Encoding, with matching lengths and
//     `uncompressed: true`, so that redaction, the secret scan and
//     normalizers see inside it, and replay serves the plain body. Brotli
//     and zstd have no decoder in the standard library and are recorded as
//     they came.
//   - Redaction happens before anything is stored, after the response has
//     reached the client (storing.go: one worker per proxy, which Flush,
//     Shutdown and Interactions wait for), and is package redact's,
//     through the session's redact.Redactor (Options.Redact): the proxy calls
//     it and it calls nothing back. Credential headers, credential-named
//     parameters and JSON keys, known key formats and declared values are
//     replaced with [REDACTED]; a value hidden because of its name (a bearer
//     token, a Basic password, a cookie, a client_secret) is learned and
//     scrubbed, in every encoding, from the rest of the interaction, from
//     every other one of the session and from every line the proxy prints.
//     Replay has the index apply the same redaction to a copy of each
//     recorded request of a plain go-vcr file or a cassette built in memory
//     (match.Options.Prepare), so a cassette from elsewhere (a go-vcr file
//     whose form body still holds `client_secret=test-secret`) matches a
//     redacted request; a file cassette saved was redacted before it was
//     written and is indexed as it is (savedRedacted). An incoming request is looked up first as
//     it came, which serves every request equal to a recorded one without
//     paying for redaction; only one that matches nothing is redacted and
//     looked up again, so a recorded "[REDACTED]" query value matches a live
//     token, and a miss is always explained from the redacted request
//     (match.Index.Lookup).
//   - Nothing is saved half: a response that did not reach its end (the
//     client went away, the upstream cut it short) is left out of the
//     recording and reported (Incomplete, a log line), never stored with a
//     truncated body. Request bodies are bounded in size
//     (Options.MaxRequestBody, 413 past it) and in time (a read deadline
//     set only while the body is read, so streams are not cut); see
//     limits.go.
//   - A replay miss is answered with status 599 (never a network call) and
//     a text body, match.Miss's, naming the closest recorded interaction,
//     the fields that differ with a small diff and the command that
//     re-records it. 599 is not a status any upstream sends, so it cannot
//     be confused with a recorded 502. It carries `X-Should-Retry: false`:
//     the official LLM SDKs retry any 5xx (599 too) with back-off unless
//     told not to, which made one miss three.
//   - Upstreams: a reverse proxy's upstream may be a unix socket
//     (unix:///run/podman/podman.sock, as Docker engines listen); requests
//     are then recorded under http://localhost, never the socket's path,
//     which belongs to one machine (unix.go).
//   - Streams: a text/event-stream or NDJSON response is recorded with the
//     time each event arrived (event_times); replay with SimulateLatency
//     serves it event by event at those times, counted from the start of
//     the response (not summed gaps: writing does not add up), each
//     written and flushed, so a client rendering tokens sees them arrive
//     (pace.go). A stream recorded without event times (a go-vcr file
//     notes only `duration`, measured up to the headers) has its events
//     spread evenly over that duration, the headers with the first, and
//     the log says so (spread.go): it came whole at the end.
//   - WebSocket: a session is recorded through every door, message by
//     message, by tapping the bytes goproxy relays (websocket.go, package
//     wsframe), without Sec-WebSocket-Extensions so the frames stay plain;
//     replay stands in for the server, playing the recorded messages in
//     order and matching the client's with the match rules (wsreplay.go).
//     A refused upgrade or a session cut without a close frame is an
//     upstream failure, never a saved 101.
//   - An upstream that fails is noted, never recorded as the service's
//     answer: a transport error (refused, DNS, TLS, reset mid-body,
//     timeout; classified by infra.ClassifyTransport) and a status the
//     live-call policy gives up on (401, 403, 408, 429, 5xx; infra.ClassifyStatus)
//     go to Failures while the client still gets a 502 naming the reason,
//     or the relayed status. A recording with a failure is not valid: the
//     recorder refuses to save it (recorder.FailureError, exit 3).
//   - The upstream is reached the way Upstream says: the system roots plus
//     a private CA, a client certificate for mTLS, certificate checks off
//     only on an explicit, warned opt-in, and the corporate proxy of this
//     process's environment (never the proxy itself).
//   - Inside a CONNECT tunnel a request is dialled at the tunnel's
//     target, not at the host its inner Host or :authority names (a
//     client with a TLS ServerName override); it keeps the URL the client
//     addressed, which is recorded and matched, and the MITM leaf follows
//     the client's ServerName (connect.go).
//   - A replaying forward proxy whose cassettes hold one host serves
//     origin-form requests from it (its front door), so that a recording
//     made through the reverse proxy replays without --upstream.
//   - Replay answers like a plain net/http handler: without goproxy on
//     every door (replayDirect), the body in one Write from the stored
//     bytes (storedBody), flushed only when a stream is paced; a CONNECT
//     tunnel is served by a net/http server of the proxy's own, HTTP/1.1 or
//     h2 as ALPN decides (tunnel.go). Recording goes through goproxy, which
//     forwards.
//   - Matching (rules, sequences, the index, the closest miss) is package
//     match's: the proxy hands it the cassettes, their rules
//     (Options.Match, Options.MatchFor) and its redaction, and asks it
//     about each request.
//   - The recorded request keeps what go-vcr's default matcher compares:
//     proto, host, content length and the parsed form (query and
//     urlencoded body, secrets scrubbed). Headers are recorded as they came
//     over the wire, which a go-vcr user's matcher must allow for (README
//     "Coming from go-vcr").
package proxy
