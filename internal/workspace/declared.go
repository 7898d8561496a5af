package workspace

import (
	"fmt"
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// UndeclaredCommand is the error of a CLI cassette c whose input.command is
// not the command its adapter declares (real, the adapter's real.command in
// cassette.yaml); nil when it is. A cassette is data: it arrives in pull
// requests, and refresh writes it. Refresh and `cassette record` without a
// command run only real.command, so they refuse such a cassette before
// anything runs; validate refuses it the same way, so that the pull
// request that brings one fails its checks. The command is quoted in what
// is printed: a cassette's text may hold anything, line breaks included.
func UndeclaredCommand(c *cassettes.Cassette, adapter string, real []string) *outcome.Error {
	want := strings.Join(real, " ")
	if c.Input == nil || c.Input.Command == want {
		return nil
	}
	line := c.Line("input.command")
	loc := outcome.Problem{File: c.Path, Line: line}.Location()
	return &outcome.Error{Reason: outcome.ECassetteInvalid,
		Message: fmt.Sprintf("%s: input.command %q is not the command adapter %s declares (real.command: %q): nothing was run; refresh and record run only what cassette.yaml declares (see who changed input.command, restore it, or record the scenario again with the declared command)",
			loc, c.Input.Command, adapter, want),
		Problems: []outcome.Problem{{File: c.Path, Line: line, Field: "input.command",
			Message: "names a program that is not the adapter's real.command", Expected: fmt.Sprintf("%q (adapters.%s.real.command in cassette.yaml)", want, adapter)}},
		NextStep: outcome.Command("git", "log", "-p", "--", c.Path)}
}

// UndeclaredCommands checks each CLI cassette of list whose adapter
// declares a real.command (UndeclaredCommand): nil when all name it, the
// one error when one does not, else one error holding every problem, with
// the first one's next step.
func UndeclaredCommands(cfg *cfgschema.Config, list []*cassettes.Cassette) *outcome.Error {
	if cfg == nil {
		return nil
	}
	var all *outcome.Error
	n := 0
	for _, c := range list {
		a, ok := cfg.Adapters[c.Adapter]
		if !ok || c.Kind != cfgschema.KindCLI || len(a.Real.Command) == 0 {
			continue
		}
		e := UndeclaredCommand(c, c.Adapter, a.Real.Command)
		if e == nil {
			continue
		}
		if n++; all == nil {
			all = e
			continue
		}
		all.Problems = append(all.Problems, e.Problems...)
		all.Message = fmt.Sprintf("%d CLI cassettes name a program that is not their adapter's real.command: refresh and record run only what cassette.yaml declares (see who changed input.command, restore it, or record the scenarios again with the declared command)", n)
	}
	return all
}
