package coverage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// TestAnalyzeProjectWithoutObservations: coverage on a loaded project is
// reachable without the process; with nothing observed it is a usage
// error whose next step is the caller's observe command.
func TestAnalyzeProjectWithoutObservations(t *testing.T) {
	dir := t.TempDir()
	cfg := "version: 1\nadapters:\n  shop:\n    kind: http\n    fake: {base_url: \"http://127.0.0.1:9\"}\n"
	if err := os.WriteFile(filepath.Join(dir, "cassette.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := workspace.Load(filepath.Join(dir, "cassette.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	observed := filepath.Join(dir, ".cassette", "observed")
	if err := os.MkdirAll(observed, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = AnalyzeProject(p, observed, Options{ObserveStep: "cassette observe -- go test ./..."})
	if err == nil {
		t.Fatal("AnalyzeProject with nothing observed gave no error")
	}
	if ce := outcome.AsError(err); ce.Reason != outcome.EUsage || ce.NextStep != "cassette observe -- go test ./..." {
		t.Fatalf("AnalyzeProject with nothing observed: %v (next %q); want E_USAGE naming the observe step", err, ce.NextStep)
	}
}

// TestRedactAllScrubsLaterLearnedValues: a value learned from a later call
// (a credential-named flag) is scrubbed from the calls read before it,
// and the calls after it keep it scrubbed.
func TestRedactAllScrubsLaterLearnedValues(t *testing.T) {
	call := func(argv ...string) Located { return Located{Observation: Observation{Call: Call{Argv: argv}}} }
	obs := []Located{call("gh", "api", "user", "s3cr3t-value-99"), call("gh", "auth", "--token=s3cr3t-value-99"), call("gh", "api", "s3cr3t-value-99")}
	redactAll(obs, redact.New(nil, nil))
	for i, o := range obs {
		if got := strings.Join(o.Call.Argv, " "); strings.Contains(got, "s3cr3t") {
			t.Errorf("call %d: %q still holds the value learned from call 2", i, got)
		}
	}
}
