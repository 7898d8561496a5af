package secrets

import (
	"bytes"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Redacted is what a removed credential is replaced with.
const Redacted = "[REDACTED]"

// minValueLen is the shortest declared value that is scrubbed: shorter values
// ("1", "on") would redact ordinary text and are too weak to be credentials.
const minValueLen = 6

// Pattern is one known credential format.
type Pattern struct {
	Name string
	Re   *regexp.Regexp
	// Literals are strings one of which every match contains: a text with
	// none of them is skipped without running the expression (the scan runs
	// over every body recorded, so this is its hot path).
	Literals []string
}

// mayMatch reports whether data contains one of the pattern's literals.
func (p Pattern) mayMatch(data []byte) bool {
	for _, l := range p.Literals {
		if bytes.Contains(data, []byte(l)) {
			return true
		}
	}
	return len(p.Literals) == 0
}

// Patterns are the known key formats the scan refuses to let through.
var Patterns = []Pattern{
	{"github-token", regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b`), []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}},
	{"aws-access-key-id", regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`), []string{"AKIA", "ASIA", "ABIA", "ACCA"}},
	{"slack-token", regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,250}\b`), []string{"xox"}},
	{"slack-webhook", regexp.MustCompile(`https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{20,}`), []string{"hooks.slack.com"}},
	{"anthropic-key", regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_-]{20,}`), []string{"sk-ant-"}},
	{"openai-key", regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`), []string{"sk-"}},
	{"google-api-key", regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}\b`), []string{"AIza"}},
	{"stripe-key", regexp.MustCompile(`\b[rs]k_live_[0-9A-Za-z]{16,}\b`), []string{"k_live_"}},
	{"jwt", regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), []string{"eyJ"}},
	{"private-key", regexp.MustCompile(`-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----`), []string{"PRIVATE KEY-----"}},
}

// Finding is one credential found in a text.
type Finding struct {
	Kind   string // a pattern name, or "declared:<VAR>" for a declared variable's value
	Line   int    // 1-based line in the scanned text
	Column int    // 1-based byte column
}

// Scan reports every known-format credential and every occurrence of the
// given declared values (name → value) in data, in order of position. The
// finding never carries the secret itself.
func Scan(data []byte, declared map[string]string) []Finding {
	type hit struct {
		off  int
		kind string
	}
	var hits []hit
	for _, p := range Patterns {
		if !p.mayMatch(data) {
			continue
		}
		for _, loc := range p.Re.FindAllIndex(data, -1) {
			if bytes.Contains(data[loc[0]:loc[1]], []byte(Redacted)) {
				continue
			}
			hits = append(hits, hit{loc[0], p.Name})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(declared)) {
		v := declared[name]
		if len(v) < minValueLen {
			continue
		}
		for off := 0; ; {
			i := bytes.Index(data[off:], []byte(v))
			if i < 0 {
				break
			}
			hits = append(hits, hit{off + i, "declared:" + name})
			off += i + len(v)
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].off < hits[j].off })
	out := make([]Finding, 0, len(hits))
	for _, h := range hits {
		line := 1 + bytes.Count(data[:h.off], []byte("\n"))
		col := h.off - bytes.LastIndexByte(data[:h.off], '\n')
		out = append(out, Finding{Kind: h.kind, Line: line, Column: col})
	}
	return out
}

// Redact replaces declared values (longest first, so that one value that
// contains another is removed whole) and every known-format credential with
// [REDACTED].
func Redact(data []byte, declared map[string]string) []byte {
	vals := make([]string, 0, len(declared))
	for _, v := range declared {
		if len(v) >= minValueLen {
			vals = append(vals, v)
		}
	}
	sort.Slice(vals, func(i, j int) bool {
		if len(vals[i]) != len(vals[j]) {
			return len(vals[i]) > len(vals[j])
		}
		return vals[i] < vals[j]
	})
	for _, v := range vals {
		data = bytes.ReplaceAll(data, []byte(v), []byte(Redacted))
	}
	for _, p := range Patterns {
		if p.mayMatch(data) {
			data = p.Re.ReplaceAll(data, []byte(Redacted))
		}
	}
	return data
}

// RedactString is Redact for strings.
func RedactString(s string, declared map[string]string) string {
	return string(Redact([]byte(s), declared))
}

// credentialHeaders are always redacted, whatever their value.
var credentialHeaders = map[string]bool{
	"Authorization": true, "Proxy-Authorization": true, "Cookie": true, "Set-Cookie": true,
	"X-Api-Key": true, "Api-Key": true, "X-Auth-Token": true, "Private-Token": true,
	"X-Amz-Security-Token": true, "X-Goog-Api-Key": true,
}

// IsCredentialHeader reports whether a header carries a credential: the
// well-known ones and any header named like a token, secret, password or key.
func IsCredentialHeader(name string) bool {
	c := http.CanonicalHeaderKey(name)
	if credentialHeaders[c] {
		return true
	}
	l := strings.ToLower(c)
	for _, w := range []string{"token", "secret", "password", "passwd", "api-key", "apikey", "session", "signature", "credential"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// RedactHeaders returns a copy of h with credential headers forced to
// [REDACTED] and declared values scrubbed from the others.
func RedactHeaders(h http.Header, declared map[string]string) http.Header {
	if h == nil {
		return nil
	}
	out := make(http.Header, len(h))
	for k, vs := range h {
		nv := make([]string, len(vs))
		for i, v := range vs {
			if IsCredentialHeader(k) {
				nv[i] = Redacted
			} else {
				nv[i] = RedactString(v, declared)
			}
		}
		out[k] = nv
	}
	return out
}

// FromEnv returns name → value for the named variables that are set, via
// lookup (os.LookupEnv in production).
func FromEnv(names []string, lookup func(string) (string, bool)) map[string]string {
	out := map[string]string{}
	for _, n := range names {
		if v, ok := lookup(n); ok && v != "" {
			out[n] = v
		}
	}
	return out
}
