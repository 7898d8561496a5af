package verify_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/normalize"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/report"
	"github.com/cassette-dev/cassette/internal/verify"
)

// ghRepo is what the real `gh api repos/o/r` printed (trimmed): far more
// than the three fields its caller reads.
const ghRepo = `{"id": 1, "name": "r", "full_name": "o/r", "private": false, "owner": {"login": "o", "id": 2}, "topics": [], "homepage": null}`

// modelledProject writes a project whose gh fake is a real child process
// (sh) that prints what is given, and whose adapter block is adapter.
func modelledProject(t *testing.T, adapter, fakeOut string) (*cfgschema.Config, []verify.Case) {
	t.Helper()
	dir := t.TempDir()
	fake := filepath.Join(dir, "fake-gh")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\nprintf '%s\\n' '"+fakeOut+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfgYAML := "version: 1\nadapters:\n  gh:\n    kind: cli\n    real: {command: [gh]}\n    fake: {command: [" + fake + "]}\n" + adapter
	cassette := `cassette: 1
adapter: gh
scenario: repo
kind: cli
input: {command: gh, args: [api, repos/o/r]}
output:
  stdout: |
    ` + ghRepo + `
  stderr: ""
  exit_code: 0
`
	if err := os.MkdirAll(filepath.Join(dir, "cassettes", "gh"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"cassette.yaml": cfgYAML, "cassettes/gh/repo.yaml": cassette} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reg := normalize.Builtins()
	cfg, err := cassettes.LoadConfig(filepath.Join(dir, "cassette.yaml"), cassettes.ConfigOptions{Normalizers: reg})
	if err != nil {
		t.Fatal(err)
	}
	list, err := cassettes.LoadTree([]string{cfg.CassetteDir()}, cassettes.LoadOptions{Config: cfg, Normalizers: reg})
	if err != nil {
		t.Fatal(err)
	}
	cases, err := verify.Plan(cfg, list, verify.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	return cfg, cases
}

// TestVerifyModelledFake: a fake CLI that prints the three fields its
// caller reads passes in modelled mode with its figure in the console,
// summary.json, report.html and the job summary; it fails in exact mode,
// when a required field is left out, and below coverage.min_modelled.
func TestVerifyModelledFake(t *testing.T) {
	const subset = `{"name":"r","full_name":"o/r","owner":{"login":"o"}}`
	tests := []struct {
		name, adapter, fakeOut string
		pass                   bool
		want                   string // in the console
	}{
		{"modelled", "    compare: modelled\n", subset, true, "gh: 44.4% of response fields modelled (4 of 9), 0 required missing"},
		{"exact", "", subset, false, "schema drift at output.stdout $.homepage: removed"},
		{"invented", "    compare: modelled\n", `{"name":"r","full_name":"o/r","fork":false}`, false, "schema drift at output.stdout $.fork: added"},
		{"required", "    compare: modelled\n    required: [$.id, $.owner.login]\n", subset, false, "gh: 44.4% of response fields modelled (4 of 9), 1 required missing"},
		{"below min", "    compare: modelled\n    coverage: {min_modelled: 50}\n", subset, false, "cassette.yaml:8: adapters.gh.coverage.min_modelled: the gh fake models 44.4% of the response fields reality returned (4 of 9)"},
		{"at min", "    compare: modelled\n    coverage: {min_modelled: 40}\n", subset, true, "(at least min_modelled 40%)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, cases := modelledProject(t, tc.adapter, tc.fakeOut)
			o := verify.Run(context.Background(), cases, verify.Options{Config: cfg, Normalizers: normalize.Builtins()})
			run := o.Report(cfg, verify.Meta{})
			var console bytes.Buffer
			verify.Console{W: &console}.Write(o, run)
			if pass := run.Exit() == outcome.ExitPass; pass != tc.pass {
				t.Fatalf("exit %d, want pass %v:\n%s", run.Exit(), tc.pass, console.String())
			}
			said := console.String() // and the run-level error, which the run's ending prints (cmd/cassette runend.go)
			if o.Err != nil {
				for _, p := range o.Err.Problems {
					said += p.String() + "\n"
				}
			}
			if !strings.Contains(said, tc.want) {
				t.Fatalf("console and run error lack %q:\n%s", tc.want, said)
			}
			if tc.name != "modelled" {
				return
			}
			files, err := report.Render((*report.Run)(run), report.Options{Golden: true})
			if err != nil {
				t.Fatal(err)
			}
			var sum struct {
				Modelled []report.ModelledAdapter `json:"modelled"`
			}
			if err := json.Unmarshal(files[report.FileSummary], &sum); err != nil {
				t.Fatal(err)
			}
			if len(sum.Modelled) != 1 || sum.Modelled[0].Percent != 44.4 || sum.Modelled[0].Scenarios[0].Scenario != "repo" {
				t.Fatalf("summary.json modelled = %+v", sum.Modelled)
			}
			html := string(files[report.FileHTML])
			for _, want := range []string{`<h2 id="modelled">What the fakes model</h2>`, `44.4% (4 of 9)`, `gh/repo: 5 left out by the fake`,
				`<code>output.stdout $.homepage</code>`} {
				if !strings.Contains(html, want) {
					t.Errorf("report.html lacks %q", want)
				}
			}
			md := filepath.Join(t.TempDir(), "summary.md")
			if err := report.AppendStepSummary(md, (*report.Run)(run), report.Links{}, report.Options{}); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(md); !strings.Contains(string(b), "| gh | all | 44.4% (4 of 9) | 0 |") {
				t.Errorf("job summary lacks the figure:\n%s", b)
			}
		})
	}
}

// TestExactOptionOverridesModelled: Options.Exact (refresh's comparison of
// a re-recording with its cassette) compares byte for byte even for an
// adapter compared in modelled mode: a field reality no longer returns is
// a change of the service.
func TestExactOptionOverridesModelled(t *testing.T) {
	cfg, cases := modelledProject(t, "    compare: modelled\n", `{"name":"r","full_name":"o/r","owner":{"login":"o"}}`)
	got := verify.WithOutput(cases[0].Cassette, cassettes.Output{Stdout: cassettes.Body(`{"name":"r","full_name":"o/r","owner":{"login":"o"}}` + "\n")})
	opts := verify.Options{Config: cfg, Normalizers: normalize.Builtins()}
	sides, err := verify.CompareSides(cases[0], got, opts)
	if err != nil || len(sides.Drifts) != 0 || sides.Modelled == nil {
		t.Fatalf("modelled: %v %+v", err, sides)
	}
	opts.Exact = true
	if sides, err = verify.CompareSides(cases[0], got, opts); err != nil || len(sides.Drifts) == 0 || sides.Modelled != nil {
		t.Fatalf("exact: %v %+v, want drifts and no figure", err, sides)
	}
}
