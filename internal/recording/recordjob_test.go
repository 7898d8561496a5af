package recording

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// TestRecordJobWithoutTheProcess: `cassette record`'s pipeline is reached
// without the binary, and its refusals name the command that runs next: a
// bad scenario name before the project loads, an adapter the project does
// not declare (the nearest that it does), and credentials that are not set
// (the same command, once they are exported).
func TestRecordJobWithoutTheProcess(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cassette.yaml")
	if err := os.WriteFile(cfg, []byte("version: 1\nadapters:\n  shop:\n    kind: http\n    real: {base_url: \"http://127.0.0.1:1\", credentials: [SHOP_TOKEN_UNSET_IN_TEST]}\n    fake: {base_url: \"http://127.0.0.1:1\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	loads := 0
	job := func(adapter, scenario string) *RecordJob {
		return &RecordJob{Adapter: adapter, Scenario: scenario, Config: cfg, Load: func() (*workspace.Project, error) { loads++; return workspace.Load(cfg) }}
	}
	for _, c := range []struct {
		job     *RecordJob
		command []string
		reason  outcome.Reason
		next    string
		loads   int
	}{
		{job("shop", "a b"), nil, outcome.EUsage, "cassette record --adapter shop --scenario a-b --config " + cfg, 0},
		{job("shpo", "s"), []string{"curl", "-sS", "http://x.test/"}, outcome.EUsage, "cassette record --adapter shop --scenario s --config " + cfg + " -- curl -sS http://x.test/", 1},
		{job("shop", "s"), []string{"curl", "-sS", "http://x.test/"}, outcome.EMissingConfig, "cassette record --adapter shop --scenario s --config " + cfg + " -- curl -sS http://x.test/", 2},
	} {
		ce := outcome.AsError(c.job.Run(context.Background(), c.command))
		if ce.Reason != c.reason || ce.NextStep != c.next || loads != c.loads {
			t.Errorf("record --adapter %s --scenario %q: %s, next %q (loads %d); want %s, next %q (loads %d)", c.job.Adapter, c.job.Scenario, ce.Reason, ce.NextStep, loads, c.reason, c.next, c.loads)
		}
	}
}

// TestRecordJobNextStepHidesEveryDeclaredCredential: the next step that
// repeats the command line refers to any declared credential it holds,
// another adapter's too, by its variable, never by its value (it is
// printed, and the reports keep it).
func TestRecordJobNextStepHidesEveryDeclaredCredential(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cassette.yaml")
	if err := os.WriteFile(cfg, []byte("version: 1\nadapters:\n"+
		"  shop:\n    kind: http\n    real: {base_url: \"http://127.0.0.1:1\", credentials: [SHOP_TOKEN_UNSET_IN_TEST]}\n    fake: {base_url: \"http://127.0.0.1:1\"}\n"+
		"  db:\n    kind: cli\n    real: {command: [psql], credentials: [DB_DSN]}\n    fake: {command: [psql]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const value = "zq8Kp3vLmW2xYt7RnB4"
	t.Setenv("DB_DSN", value) // a name no built-in rule calls a credential
	job := &RecordJob{Adapter: "shop", Scenario: "s", Config: cfg, Load: func() (*workspace.Project, error) { return workspace.Load(cfg) }}
	ce := outcome.AsError(job.Run(context.Background(), []string{"curl", "-sS", "http://x.test/?k=" + value}))
	want := `cassette record --adapter shop --scenario s --config ` + cfg + ` -- sh -c 'curl -sS "http://x.test/?k=${DB_DSN}"'`
	if ce.Reason != outcome.EMissingConfig || ce.NextStep != want || strings.Contains(ce.Error(), value) {
		t.Errorf("%s: %q, next %q; want E_MISSING_CONFIG, next %q", ce.Reason, ce.Error(), ce.NextStep, want)
	}
}
