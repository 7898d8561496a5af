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
//     came over the wire, and it is readable. An upstream that compresses
//     anyway is recorded compressed, with its Content-Encoding header.
//   - Redaction happens before anything is stored: credential headers,
//     known key formats and declared secret values are replaced with
//     [REDACTED] (see package secrets), then Options.Redact runs. Replay
//     applies the same redaction to the incoming request before matching,
//     so a recorded "[REDACTED]" query value matches a live token.
//   - A replay miss is answered with status 599 (never a network call) and
//     a text body naming the closest recorded interaction, the fields that
//     differ with a small diff and the command that re-records it. 599 is
//     not a status any upstream sends, so it cannot be confused with a
//     recorded 502, and retry policies (which retry 502) leave it alone.
//   - Sequences: the n-th identical request gets the n-th recorded
//     response. Once they are used up, the last one is served again only
//     when MatchOptions.Replayable is set or the cassette says
//     `replayable: true`; a cassette with `replayable: false` never repeats.
package proxy
