package cassettes

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// nameCorpus are names a user or a file from the wild may bring: the
// ones git refuses as refs, ones a shell would expand, ones a file system
// treats apart, and go-vcr's own.
var nameCorpus = []string{
	"list-pulls", "api", "x..y", "api.lock", "a.lock/b", "v1.", "a.b", ".hidden", "-flag", "_x",
	"TestFoo_Bar", "TestCIBA/Should_throw_error", "TestGoogleCommon/gemini-2.5-pro/multi_tool_streaming",
	"a b", "a;b", "$(touch x)", "`id`", "a<b", "a>b", "it's", `"q"`, "a\nb", "tab\tx", "esc\x1b[2J",
	"a~1", "a^2", "a:b", "a?", "a*", "a[b", `a\b`, "a@{b", "@", "a//b", "a/", "/a", "..", ".", "a/../b",
	"ünï", "x#01", "100%", "a=b", "a,b", "a+b", strings.Repeat("n", 256), "x.lock.lock", "x-.lock", "x...y",
	"Test/.../y", "a/.lock", "_", "__", "a-", "a--b",
}

// TestNameRuleAgreesWithGit: every name the rule accepts can be a git
// branch (refresh pushes cassette-refresh/<adapter>/<date>), a file name
// and a shell word that needs no quoting. The judge for refs is the real
// `git check-ref-format`. Every mapping gives a name that follows it.
func TestNameRuleAgreesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	for _, name := range nameCorpus {
		gitOK := exec.Command("git", "check-ref-format", "refs/heads/cassette-refresh/"+name+"/2026-11-30").Run() == nil
		if ValidName(name) {
			if !gitOK {
				t.Errorf("ValidName(%q), but git check-ref-format refuses it", name)
			}
			if outcome.Quote(name) != name {
				t.Errorf("ValidName(%q), but the shell needs it quoted: %s", name, outcome.Quote(name))
			}
			p := filepath.Join(dir, filepath.FromSlash(name)+".yaml")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Errorf("ValidName(%q), but its directory cannot be made: %v", name, err)
			} else if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Errorf("ValidName(%q), but its file cannot be written: %v", name, err)
			}
		}
		for _, mapped := range []string{WildName(name), StrictName(name)} {
			if mapped != "" && !ValidName(mapped) {
				t.Errorf("%q is mapped to %q, which breaks the rule", name, mapped)
			}
		}
		if s := StrictName(name); s != "" && !ValidNewName(s) {
			t.Errorf("StrictName(%q) = %q, not in the strict form", name, s)
		}
		if w := WildName(name); WildName(w) != w || (ValidName(name) && w != name) {
			t.Errorf("WildName(%q) = %q is not stable: a valid name maps to itself", name, w)
		}
	}
}

// TestNameRuleExamples: the cases the issue names, and what they map to.
func TestNameRuleExamples(t *testing.T) {
	for _, bad := range []string{"x..y", "api.lock", "a..b", "a b", "$(touch x)", "a\nb", ".git", "v1."} {
		if ValidName(bad) || ValidNewName(bad) {
			t.Errorf("%q is accepted", bad)
		}
	}
	for in, want := range map[string]string{
		"x..y": "x.y", "api.lock": "api-lock", "TestFoo/it's ok": "TestFoo/it-s-ok", "x$(touch PWNED);y": "x-touch-PWNED-y",
		"TestX/case#01": "TestX/case-01", "a\nnext: rm": "a-next-rm", "../../etc/passwd": "etc/passwd", "Test/.../y": "Test/y",
	} {
		if got := WildName(in); got != want {
			t.Errorf("WildName(%q) = %q, want %q", in, got, want)
		}
	}
	if got := StrictName("API.lock"); got != "api-lock" {
		t.Errorf("StrictName(API.lock) = %q", got)
	}
}

// TestNameRuleKeepsRealNames: every go-vcr cassette of the six projects
// under shared/testdata keeps its name (the rule refuses what breaks
// something, not what go-vcr users name their files).
func TestNameRuleKeepsRealNames(t *testing.T) {
	root := filepath.Join(sharedDir(t), "testdata")
	n := 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".yaml" {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		parts := strings.SplitN(filepath.ToSlash(strings.TrimSuffix(rel, ".yaml")), "/", 2)
		if len(parts) == 2 && !ValidName(parts[1]) {
			t.Errorf("%s: the scenario %q breaks the rule", rel, parts[1])
		}
		n++
		return nil
	})
	if err != nil || n < 40 {
		t.Fatalf("walked %d cassettes under %s: %v", n, root, err)
	}
}
