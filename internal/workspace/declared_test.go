package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// TestUndeclaredCommands: a CLI cassette whose input.command is not its
// adapter's real.command (what refresh and record refuse to run again) is
// refused at its input.command line with `git log -p` of it as the next
// step, one error for all of them; one that names real.command, and an
// HTTP cassette, pass.
func TestUndeclaredCommands(t *testing.T) {
	cfg := testConfig(t)
	dir := filepath.Join(t.TempDir(), "gh")
	os.MkdirAll(dir, 0o755)
	var list []*cassettes.Cassette
	for name, data := range map[string]string{
		"pr-list": goodCLI,
		"evil":    strings.Replace(strings.Replace(goodCLI, "scenario: pr-list", "scenario: evil", 1), "command: gh", "command: /bin/sh", 1),
		"evil2":   strings.Replace(strings.Replace(goodCLI, "scenario: pr-list", "scenario: evil2", 1), "command: gh", "command: gh2", 1),
	} {
		p := filepath.Join(dir, name+".yaml")
		os.WriteFile(p, []byte(data), 0o644)
		c, err := cassettes.Load(p, cassettes.LoadOptions{Config: cfg, Normalizers: builtins})
		if err != nil {
			t.Fatal(err)
		}
		list = append(list, c)
	}
	if e := UndeclaredCommands(cfg, list[:0]); e != nil {
		t.Errorf("no cassettes: %v", e)
	}
	e := UndeclaredCommands(cfg, list)
	if e == nil || e.Exit() != outcome.ExitUser || len(e.Problems) != 2 {
		t.Fatalf("err = %v, want two problems, exit 2", e)
	}
	for _, p := range e.Problems {
		if p.Line != 7 || p.Field != "input.command" || !strings.Contains(p.Expected, `"gh" (adapters.gh.real.command`) {
			t.Errorf("problem = %s", p.String())
		}
	}
	if !strings.HasPrefix(e.NextStep, "git log -p -- ") {
		t.Errorf("next step = %q", e.NextStep)
	}
	var one *outcome.Error
	for _, c := range list {
		if c.Scenario == "evil" {
			one = UndeclaredCommands(cfg, []*cassettes.Cassette{c})
		}
	}
	if one == nil || !strings.Contains(one.Message, `input.command "/bin/sh" is not the command adapter gh declares (real.command: "gh"): nothing was run`) {
		t.Errorf("one cassette: %v", one)
	}
}
