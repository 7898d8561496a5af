// Package proxy is cassette's intercepting HTTP(S) proxy, built on goproxy:
// it records real interactions (forward proxy with HTTPS MITM, or a reverse
// proxy in front of one upstream), replays them from cassettes through the
// same two front doors with an index and an explained miss, or passes
// traffic through. It also owns the local MITM certificate authority.
//
// Decisions worth knowing:
//
//   - Wire bytes. The client's Accept-Encoding is not forwarded and the
//     upstream transport never asks for compression, so an upstream that
//     honours HTTP sends identity bodies: what is recorded is exactly what
//     came over the wire, and it is readable. A body that is compressed
//     anyway (gzip or deflate, request or response) is decoded before
//     redaction (DecodeBodies): the cassette holds the plain body without
//     Content-Encoding, with matching lengths and `uncompressed: true`, so
//     that redaction, the secret scan and normalizers see inside it, and
//     replay serves the plain body. Brotli and zstd have no decoder in the
//     standard library and are recorded as they came.
//   - Redaction happens before anything is stored: Options.Redact runs on
//     the raw interaction, then credential headers, known key formats and
//     declared secret values are replaced with [REDACTED] (see package
//     secrets). A value hidden because of its header's name (a bearer
//     token, a Basic password, a cookie; see HiddenHeaderValues) is learned
//     and scrubbed from the rest of the interaction and from every other
//     one of the session. Replay applies the same redaction to the incoming
//     request before matching, so a recorded "[REDACTED]" query value
//     matches a live token — and to a copy of each recorded request when
//     it indexes them, so a cassette from elsewhere (a go-vcr file whose
//     form body still holds `client_secret=test-secret`) matches too.
//   - A replay miss is answered with status 599 (never a network call) and
//     a text body naming the closest recorded interaction, the fields that
//     differ with a small diff and the command that re-records it. 599 is
//     not a status any upstream sends, so it cannot be confused with a
//     recorded 502, and retry policies (which retry 502) leave it alone.
//   - Sequences: the n-th identical request gets the n-th recorded
//     response. Once they are used up, the last one is served again only
//     when MatchOptions.Replayable is set or the cassette says
//     `replayable: true`; a cassette with `replayable: false` never repeats.
//   - Matching rules (MatchOptions: URL globs and regexes, ignored query
//     parameters, JSONPaths ignored in or selected from a JSON body, chosen
//     headers) are applied to both sides before the index key is made, so
//     a lookup stays one map access. Cassettes under different rules (the
//     `match:` of their adapter or scenario) get one index each.
//   - The recorded request keeps what go-vcr's default matcher compares:
//     proto, host, content length and the parsed form (query and
//     urlencoded body, secrets scrubbed). Headers are recorded as they came
//     over the wire, which a go-vcr user's matcher must allow for (README
//     "Coming from go-vcr").
package proxy
