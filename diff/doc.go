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
// A WebSocket session is compared like a stream, message by message
// (websocket.go).
package diff
