package verify

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// TestTestGateCannotJudge: a gate that does not start, writes no case of
// its adapter, or outlives fake.timeout could not judge the fake: each is
// infrastructure (E_FAKE_UNAVAILABLE) naming the command, never a pass or
// a fake drift. (The gate that judges, with pytest and the plugin, is
// cmd/cassette's refresh_inprocess_gate script and examples/python-team.)
func TestTestGateCannotJudge(t *testing.T) {
	for _, tc := range []struct {
		name    string
		test    []string
		timeout time.Duration
		want    string
	}{
		{"does not start", []string{"/nonexistent/pytest"}, 0, "did not run"},
		{"writes no report", []string{"sh", "-c", "exit 0"}, 0, "reported no case of the adapter"},
		{"fails writing none", []string{"sh", "-c", "echo collection error; exit 4"}, 0, "exit 4) reported no case of the adapter"},
		{"outlives fake.timeout", []string{"sh", "-c", "exec sleep 30"}, 50 * time.Millisecond, "did not run: stopped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &cfgschema.Config{Dir: t.TempDir(), Adapters: map[string]*cfgschema.Adapter{
				"gh": {Kind: cfgschema.KindCLI, Fake: cfgschema.Fake{InProcess: true, Test: tc.test, Timeout: cassettes.Duration(tc.timeout)}}}}
			g := RunTestGate(context.Background(), cfg, "gh", cfg.Dir)
			if g.Err == nil || g.Err.Reason != outcome.EFakeUnavailable || !strings.Contains(g.Err.Message, tc.want) || g.Passed() {
				t.Fatalf("gate: %+v, want E_FAKE_UNAVAILABLE with %q", g.Err, tc.want)
			}
			if g.Err.NextStep != outcome.Command(tc.test...) {
				t.Errorf("next step %q, want the gate's command", g.Err.NextStep)
			}
		})
	}
}

// TestTestGatesShareACommand: adapters whose fake.test is the same command
// share one run of it (a project's contract tests usually are one suite).
func TestTestGatesShareACommand(t *testing.T) {
	dir := t.TempDir()
	cmd := []string{"sh", "-c", "echo ran >> runs.log"}
	cfg := &cfgschema.Config{Dir: dir, Adapters: map[string]*cfgschema.Adapter{
		"git": {Kind: cfgschema.KindCLI, Fake: cfgschema.Fake{InProcess: true, Test: cmd}},
		"gh":  {Kind: cfgschema.KindCLI, Fake: cfgschema.Fake{InProcess: true, Test: cmd}},
		"sql": {Kind: cfgschema.KindCLI, Fake: cfgschema.Fake{InProcess: true}}}}
	gates := RunTestGates(context.Background(), cfg, []string{"git", "gh", "sql"}, dir)
	if data, _ := os.ReadFile(filepath.Join(dir, "runs.log")); string(data) != "ran\n" {
		t.Errorf("the shared command ran %q, want once", data)
	}
	if len(gates) != 3 || gates[0].Adapter != "git" || gates[1].Adapter != "gh" || gates[2].Err == nil || !strings.Contains(gates[2].Err.Message, "declares no fake.test") {
		t.Errorf("gates: %+v", gates)
	}
}
