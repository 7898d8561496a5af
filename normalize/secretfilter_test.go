package normalize

import (
	"testing"

	"github.com/cassette-dev/cassette/secrets"
)

// TestSecretLiterals guards the prefilter: if a pattern added to secrets
// has no literal prefix, the filter must fall back to scanning everything,
// and every sample credential must pass it.
func TestSecretLiterals(t *testing.T) {
	if secretLiterals == nil {
		t.Fatal("no literal prefixes derived from secrets.Patterns: redaction would scan every line (slow); extend prefixSet")
	}
	for _, sample := range []string{
		"ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "github_pat_aaaaaaaaaaaaaaaaaaaaaa", "AKIAABCDEFGHIJKLMNOP",
		"xoxb-1234567890-abc", "sk-ant-aaaaaaaaaaaaaaaaaaaaaaaa", "sk-proj-aaaaaaaaaaaaaaaaaaaaaaa",
		"AIzaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "sk_live_aaaaaaaaaaaaaaaa", "-----BEGIN RSA PRIVATE KEY-----",
		"eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.abcdefghijk",
	} {
		t.Run(sample[:6], func(t *testing.T) {
			matched := false
			for _, p := range secrets.Patterns {
				matched = matched || p.Re.MatchString(sample)
			}
			if !matched {
				t.Fatalf("sample %q matches no secrets pattern; fix the sample", sample)
			}
			if !mayHoldSecret(sample) {
				t.Errorf("prefilter lets %q through unredacted (literals %q)", sample, secretLiterals)
			}
		})
	}
}
