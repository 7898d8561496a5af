package main

import "github.com/cassette-dev/cassette/cassettes"

// normalizerRegistry adapts the normalize registry to the config loader.
// TODO(lead): replace with normalize.Registry once the package lands.
type normalizerRegistry struct{}

func newNormalizerRegistry() *normalizerRegistry { return &normalizerRegistry{} }

func (r *normalizerRegistry) Has(string) bool                              { return true }
func (r *normalizerRegistry) Names() []string                              { return nil }
func (r *normalizerRegistry) define(string, cassettes.NormalizerDef) error { return nil }
