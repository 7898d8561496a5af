package cfgschema

import "github.com/cassette-dev/cassette/internal/outcome"

// Kinds are the adapter kinds a load accepts, as a registry of
// internal/kind answers (kind.Registry.Loading). A nil Kinds accepts the
// format's own two, http and cli. The loader checks those two kinds'
// declarations itself (an http fake needs base_url or command, a cli fake
// a command); AdapterProblems adds what any other registered kind asks.
type Kinds interface {
	// Known reports whether a cassette.yaml or a cassette may name kind k.
	Known(k Kind) bool
	// Names are the kinds known, for the message that names one unknown.
	Names() []string
	// AdapterProblems are the problems of adapter a's declaration at
	// field f that its kind finds (Field, Message, Expected set).
	AdapterProblems(f string, a *Adapter) []outcome.Problem
}
