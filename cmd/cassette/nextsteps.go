package main

import (
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/nextstep"
)

// The next steps commands print are package nextstep's, built from the
// project's own names; these are the names the commands call them by.

// command is the cassette command of words, naming the project's config
// when it is not the default one.
func (p *project) command(words ...string) string { return nextstep.Command(p.cfg.Path, words...) }

func commandWithConfig(config string, words ...string) string {
	return nextstep.Command(config, words...)
}

// observeStep runs the project's test suite under cassette observe.
func (p *project) observeStep() string { return nextstep.Observe(p.cfg) }

// runPatternStep is the next step of a --run that does not compile, in the
// project of --config when it loads.
func runPatternStep(g *globals, name, run string) string {
	var cfg *cfgschema.Config
	if p, err := loadProject(g); err == nil {
		cfg = p.cfg
	}
	return nextstep.RunPattern(cfg, g.config, name, run)
}
