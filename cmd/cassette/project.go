package main

import (
	"os"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/redact"
)

// project is what most commands start from: the validated config and the
// registries derived from it.
type project struct {
	cfg         *cassettes.Config
	normalizers *normalizerRegistry
}

// loadProject loads and validates the config named by --config.
func loadProject(g *globals) (*project, error) {
	reg := newNormalizerRegistry()
	cfg, err := cassettes.LoadConfig(g.config, cassettes.ConfigOptions{Normalizers: reg, DefineNormalizer: reg.define})
	if err != nil {
		return nil, err
	}
	return &project{cfg: cfg, normalizers: reg}, nil
}

// redaction returns the project's credential names; without a project
// (a command that runs without cassette.yaml), the built-in ones.
func (p *project) redaction() *redact.Rules {
	if p == nil {
		return nil
	}
	return p.cfg.Redaction()
}

// credentials returns the values of every declared credential variable
// that is set, for the leak scan.
func (p *project) credentials() map[string]string {
	return redact.FromEnv(p.cfg.CredentialNames(), os.LookupEnv)
}

func (p *project) loadOptions() cassettes.LoadOptions {
	return cassettes.LoadOptions{Config: p.cfg, Normalizers: p.normalizers, Credentials: p.credentials()}
}
