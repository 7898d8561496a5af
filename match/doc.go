// Package match holds the rules by which a replayed request matches a
// recorded one: what a Go test passes to recorder.WithMatch, and what the
// `match:` of an adapter or a scenario in cassette.yaml says for the
// command line. The zero Rules compare method, scheme and host, path,
// query (parameters in any order) and the raw body; never the protocol,
// the client's address or other headers, which break recordings made
// through a proxy.
//
// Every door that replays (the proxy, recorder.Recorder) applies the same
// Rules in the same way, after redaction, and explains a request that
// nothing matches by its closest recorded interaction.
package match
