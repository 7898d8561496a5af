package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cassette-dev/cassette/internal/cfgschema"
)

// TestLoadProject: one load gives the validated config, a registry holding
// the project's normalizers, and the project's credential names.
func TestLoadProject(t *testing.T) {
	dir := t.TempDir()
	yaml := "adapters:\n  tool: {kind: cli, real: {command: [tool], credentials: [TOOL_TOKEN]}, fake: {command: [fake]}, normalizers: [pin]}\n" +
		"normalizers:\n  pin: {regex: 'pin-[0-9]+', replace: '<PIN>'}\n" +
		"redact:\n  names: [X-Tenant-Pin]\n"
	if err := os.WriteFile(filepath.Join(dir, cfgschema.ConfigFile), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Load(filepath.Join(dir, cfgschema.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	if p.Config.Adapters["tool"] == nil || !p.Normalizers.Has("pin") {
		t.Errorf("config %v, registry has pin: %v", p.Config.Adapters, p.Normalizers.Has("pin"))
	}
	if !p.Redact.IsCredentialName("x_tenant_pin") || p.Redact != p.Config.Redaction() {
		t.Error("the project's redaction does not hold redact.names")
	}
	creds := p.Credentials(func(name string) (string, bool) { return "live-" + name, name == "TOOL_TOKEN" })
	if len(creds) != 1 || creds["TOOL_TOKEN"] != "live-TOOL_TOKEN" {
		t.Errorf("Credentials = %v", creds)
	}
	// Found from a directory of cassettes below it.
	sub := filepath.Join(dir, "cassettes", "tool")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	found, err := Find(sub)
	if err != nil || found.Config.Path != p.Config.Path || !found.Redact.IsCredentialName("X-Tenant-Pin") {
		t.Fatalf("Find = %+v, %v", found, err)
	}
}

// TestFindProjectWithoutConfig: no cassette.yaml within reach is the
// project of no config (built-ins, no adapter), rooted at the directory.
func TestFindProjectWithoutConfig(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b", "c", "d")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Config.Adapters) != 0 || p.Config.Dir != dir || p.Redact != nil || !p.Normalizers.Has("uuid") {
		t.Errorf("project without config = %+v", p)
	}
}
