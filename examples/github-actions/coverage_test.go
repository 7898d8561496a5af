package githubactions_test

import (
	"strings"
	"testing"
)

// TestVerifyWorkflowCoverage: after verify, the project's tests run under
// cassette observe, then cassette coverage writes coverage.json to the
// report directory that is kept; both run when an earlier step failed.
func TestVerifyWorkflowCoverage(t *testing.T) {
	var w workflow
	load(t, "verify.yml", &w)
	ss := steps(t, &w)
	observe, cover := -1, -1
	for i, s := range ss {
		switch {
		case strings.HasPrefix(s.Run, "cassette observe -- "):
			observe = i
		case strings.HasPrefix(s.Uses, "./.github/actions/cassette") && s.With["command"] == "coverage":
			cover = i
		}
	}
	if observe < 0 || cover < 0 || cover < observe {
		t.Fatalf("want a step running the tests under cassette observe, then the cassette action with command coverage (steps %d, %d)", observe, cover)
	}
	for _, i := range []int{observe, cover} {
		if !strings.Contains(ss[i].If, "cancelled()") {
			t.Errorf("step %q runs only when verify passed (if: %q): a drift would hide the coverage", ss[i].Name, ss[i].If)
		}
	}
	verify := find(ss, "./.github/actions/cassette")
	if ss[cover].With["report-dir"] != verify.With["report-dir"] || findWith(ss, "actions/upload-artifact@", "path", verify.With["report-dir"]+"/") == nil {
		t.Errorf("coverage.json must go to the report directory that is kept: %q", ss[cover].With["report-dir"])
	}
}
