package verify

import (
	"context"
	"fmt"
	"strings"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// InProcessGates is `verify --in-process`: it runs the fake.test of each
// in-process adapter among cases (verify skipped them), folds what it
// found into run and returns a line on each.
func InProcessGates(ctx context.Context, cfg *cfgschema.Config, cases []Case, run *verdict.Run) []string {
	var names []string
	seen := map[string]bool{}
	for _, c := range cases {
		name := c.Cassette.Adapter
		if a := cfg.Adapters[name]; !seen[name] && a != nil && a.InProcessOnly() {
			seen[name] = true
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	var lines []string
	for _, g := range RunTestGates(ctx, cfg, names, GateDir(cfg)) {
		lines = append(lines, "in process: "+g.Summary())
		g.Fold(run)
		for _, f := range g.Failed {
			lines = append(lines, fmt.Sprintf("  FAIL  %s/%s: %s\n        replay: %s", f.Adapter, outcome.Printable(f.Scenario), outcome.Printable(strings.SplitN(f.Message, "\n", 2)[0]), outcome.Printable(f.ReplayCommand)))
		}
	}
	return lines
}
