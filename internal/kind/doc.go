// Package kind is what an adapter kind means, in one place: an interface
// ([Kind]) with one implementation per kind and a [Registry] the doors look
// kinds up in, so that a third kind is one new package plus a
// registration, not edits in ten.
//
// A kind says what its callers used to switch on: the rules of an adapter's
// declaration in cassette.yaml that the schema cannot say (CheckAdapter,
// for cassettes' loader), the part of two cassettes their comparison holds
// (Compared, for verify) and whether a re-recording can be compared with
// its recording at all (Incomparable, for refresh), a compared cassette as a report shows
// one side of a case (Actions, in the report contract's two action shapes,
// "http" and "proc"), and a cassette's calls as coverage shapes them
// (Calls). A kind whose cases verify should play itself implements
// [Replayer]: verify hands it the adapter's fake and takes back what the
// fake answered.
//
// The two kinds of the file format, http and cli, are defined here
// (HTTP, CLI) rather than in packages of their own: verify and coverage,
// a floor above, fall back to them when a caller passes no registry (a nil
// *Registry is the built-ins), and a package of this floor could not import
// them from above. Their replay stays in verify, which holds the machinery
// it needs (the pool of fresh fakes, identity state carried from response
// to request, WebSocket sessions, child processes); they do not implement
// Replayer. A WebSocket session is no kind: it is how an http interaction
// continues after its 101 (cassettes.WebSocket), so it belongs to http.
//
// The registry is a value (STYLE.md §5): no init, no package-level
// registry. Built-ins answer a nil *Registry; Builtins returns a fresh one
// that a door adds its kinds to with Register. The commands register
// theirs in one place (cmd/cassette's kinds) and load the project with it
// (workspace.LoadKinds, through Loading); every door then asks the
// project for it (Of), as for the rest of its options.
package kind
