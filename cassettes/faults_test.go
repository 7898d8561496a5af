package cassettes

import (
	"strings"
	"testing"
)

// TestConfigFaults: real.faults is read strictly: its patterns must
// compile (reported at their line), it belongs to a cli adapter, and an
// unknown key is an error.
func TestConfigFaults(t *testing.T) {
	ok := `version: 1
adapters:
  gh:
    kind: cli
    real:
      command: [gh]
      faults: {exit_codes: [6, 7], stderr: ["Could not resolve host"], not_logged_in: ["gh auth login"], builtin: false, strict: false}
    fake: {command: [fake-gh]}
`
	cfg, err := ParseConfig("cassette.yaml", []byte(ok), ConfigOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if f := cfg.Adapters["gh"].Real.Faults; f == nil || len(f.ExitCodes) != 2 || f.Stderr[0] != "Could not resolve host" || *f.Builtin || *f.Strict {
		t.Errorf("faults = %+v", f)
	}
	for _, tc := range []struct{ name, faults, kind, want string }{
		{"bad pattern", `{stderr: [ok, "(unclosed"]}`, "cli", `cassette.yaml:6: adapters.gh.real.faults.stderr[1]: not a regular expression`},
		{"bad not_logged_in", `{not_logged_in: ["[z-a]"]}`, "cli", `adapters.gh.real.faults.not_logged_in[0]: not a regular expression`},
		{"http adapter", `{exit_codes: [7]}`, "http", `adapters.gh.real.faults: real.faults describes a cli adapter's command`},
		{"exit code out of range", `{exit_codes: [300]}`, "cli", `exit_codes[0]`},
		{"unknown key", `{retries: 3}`, "cli", `retries`},
	} {
		cfg := "version: 1\nadapters:\n  gh:\n    kind: " + tc.kind + "\n    real:\n      faults: " + tc.faults + "\n    fake: {command: [fake-gh]}\n"
		_, err := ParseConfig("cassette.yaml", []byte(cfg), ConfigOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}
