package main

import (
	"maps"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/match"
	"github.com/cassette-dev/cassette/outcome"
)

// matchFlags are the replay matching flags of `cassette proxy`, the same
// settings as `match:` in cassette.yaml.
type matchFlags struct {
	fs                         *pflag.FlagSet
	urls, params, ignore, only []string
	sequence, preset           string
}

func (m *matchFlags) bind(f *pflag.FlagSet) {
	m.fs = f
	f.StringArrayVar(&m.urls, "match-url", nil, "URL pattern, glob:PATTERN or regex:EXPR; requests matching the same pattern as a recorded one match its URL (repeatable)")
	f.StringSliceVar(&m.params, "ignore-query", nil, "query parameter left out of matching, by name (repeatable)")
	f.StringArrayVar(&m.ignore, "ignore-json", nil, "JSONPath left out of a JSON request body, e.g. $.nonce (repeatable)")
	f.StringArrayVar(&m.only, "match-json", nil, "JSONPath compared in a JSON request body; only these are (repeatable)")
	f.StringVar(&m.preset, "match-preset", "", "named match rules for an LLM API's request bodies ("+strings.Join(match.PresetNames(), ", ")+"): leave out what a newer SDK adds, compare the rest as JSON; the other matching flags are laid over it")
	f.StringVar(&m.sequence, "sequence", "", "once (a request repeated more often than recorded misses) or replayable (the last response is served again); --replayable is --sequence replayable")
}

func (m *matchFlags) check() error {
	switch m.sequence {
	case "", "once", "replayable":
	default:
		return outcome.Errorf(outcome.EUsage, outcome.Command("cassette", "proxy", "--help"), "--sequence %q: expected once or replayable", m.sequence)
	}
	if err := m.apply(match.Rules{}).Check(); err != nil {
		return outcome.Errorf(outcome.EUsage, outcome.Command("cassette", "proxy", "--help"), "%v (the matching flags are in cassette proxy --help)", err)
	}
	return nil
}

// apply lays the flags that were given over o.
func (m *matchFlags) apply(o match.Rules) match.Rules {
	changed := func(name string) bool { return m.fs != nil && m.fs.Changed(name) }
	if changed("match-url") {
		o.URLs = m.urls
	}
	if changed("ignore-query") {
		o.IgnoreParams = m.params
	}
	if changed("ignore-json") {
		o.IgnoreJSON = m.ignore
	}
	if changed("match-json") {
		o.OnlyJSON = m.only
	}
	if changed("match-preset") {
		o.Preset = m.preset
	}
	if m.sequence != "" {
		o.Replayable = m.sequence == "replayable"
	}
	return o
}

// matchFromConfig gives each cassette the `match:` of its adapter (or
// scenario) in cassette.yaml, with the flags that were given laid over it.
// An invalid pattern or path in the config is an error naming its line.
func matchFromConfig(cfg *cassettes.Config, def match.Rules, o *proxyOptions) (func(*cassettes.Cassette) match.Rules, error) {
	if err := checkMatchConfig(cfg); err != nil {
		return nil, err
	}
	return func(c *cassettes.Cassette) match.Rules {
		a, ok := cfg.Adapters[c.Adapter]
		if !ok {
			return def
		}
		base := match.FromConfig(a.Match.For(c.Scenario))
		if o.fsChanged("match-header") {
			base.Headers = def.Headers
		}
		if o.fsChanged("match-body") {
			base.Body = def.Body
		}
		if o.fsChanged("ignore-host") {
			base.IgnoreHost = def.IgnoreHost
		}
		if o.fsChanged("replayable") {
			base.Replayable = def.Replayable
		}
		return o.match.apply(base)
	}, nil
}

// checkMatchConfig compiles every adapter's and scenario's `match:` (URL
// patterns, JSONPaths); the first that does not compile is a config error
// naming its line.
func checkMatchConfig(cfg *cassettes.Config) error {
	for _, name := range cfg.Order {
		a := cfg.Adapters[name]
		for _, sc := range append([]string{""}, sortedScenarioNames(a.Match)...) {
			if err := match.FromConfig(a.Match.For(sc)).Check(); err != nil {
				field := "adapters." + name + ".match"
				if sc != "" {
					field += ".scenarios." + sc
				}
				return &outcome.Error{Reason: outcome.ECfgParse, Message: "invalid replay matching in " + cfg.Path,
					Problems: []outcome.Problem{{File: cfg.Path, Line: cfg.Line(field), Field: field, Message: err.Error()}},
					NextStep: commandWithConfig(cfg.Path, "cassette", "validate")}
			}
		}
	}
	return nil
}

func (o *proxyOptions) fsChanged(name string) bool {
	return o.match.fs != nil && o.match.fs.Changed(name)
}

func sortedScenarioNames(m cassettes.Match) []string { return slices.Sorted(maps.Keys(m.Scenarios)) }
