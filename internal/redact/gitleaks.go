package redact

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// The token formats of gitleaks' default configuration, as rulegen copied
// them into rules/gitleaks.json (gitleaks v8, MIT licence: rules/LICENSE.gitleaks).
// This file reads that copy and says what cassette does with each rule;
// the copy itself is never edited by hand.

//go:embed rules/gitleaks.json
var gitleaksJSON []byte

// gitleaksFile is rules/gitleaks.json.
type gitleaksFile struct {
	Version   string              `json:"version"`
	Allowlist []gitleaksAllowlist `json:"allowlist"`
	Rules     []struct {
		ID          string              `json:"id"`
		Regex       string              `json:"regex"`
		Path        string              `json:"path"`
		SecretGroup int                 `json:"secret_group"`
		Entropy     float64             `json:"entropy"`
		Keywords    []string            `json:"keywords"`
		Allowlists  []gitleaksAllowlist `json:"allowlists"`
		Required    bool                `json:"has_required_rules"`
	} `json:"rules"`
}

type gitleaksAllowlist struct {
	Target    string   `json:"target"`
	And       bool     `json:"and"`
	Regexes   []string `json:"regexes"`
	StopWords []string `json:"stopwords"`
	Paths     int      `json:"paths"`
}

// leftOut are the gitleaks rules cassette does not run, and why.
var leftOut = map[string]string{
	// Measured on every real cassette of ../shared/testdata and the
	// examples (1 hit: a CIBA auth_req_id, an identifier) and on 133 MB of
	// JSON and YAML from the Go module cache (382 hits: 374 AEAD test
	// vectors, 2 hashes, 6 values under a credential name — client_secret,
	// accessToken, Signature= — that redaction by name handles): not one
	// credential that the names miss. Names are redacted by name
	// (names.go), which reads the structure instead of guessing from a
	// regular expression (README: "Token formats").
	"generic-api-key": "measured false positives; names are redacted by name instead",
	// cassette's own private-key pattern catches what it does and more: a
	// block cut short, a lone END line.
	"private-key": "replaced by cassette's private-key",
	// Rules about files of one kind, chosen by their path: a recorded body
	// has no path.
	"pkcs12-file":            "a rule on file names",
	"freemius-secret-key":    "a rule on .php files",
	"hashicorp-tf-password":  "a rule on .tf files",
	"kubernetes-secret-yaml": "a rule on YAML manifests",
	"nuget-config-password":  "a rule on nuget.config",
}

// tokenEnd is how gitleaks says a token ends (a quote, a space, ';', an
// escaped newline, the end); tokenEndHTTP adds how it ends in HTTP
// traffic and in the files around it: a query ('&', '#'), a path ('/'), a
// JSON or YAML structure (',', '}', ']', ')'), markup ('<', '>'), a pipe,
// an escaped quote ('\').
const (
	tokenEnd     = `(?:[\x60'"\s;]|\\[nr]|$)`
	tokenEndHTTP = `(?:[\x60'"\s;&,)}\]<>|#/\\]|\\[nr]|$)`
)

// gitleaksPatterns reads rules/gitleaks.json into patterns (all of which
// refuse: see leftOut for the rules that are not run) and the global
// allowlist.
func gitleaksPatterns() ([]Pattern, []allowlist, error) {
	var f gitleaksFile
	if err := json.Unmarshal(gitleaksJSON, &f); err != nil {
		return nil, nil, fmt.Errorf("rules/gitleaks.json: %w", err)
	}
	global := allowlists(f.Allowlist)
	source := "gitleaks " + f.Version
	var out []Pattern
	for _, r := range f.Rules {
		if _, skip := leftOut[r.ID]; skip || r.Regex == "" {
			continue
		}
		if r.Path != "" || r.Required {
			return nil, nil, fmt.Errorf("gitleaks rule %s needs a file path or other rules: decide in leftOut", r.ID)
		}
		out = append(out, Pattern{
			Name: r.ID, Source: source, Expr: strings.ReplaceAll(r.Regex, tokenEnd, tokenEndHTTP),
			Keywords: r.Keywords, Group: r.SecretGroup, Entropy: r.Entropy, Refuse: true, allow: allowlists(r.Allowlists),
		})
	}
	return out, global, nil
}

// allowlists converts gitleaks allowlists. One that also needs a path (an
// AND with paths) can never hold for a body and is left out.
func allowlists(in []gitleaksAllowlist) []allowlist {
	var out []allowlist
	for _, a := range in {
		if a.And && a.Paths > 0 {
			continue
		}
		al := allowlist{target: a.Target, and: a.And, stopwords: a.StopWords}
		if exprs := a.Regexes; len(exprs) > 0 {
			// Compiled when a match is first judged (TestEveryRuleCompiles
			// compiles them all).
			al.lazy = sync.OnceValue(func() []*regexp.Regexp {
				res := make([]*regexp.Regexp, len(exprs))
				for i, expr := range exprs {
					res[i] = regexp.MustCompile(expr)
				}
				return res
			})
		}
		if al.lazy != nil || len(al.stopwords) > 0 {
			out = append(out, al)
		}
	}
	return out
}
