package kind

import (
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// CLI is the cli kind: an adapter whose fake is a command run once per
// cassette, its cassettes a command's input and output (and, for the
// record, the HTTP the real command made underneath).
func CLI() Kind { return cliKind{} }

type cliKind struct{}

func (cliKind) Name() cfgschema.Kind { return cfgschema.KindCLI }

// CheckAdapter: see httpKind's (cassettes' loader checks that a cli fake
// has a command).
func (cliKind) CheckAdapter(string, *cfgschema.Adapter) []outcome.Problem { return nil }

// Compared leaves the HTTP out: a CLI adapter's contract is the command's
// output. The HTTP the real command made underneath is the recording's
// context (it lets the real command be replayed offline), not compared: a
// fake CLI makes none, and the engine's volatile answers (uptime, file
// descriptors) that never reach the output are no drift. It is also kept
// out of the id numbering: the real image id would be <sha:1> in want,
// numbered in the HTTP first, and the fake's <sha:2>.
func (cliKind) Compared(want, got *cassettes.Cassette) (*cassettes.Cassette, *cassettes.Cassette) {
	if len(want.Interactions) == 0 && len(got.Interactions) == 0 {
		return want, got
	}
	w, g := *want, *got
	w.Interactions, g.Interactions = nil, nil
	return &w, &g
}

// Incomparable: a side has no output.
func (cliKind) Incomparable(want, got *cassettes.Cassette) *verdict.Drift { return noOutput(want, got) }

// noOutput is the drift of a side without output, or nil.
func noOutput(want, got *cassettes.Cassette) *verdict.Drift {
	if want.Output != nil && got.Output != nil {
		return nil
	}
	return &verdict.Drift{Class: "output", Field: "output", Message: "no output to compare"}
}

func (cliKind) Actions(c *cassettes.Cassette) []verdict.Action { return sides(c) }

// Calls are the command's one call; its HTTP interactions are the
// command's own traffic and give no call of this adapter.
func (cliKind) Calls(c *cassettes.Cassette) []Call { return procCall(c) }

// procCall is the call of a cassette's recorded command (none without an
// input).
func procCall(c *cassettes.Cassette) []Call {
	if c.Input == nil {
		return nil
	}
	argv := append(strings.Fields(c.Input.Command), c.Input.Args...)
	return []Call{{Proc: true, Argv: argv, Stdin: len(c.Input.Stdin) > 0}}
}
