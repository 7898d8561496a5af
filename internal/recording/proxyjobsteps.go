package recording

import (
	"path/filepath"
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/matching"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/proxy"
	"github.com/cassette-dev/cassette/match"
)

// The matching a proxy job replays with, and the commands its next steps
// name.

// apply lays the matching flags that were given over o.
func (j *ProxyJob) apply(o match.Rules) match.Rules {
	m := j.Match
	if j.changed("match-url") {
		o.URLs = m.URLs
	}
	if j.changed("ignore-query") {
		o.IgnoreParams = m.Params
	}
	if j.changed("ignore-json") {
		o.IgnoreJSON = m.Ignore
	}
	if j.changed("match-json") {
		o.OnlyJSON = m.Only
	}
	if j.changed("match-preset") {
		o.Preset = m.Preset
	}
	if m.Sequence != "" {
		o.Replayable = m.Sequence == "replayable"
	}
	return o
}

// matchFromConfig gives each cassette the `match:` of its adapter (or
// scenario) in cassette.yaml, with the flags that were given laid over it.
// An invalid pattern or path in the config is an error naming its line.
func (j *ProxyJob) matchFromConfig(def match.Rules) (func(*cassettes.Cassette) match.Rules, error) {
	cfg := j.Project.Config
	if err := matching.CheckConfig(cfg, j.step("cassette", "validate")); err != nil {
		return nil, err
	}
	return func(c *cassettes.Cassette) match.Rules {
		a, ok := cfg.Adapters[c.Adapter]
		if !ok {
			return def
		}
		base := matching.FromConfig(a.Match.For(c.Scenario))
		if j.changed("match-header") {
			base.Headers = def.Headers
		}
		if j.changed("match-body") {
			base.Body = def.Body
		}
		if j.changed("ignore-host") {
			base.IgnoreHost = def.IgnoreHost
		}
		if j.changed("replayable") {
			base.Replayable = def.Replayable
		}
		return j.apply(base)
	}, nil
}

// rerecord is the command a replay miss names to record a cassette again:
// `cassette record --adapter A --scenario S` when the project declares the
// cassette's adapter (it needs the declaration), else this proxy in record
// mode on that cassette, with this run's upstream; with nothing recorded,
// on a new file in the replayed directory.
func (j *ProxyJob) rerecord(c *cassettes.Cassette) string {
	if c != nil {
		if _, ok := j.declared(c.Adapter); ok && cassettes.ValidNewName(c.Adapter) && cassettes.ValidNewName(c.Scenario) {
			return outcome.Command("cassette", "record", "--adapter", c.Adapter, "--scenario", c.Scenario)
		}
	}
	again := *j
	again.Mode = string(proxy.ModeRecord)
	switch {
	case c != nil && c.Path != "":
		again.Cassette = c.Path
	case !strings.HasSuffix(j.Cassette, ".yaml"):
		again.Cassette = filepath.Join(j.Cassette, "new.yaml")
	}
	return again.again()
}

// again is the command line of this run, for next steps.
func (j *ProxyJob) again() string { return outcome.Command(j.words(j.Cassette)...) }

// words is the proxy's command line, with the flags that choose where and
// what it records, for the cassette at path.
func (j *ProxyJob) words(path string) []string {
	argv := []string{"cassette", "proxy", "--mode", j.Mode, "--cassette", path}
	if j.Listen != "" && j.Listen != "127.0.0.1:0" {
		argv = append(argv, "--listen", j.Listen)
	}
	if j.Upstream != "" {
		argv = append(argv, "--upstream", j.Upstream)
	}
	if j.UpstreamCA != "" {
		argv = append(argv, "--upstream-ca", j.UpstreamCA)
	}
	if j.Adapter != "" {
		argv = append(argv, "--adapter", j.Adapter)
	}
	return argv
}
