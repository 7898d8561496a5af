package cfgschema

import (
	"slices"
	"testing"
)

// The strict load of cassette.yaml, and every rule of it, is tested in
// package cassettes (its loader); these are the schema's own answers on a
// Config built in memory.

// TestSecretVarsAndWithoutVars: the live credentials are every adapter's
// real.credentials, once each, and the forge's token; WithoutVars drops
// exactly those variables from an environment.
func TestSecretVarsAndWithoutVars(t *testing.T) {
	cfg := &Config{Order: []string{"gh", "api"}, Adapters: map[string]*Adapter{
		"gh":  {Real: Real{Credentials: []string{"GH_TOKEN"}}},
		"api": {Real: Real{Credentials: []string{"API_KEY", "GH_TOKEN"}}}}}
	cfg.Refresh.Forge.Kind = "github"
	if got := cfg.SecretVars(); !slices.Equal(got, []string{"GH_TOKEN", "API_KEY", "GITHUB_TOKEN"}) {
		t.Errorf("SecretVars = %v", got)
	}
	if got := WithoutVars([]string{"A=1", "GH_TOKEN=x", "GITHUB_TOKEN=y", "B=GH_TOKEN"}, cfg.SecretVars()); !slices.Equal(got, []string{"A=1", "B=GH_TOKEN"}) {
		t.Errorf("WithoutVars = %v", got)
	}
	if got := cfg.FakeEnviron([]string{"API_KEY=k", "HOME=/h"}, "PORT=1"); !slices.Equal(got, []string{"HOME=/h", "PORT=1"}) {
		t.Errorf("FakeEnviron = %v", got)
	}
}

// TestAdaptersOf: the adapters of one kind, in the file's order (not the
// map's).
func TestAdaptersOf(t *testing.T) {
	cfg := &Config{Order: []string{"z", "gh", "a"}, Adapters: map[string]*Adapter{
		"z": {Kind: KindHTTP}, "gh": {Kind: KindCLI}, "a": {Kind: KindHTTP}}}
	if got := cfg.AdaptersOf(KindHTTP); !slices.Equal(got, []string{"z", "a"}) {
		t.Errorf("AdaptersOf(http) = %v, want [z a]", got)
	}
	if got := cfg.AdaptersOf("grpc"); got != nil {
		t.Errorf("AdaptersOf(grpc) = %v, want none", got)
	}
}

// TestLocatedAndValidated: a Config built in memory has no lines and
// makes its redaction rules on each call; one the loader located answers
// from its line table, and one it validated hands out one set of rules.
func TestLocatedAndValidated(t *testing.T) {
	cfg := &Config{Redact: Redact{Names: []string{"x_tenant_pin"}}}
	if got := cfg.Line("adapters"); got != 0 {
		t.Errorf("Line before Located = %d, want 0", got)
	}
	if first, second := cfg.Redaction(), cfg.Redaction(); first == nil || first == second {
		t.Error("an unvalidated Config with redact.names should make fresh rules on each call")
	}
	cfg.Located(func(field string) int { return len(field) })
	if got := cfg.Line("adapters"); got != 8 {
		t.Errorf("Line after Located = %d, want 8", got)
	}
	cfg.Validated()
	r := cfg.Redaction()
	if r == nil || r != cfg.Redaction() || !r.IsCredentialName("x_tenant_pin") {
		t.Error("a validated Config should hand out one set of rules that knows redact.names")
	}
	if (&Config{}).Redaction() != nil {
		t.Error("a Config without redact.names should use the built-in names (nil)")
	}
}
