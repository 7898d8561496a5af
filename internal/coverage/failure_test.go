package coverage

import (
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
)

// TestReportFailure: a passing run has no failure; a failing one names
// each adapter that falls short, in cassette.yaml's order, and its next
// step records the first uncovered shape of the first of them.
func TestReportFailure(t *testing.T) {
	cfg := testProject(t)
	list := []*cassettes.Cassette{cliCassette(cfg, "git", "status", "status")}
	pass := analyze(t, cfg, list, []Located{obsCLI("TestA", "git", "status")}, nil)
	if msg, next := pass.Failure(); msg != "" || next != "" {
		t.Errorf("a covered run fails: %q, next %q", msg, next)
	}
	obs := []Located{obsCLI("TestA", "git", "status"), obsCLI("TestB", "git", "log"), obsCLI("TestC", "gh", "pr", "list")}
	rep := analyze(t, cfg, list, obs, ptr(100.0))
	msg, next := rep.Failure()
	want := "adapter git covers 50.0% of its call shapes (min 100.0%): 1 uncovered; adapter gh has no cassette for the 1 call shapes its fake answered"
	if msg != want {
		t.Errorf("Failure message:\n got %s\nwant %s", msg, want)
	}
	if next != adapterOf(t, rep, "git").Uncovered()[0].Record || !strings.Contains(next, "cassette record") {
		t.Errorf("Failure next step %q: want git's first uncovered shape's record command", next)
	}
}

// TestWarnUnrecorded: an adapter with a fake and no cassette is warned
// about, with the command that records one (a CLI adapter's names the
// call to make); one with a cassette is not.
func TestWarnUnrecorded(t *testing.T) {
	cfg := testProject(t)
	var out strings.Builder
	WarnUnrecorded(&out, cfg, []*cassettes.Cassette{cliCassette(cfg, "git", "status", "status")}, nil)
	got := out.String()
	if strings.Contains(got, "adapter git ") {
		t.Errorf("git has a cassette, and is warned about:\n%s", got)
	}
	for _, want := range []string{"warning: adapter github has a fake and no cassette", "cassette record --adapter github", "warning: adapter gh ", "--scenario NAME -- COMMAND"} {
		if !strings.Contains(got, want) {
			t.Errorf("the warnings miss %q:\n%s", want, got)
		}
	}
}
