package redact

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryRuleCompiles: every pattern's expression parses and compiles in
// every form the scan runs, and every allowlist's expressions compile.
// The set compiles them only when a text first needs them, so this is
// where a rule that does not compile shows (the set would panic there).
func TestEveryRuleCompiles(t *testing.T) {
	rs, err := buildRules()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range rs.global {
		a.res()
	}
	for i := range rs.patterns {
		p := &rs.patterns[i]
		pr := p.prep.get()
		pr.re()
		if pr.shape.anchored {
			pr.at0()
			pr.after1()
		}
		for _, a := range p.allow {
			a.res()
		}
	}
}

// TestRulesCompileWhenNeeded: building the set parses no expression, and a
// text analyzes only the patterns one of whose keywords it holds (a shim
// that redacts one command line must not parse 222 expressions).
func TestRulesCompileWhenNeeded(t *testing.T) {
	rs, err := buildRules()
	if err != nil {
		t.Fatal(err)
	}
	prepared := func() (names []string) {
		for i := range rs.patterns {
			if p := &rs.patterns[i]; p.prep.done != nil {
				names = append(names, p.Name)
			}
		}
		return names
	}
	if got := prepared(); len(got) != 0 {
		t.Fatalf("building the rule set analyzed %q", got)
	}
	rs.find([]byte("git -c color.ui=never log --oneline -n 3"), false)
	if got := prepared(); len(got) != 0 {
		t.Fatalf("a command line without a keyword analyzed %q", got)
	}
	rs.find([]byte("curl -H 'Authorization: token ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4u'"), false)
	got := prepared()
	if len(got) == 0 || len(got) > 10 {
		t.Fatalf("a GitHub token analyzed %q, want the few patterns of its keywords", got)
	}
	for _, n := range got {
		if n == "github-pat" {
			return
		}
	}
	t.Fatalf("a GitHub token analyzed %q, not github-pat", got)
}

// BenchmarkBuildRules is what the first redaction of a process pays for
// the rule set (a shim redacts one command line and exits).
func BenchmarkBuildRules(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := buildRules(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMayHoldFormatSkipsKeywordsThatStartNothing: a keyword whose
// patterns are all anchored on it, where their cheap tests fail (the
// "://" of a URL without a user, "s." inside a word), does not make a
// text one to search; the same keywords where a match may start do.
func TestMayHoldFormatSkipsKeywordsThatStartNothing(t *testing.T) {
	for s, want := range map[string]bool{
		"See https://api.github.com/repos/octo/hello/pulls/1234 for details.": false,
		"https://ci.example.com/build/7":                                      false,
		"postgres://app:Pg-s3cr3t-9xQ@db.internal:5432/shop":                  true,
		"https://x9Kq2Lm7Xv4Rt8Wz1Np6Bc@github.com/acme/app.git":              true,
		"token s.Xk29PqL7mZ4vN8tR2wYbQ3eT":                                    true,
		"ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4u":                            true,
	} {
		if got := MayHoldFormat(s); got != want {
			t.Errorf("MayHoldFormat(%q) = %v, want %v", s, got, want)
		}
	}
}

// FuzzMayHoldFormat: a text MayHoldFormat passes over is one Redact and
// Scan find no format in (the seeds: every line of the real cassettes of
// ../shared/testdata and the examples, and the samples).
func FuzzMayHoldFormat(f *testing.F) {
	for _, s := range samples {
		f.Add(s)
	}
	for _, line := range realLines(f) {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if MayHoldFormat(s) {
			return
		}
		if got := RedactString(s, nil); got != s {
			t.Fatalf("MayHoldFormat(%q) = false, but Redact gives %q", s, got)
		}
		if fs := Scan([]byte(s), nil); len(fs) != 0 {
			t.Fatalf("MayHoldFormat(%q) = false, but Scan finds %+v", s, fs)
		}
	})
}

// realLines are the distinct lines of the real cassettes.
func realLines(tb testing.TB) []string {
	seen := map[string]bool{}
	var out []string
	for _, root := range []string{filepath.Join("..", "..", "..", "shared", "testdata"), filepath.Join("..", "..", "examples")} {
		_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				tb.Fatal(err)
			}
			for _, line := range strings.Split(string(data), "\n") {
				if line = strings.TrimSpace(line); line != "" && !seen[line] {
					seen[line] = true
					out = append(out, line)
				}
			}
			return nil
		})
	}
	if len(out) < 1000 {
		tb.Fatalf("read %d lines of real cassettes, want the thousands of ../shared/testdata", len(out))
	}
	return out
}
