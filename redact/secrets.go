package redact

import (
	"bytes"
	"maps"
	"regexp"
	"slices"
	"sort"
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
	// Group, when not 0, is the submatch that is the secret: only it is
	// reported and replaced (the name around it stays readable).
	Group int
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
	{"github-token", regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b`), []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}, 0},
	{"aws-access-key-id", regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`), []string{"AKIA", "ASIA", "ABIA", "ACCA"}, 0},
	{"slack-token", regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,250}\b`), []string{"xox"}, 0},
	{"slack-webhook", regexp.MustCompile(`https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{20,}`), []string{"hooks.slack.com"}, 0},
	{"anthropic-key", regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_-]{20,}`), []string{"sk-ant-"}, 0},
	{"openai-key", regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`), []string{"sk-"}, 0},
	{"google-api-key", regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}\b`), []string{"AIza"}, 0},
	{"stripe-key", regexp.MustCompile(`\b[rs]k_live_[0-9A-Za-z]{16,}\b`), []string{"k_live_"}, 0},
	{"jwt", regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), []string{"eyJ"}, 0},
	// A whole private key block, any armour (RSA, EC, OPENSSH, ENCRYPTED,
	// PGP … BLOCK), BEGIN to END; one cut short runs to the end of the text,
	// and a lone END line (what an older redaction left) is caught too.
	{"private-key", regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)|-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----`), []string{"PRIVATE KEY"}, 0},
	// An AWS secret access key has no prefix of its own: it is found by
	// the name it is written under (aws_secret_access_key=…,
	// "SecretAccessKey": "…"); only the value (group 1) is replaced. The
	// prefilter looks for "ccess" in lower or upper case ("e" of "secret"
	// is too common a first byte: the scan ran 3x slower).
	{"aws-secret-access-key", regexp.MustCompile(`(?i)secret[_-]?access[_-]?key["']?\s*(?:[:=]|=>)\s*["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`), []string{"ccess", "CCESS"}, 1},
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
		for _, loc := range p.Re.FindAllSubmatchIndex(data, -1) {
			start, end := loc[2*p.Group], loc[2*p.Group+1]
			if start < 0 || bytes.Contains(data[start:end], []byte(Redacted)) {
				continue
			}
			hits = append(hits, hit{start, p.Name})
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
	return redactFormats(data)
}

// redactFormats replaces every known-format credential with [REDACTED].
func redactFormats(data []byte) []byte {
	for _, p := range Patterns {
		if p.mayMatch(data) {
			data = p.replace(data)
		}
	}
	return data
}

// replace replaces every match of the pattern (its Group only, when set).
func (p Pattern) replace(data []byte) []byte {
	if p.Group == 0 {
		return p.Re.ReplaceAll(data, []byte(Redacted))
	}
	locs := p.Re.FindAllSubmatchIndex(data, -1)
	if len(locs) == 0 {
		return data
	}
	out := make([]byte, 0, len(data))
	prev := 0
	for _, loc := range locs {
		start, end := loc[2*p.Group], loc[2*p.Group+1]
		if start < 0 {
			continue
		}
		out = append(out, data[prev:start]...)
		out = append(out, Redacted...)
		prev = end
	}
	return append(out, data[prev:]...)
}

// RedactString is Redact for strings.
func RedactString(s string, declared map[string]string) string {
	return string(Redact([]byte(s), declared))
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
