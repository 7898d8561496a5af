// Package diff decides whether two cassettes drifted apart and explains how:
// it normalizes both with the same pipeline (one identity state per
// cassette), compares the normalized forms byte for byte, and describes each
// difference as a classified Drift (status, headers, schema, value, stream,
// exit_code, body, interaction) located by cassette field, JSONPath and line.
//
// Two JSON documents that hold the same value laid out differently (key
// order, spacing) are still drift unless the adapter normalizes with
// json.canonical: bytes decide, as the adapter asked. Such a drift carries
// a Hint that names the normalizer, instead of leaving the reader with two
// long one-line diffs to compare by eye.
//
// A contract (Contract) says what a fake is held to. In exact mode (the
// default) the above holds for every byte. In modelled mode (modelled.go)
// a JSON member, a header or a stream record the fake leaves out is not
// modelled: listed and counted in Result.Model, no drift; what the fake
// gives is compared as in exact mode (a member it invents, a wrong value,
// type, status or item count is drift), and what the contract requires
// (required:, status, contract headers) must be given. A stream compared
// by content (content.go) concatenates the text fields of its records,
// so that where the chunks are cut is no contract.
//
// A fake's response without a Content-Type is read with the framing of
// the recorded response (an SSE stream stays one), so both sides get the
// same normalizers; the missing header is a drift of its own.
//
// A WebSocket session is compared like a stream, message by message
// (websocket.go).
package diff
