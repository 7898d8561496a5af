package verify

import (
	"fmt"
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/kind"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// This file is verify's side of the adapter kinds (package kind): a kind
// that plays its own cases (kind.Replayer) is handed its adapter's fake,
// and a case of a kind the run does not know is the cassette's error.
// http and cli cases are played by verify's own engines (runHTTPCase,
// runCLICase), which hold the fakes' pool, identity state and processes.

// runKindCase plays case c through its kind r against the adapter's fake
// as cassette.yaml declares it (base_url with ${VAR}s expanded from the
// fake's environment, and its directory).
func runKindCase(k *caseClock, c Case, opts Options, r kind.Replayer, res *Result) (*cassettes.Cassette, error) {
	decl := c.Adapter.Fake
	base, _ := cfgschema.Expand(decl.BaseURL, newFakeEnv(opts.Config).lookup)
	fake := kind.Fake{Adapter: c.Cassette.Adapter, Decl: decl, BaseURL: strings.TrimSuffix(base, "/"),
		Dir: cfgschema.ResolvePath(opts.Config.Dir, decl.Dir)}
	got, actions, err := r.Replay(k.start(), fake, c.Cassette)
	res.Actions = actions
	return got, err
}

// unknownKind is a case whose kind the run's registry lacks: a cassette
// loaded with kinds that this run was not given.
func unknownKind(c Case, opts Options) *outcome.Error {
	return &outcome.Error{Reason: outcome.ECassetteInvalid,
		Message:  fmt.Sprintf("%s is of kind `%s`, which this run does not know (known: %s)", c.ID(), c.Cassette.Kind, strings.Join(opts.Kinds.Names(), ", ")),
		NextStep: outcome.Command("cassette", "validate", c.Cassette.Path)}
}
