package verify

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
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
			cfg := &cassettes.Config{Dir: t.TempDir(), Adapters: map[string]*cassettes.Adapter{
				"gh": {Kind: cassettes.KindCLI, Fake: cassettes.Fake{InProcess: true, Test: tc.test, Timeout: cassettes.Duration(tc.timeout)}}}}
			g := RunTestGate(context.Background(), cfg, "gh", cfg.Dir)
			if g.Err == nil || g.Err.Reason != cassettes.EFakeUnavailable || !strings.Contains(g.Err.Message, tc.want) || g.Passed() {
				t.Fatalf("gate: %+v, want E_FAKE_UNAVAILABLE with %q", g.Err, tc.want)
			}
			if g.Err.NextStep != cassettes.Command(tc.test...) {
				t.Errorf("next step %q, want the gate's command", g.Err.NextStep)
			}
		})
	}
}
