// Package wsframe reads and writes WebSocket frames (RFC 6455 §5): the
// framing a recording proxy watches go by, a replaying proxy speaks as the
// server, and verify speaks as a client to a fake. It knows nothing of
// cassettes, proxies or HTTP beyond the handshake's accept key.
//
// Decisions:
//
//   - Hand-written, on the standard library: the proxy must read frames
//     out of bytes it relays unchanged (Tap), which no WebSocket library
//     offers (each owns its connection), and the three users need the same
//     few things: a frame, a message assembled from fragments, control
//     frames as they come, the accept key.
//   - Extensions are not spoken: a frame with a reserved bit set (RSV1 is
//     permessage-deflate) is an error. The proxy never forwards
//     Sec-WebSocket-Extensions, so that what crosses it is plain frames,
//     as it never forwards Accept-Encoding for HTTP bodies.
//   - Bounded: a message larger than the reader's limit is an error, never
//     an allocation of whatever length a frame header claims.
package wsframe
