// Package diff decides whether two cassettes drifted apart and explains how:
// it normalizes both with the same pipeline (one identity state per
// cassette), compares the normalized forms byte for byte, and describes each
// difference as a classified Drift (status, headers, schema, value, stream,
// exit_code, body, interaction) located by cassette field, JSONPath and line.
// A WebSocket session is compared like a stream, message by message
// (websocket.go).
package diff
