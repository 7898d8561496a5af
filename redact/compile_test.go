package redact

import (
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
