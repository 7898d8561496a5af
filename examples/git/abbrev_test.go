package git_test

// A regression test for a flaky TestNewCallShapeNeedsACassette. In about
// one run in twenty, the HEAD that make-repo.sh commits has a 7-digit
// abbreviation that is also a JSON number (1612651, or 27226e1: an
// exponent). cassette's normalize engine treats a CLI output that parses
// as one JSON document as JSON, and runs text normalizers on JSON string
// values only. So `git rev-parse --short HEAD` recorded as "1612651\n"
// stays as it is, while the fake's "65a7145\n" becomes "<git.abbrev:1>\n":
// drift. The commit dates below are pinned so that HEAD's first commit
// hits each case every time; make-repo.sh must still give a HEAD that the
// fake matches.

import (
	"regexp"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/examples/internal/e2e"
)

// jsonNumber is a JSON number written with hex digits only: an integer
// without a leading zero, or any one-digit integer, with an optional
// exponent. A 7-character abbreviation has this form with a probability of
// about 5% (13.6 million of the 16^7).
var jsonNumber = regexp.MustCompile(`^(?:0|[1-9][0-9]*)(?:e[0-9]+)?$`)

func TestAbbrevThatReadsAsJSONNumber(t *testing.T) {
	tests := []struct {
		name string
		date string // GIT_AUTHOR_DATE and GIT_COMMITTER_DATE for every commit
		was  string // HEAD's abbreviation when make-repo.sh made its last commit
	}{
		{"digits only", "@1795000021 +0000", "1612651"},
		{"digits and an exponent", "@1795000028 +0000", "27226e1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newExample(t)
			env := []string{"GIT_AUTHOR_DATE=" + tt.date, "GIT_COMMITTER_DATE=" + tt.date}
			e.Must(env, "./make-repo.sh", ".cassette/repo")

			// The case this test is about did happen: the last commit
			// make-repo.sh made, first, had an abbreviation that reads as
			// a JSON number (the reflog keeps it whatever came after).
			reflog := e.Must(nil, "git", "-C", ".cassette/repo", "reflog", "--format=%h %gs")
			first := ""
			for _, l := range strings.Split(reflog, "\n") {
				if h, ok := strings.CutSuffix(l, " commit: Document how to run it"); ok {
					first = h
				}
			}
			if first != tt.was || !jsonNumber.MatchString(first) {
				t.Fatalf("with dates %s, make-repo.sh first committed HEAD as %q, want %q (a JSON number); the repository's content changed? pick new dates\nreflog:\n%s",
					tt.date, first, tt.was, reflog)
			}

			e.Must(nil, cassetteBin, "record", "--quiet", "--adapter", "git", "--scenario", "rev-parse-short", "--", "git", "rev-parse", "--short", "HEAD")
			short := strings.TrimSpace(e.Must(nil, "git", "-C", ".cassette/repo", "rev-parse", "--short", "HEAD"))
			if !strings.Contains(e2e.ReadFile(t, e.Path("cassettes/git/rev-parse-short.yaml")), "\n    "+short+"\n") {
				t.Fatalf("the cassette does not hold the real git's answer %s", short)
			}
			out, errOut, code := e.Run(nil, cassetteBin, "verify")
			if code != 0 || !strings.Contains(out, "PASS  git/rev-parse-short") || !strings.Contains(out, "7 passed, 0 failed") {
				t.Fatalf("verify with HEAD %s recorded: exit %d, want 0 with 7 passed\n%s\n%s", short, code, out, errOut)
			}
		})
	}
}
