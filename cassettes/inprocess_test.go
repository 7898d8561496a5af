package cassettes

import (
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// TestInProcessFake: an adapter whose fake a test runner drives declares
// fake.in_process and needs no command or base_url; without it, the
// missing command is an error that names the way out.
func TestInProcessFake(t *testing.T) {
	ok := "adapters:\n  git: {kind: cli, fake: {in_process: true}}\n  api: {kind: http, fake: {in_process: true}}\n"
	cfg, err := ParseConfig("cassette.yaml", []byte(ok), ConfigOptions{})
	if err != nil {
		t.Fatalf("in_process adapters: %v", err)
	}
	if !cfg.Adapters["git"].Fake.InProcess || !cfg.Adapters["api"].Fake.InProcess {
		t.Errorf("in_process not loaded: %+v", cfg.Adapters)
	}
	for _, bad := range []string{"adapters:\n  git: {kind: cli, fake: {}}\n", "adapters:\n  api: {kind: http, fake: {in_process: false}}\n"} {
		_, err := ParseConfig("cassette.yaml", []byte(bad), ConfigOptions{})
		if err == nil || !strings.Contains(outcome.AsError(err).Problems[0].Message, "or in_process: true") {
			t.Errorf("%q: %v, want the missing fake named with in_process as the way out", bad, err)
		}
	}
}
