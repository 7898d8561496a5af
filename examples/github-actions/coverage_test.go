package githubactions_test

import (
	"strings"
	"testing"
)

// TestVerifyWorkflowCoverage: after verify, the project's tests run under
// cassette observe, then cassette coverage writes its reports to a
// directory of its own inside the one that is kept, and its sarif.json is
// uploaded in its own category; all of it also when an earlier step failed.
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
	dir := ss[cover].With["report-dir"]
	if !strings.HasPrefix(dir, verify.With["report-dir"]+"/") || findWith(ss, "actions/upload-artifact@", "path", verify.With["report-dir"]+"/") == nil {
		t.Errorf("coverage writes to %q: it must be a directory of its own below verify's, which is kept as an artifact", dir)
	}
	up := findWith(ss, "github/codeql-action/upload-sarif@", "sarif_file", dir+"/sarif.json")
	if up == nil || up.With["category"] != "cassette/coverage" || !strings.Contains(up.If, "cancelled()") {
		t.Errorf("the coverage's sarif.json must be uploaded with category cassette/coverage (its automationDetails.id), also after a failure: %+v", up)
	}
}
