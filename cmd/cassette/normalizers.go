package main

import (
	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/normalize"
)

// normalizerRegistry is the built-in normalizer registry, to which the
// config's project-defined normalizers are added as it loads.
type normalizerRegistry struct{ *normalize.Registry }

func newNormalizerRegistry() *normalizerRegistry {
	return &normalizerRegistry{normalize.Builtins()}
}

func (r *normalizerRegistry) define(name string, d cassettes.NormalizerDef) error {
	return r.Define(name, normalize.Definition{Regex: d.Regex, Replace: d.Replace, JSONPaths: d.JSONPaths, Headers: d.Headers})
}
