package verify

import (
	"errors"
	"regexp"
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/matching"
	"github.com/cassette-dev/cassette/internal/nextstep"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// Select is the selection of --adapter, --run and --case (a case is its
// id, exactly; cases replace run). The error is the pattern's that does
// not compile.
func Select(adapters []string, run string, cases []string) (Selection, error) {
	sel := Selection{Adapters: adapters}
	pattern := run
	if len(cases) > 0 {
		quoted := make([]string, len(cases))
		for i, c := range cases {
			quoted[i] = regexp.QuoteMeta(c)
		}
		pattern = "^(?:" + strings.Join(quoted, "|") + ")$"
	}
	if pattern != "" {
		re, err := regexp.Compile(pattern)
		if err != nil {
			return sel, err
		}
		sel.Run = re
	}
	return sel, nil
}

// Validate is `cassette validate` of project p: the config's replay
// matching compiles (else err), then the cassettes of paths (none: the
// project's cassette directory) load strictly with lo. What they hold
// wrong is problems (a CLI cassette naming a program cassette.yaml does
// not declare, which refresh and record would refuse to run again,
// among them); err is an error that is no such problem.
func Validate(p *workspace.Project, paths []string, lo cassettes.LoadOptions) (list []*cassettes.Cassette, problems *outcome.Error, err error) {
	cfg := p.Config
	if err := matching.CheckConfig(cfg, nextstep.Command(cfg.Path, "cassette", "validate")); err != nil {
		return nil, nil, err
	}
	if len(paths) == 0 {
		paths = []string{cfg.CassetteDir()}
	}
	list, err = cassettes.LoadTree(paths, lo)
	err = nextstep.NoCassetteDir(cfg, err, paths)
	var ce *outcome.Error
	if err != nil && !errors.As(err, &ce) {
		return list, nil, err
	}
	switch e := workspace.UndeclaredCommands(cfg, list); {
	case e == nil:
	case ce == nil:
		ce = e
	default:
		ce.Problems = append(ce.Problems, e.Problems...)
	}
	return list, ce, nil
}
