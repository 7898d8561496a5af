// Package normalize rewrites volatile values (timestamps, SHAs, ids, ports,
// temporary paths, credentials) out of recorded and replayed outputs, so that
// two outputs are "the same" exactly when their normalized forms are
// byte-identical.
//
// A Registry holds named normalizers (built-ins from Builtins, project ones
// from Define); a Pipeline built from a list of names applies them, in order,
// to HTTP headers and bodies and to CLI output, using one State per cassette
// so that the same volatile value always maps to the same placeholder
// (<uuid:1>, <sha:2>). JSON bodies are normalized as JSON values by path,
// JSONL and SSE streams record by record, other UTF-8 as text; binary bodies
// are only touched by byte-safe normalizers.
package normalize
