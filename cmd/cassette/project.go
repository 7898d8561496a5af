package main

import (
	"os"
	"path/filepath"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// project is the project a command runs on (workspace.LoadKinds of
// --config): config, normalizer registry and redaction rules, loaded once
// and passed down. cfg is its Config, under the name the commands use.
type project struct {
	*workspace.Project
	cfg *cfgschema.Config
}

// loadProject loads and validates the config named by --config.
func loadProject(g *globals) (*project, error) {
	g.config = findConfig(g.config)
	p, err := workspace.LoadKinds(g.config, kinds().Loading())
	if err != nil {
		return nil, err
	}
	return &project{Project: p, cfg: p.Config}, nil
}

// findConfig is the config a command uses: the one given, or, for the
// default cassette.yaml when the working directory has none, the nearest
// one above it (as git finds .git), relative to the working directory so
// that printed commands name it (--config ../cassette.yaml) and run from
// here.
func findConfig(given string) string {
	if given != cfgschema.ConfigFile {
		return given
	}
	if _, err := os.Stat(given); err == nil {
		return given
	}
	wd, err := os.Getwd()
	if err != nil {
		return given
	}
	found := workspace.FindConfig(wd, -1)
	if found == "" {
		return given
	}
	if rel, err := filepath.Rel(wd, found); err == nil {
		return rel
	}
	return found
}

// redaction returns the project's credential names; without a project
// (a command that runs without cassette.yaml), the built-in ones.
func (p *project) redaction() *redact.Rules {
	if p == nil {
		return nil
	}
	return p.Redact
}

// credentials returns the values of every declared credential variable
// that is set, for the leak scan.
func (p *project) credentials() map[string]string { return p.Credentials(os.LookupEnv) }

func (p *project) loadOptions() cassettes.LoadOptions { return p.LoadOptions(p.credentials()) }

// secretForms returns every form (redact.Encodings) of every declared
// credential value that is set, keyed as redact.Redactor.Values keys them:
// what the reports, the bundle, the fakes' logs and what refresh prints are
// scrubbed of and scanned for (a fake that logs a token base64-encoded is
// caught like one that logs it as is).
func (p *project) secretForms() map[string]string {
	return redact.New(p.Redact, p.credentials()).Values()
}
