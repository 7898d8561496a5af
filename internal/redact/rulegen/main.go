// Command rulegen writes ../rules/gitleaks.json, the token formats package
// redact detects, from gitleaks' default configuration (config/gitleaks.toml
// of github.com/zricethezav/gitleaks/v8, MIT licence, at the version this
// module requires), loaded by gitleaks' own loader so that the rules mean
// what they mean to gitleaks.
//
// It is a module of its own so that gitleaks and its dependencies stay out
// of cassette's module graph: cassette reads the JSON, never gitleaks.
//
// The output is a faithful copy: every rule, with its regular expression,
// keywords, secret group, entropy threshold and allowlists, and the global
// allowlist. What cassette does with each rule (which refuse, which only
// redact, which are left out, how a token may end in HTTP traffic) is
// decided in package redact (rules.go), not here.
//
// To upgrade: change the gitleaks version in go.mod, then
//
//	cd redact/rulegen && go run . && cd ../.. && go test ./redact/
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
)

// File is the JSON document.
type File struct {
	Source    string      `json:"source"`
	Version   string      `json:"version"`
	License   string      `json:"license"`
	Generated string      `json:"generated_by"`
	Allowlist []Allowlist `json:"allowlist"`
	Rules     []Rule      `json:"rules"`
}

// Rule is one gitleaks rule.
type Rule struct {
	ID          string      `json:"id"`
	Regex       string      `json:"regex,omitempty"`
	Path        string      `json:"path,omitempty"`
	SecretGroup int         `json:"secret_group,omitempty"`
	Entropy     float64     `json:"entropy,omitempty"`
	Keywords    []string    `json:"keywords,omitempty"`
	Allowlists  []Allowlist `json:"allowlists,omitempty"`
	Required    bool        `json:"has_required_rules,omitempty"`
}

// Allowlist is one gitleaks allowlist (its commit and path parts are left
// out: cassette scans bodies, not files in a repository, and records them
// only as a count).
type Allowlist struct {
	Target    string   `json:"target,omitempty"` // "" (the secret), "match" or "line"
	And       bool     `json:"and,omitempty"`
	Regexes   []string `json:"regexes,omitempty"`
	StopWords []string `json:"stopwords,omitempty"`
	Paths     int      `json:"paths,omitempty"`
}

func main() {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(config.DefaultConfig)); err != nil {
		fail(err)
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		fail(err)
	}
	cfg, err := vc.Translate()
	if err != nil {
		fail(err)
	}
	f := File{
		Source:    "https://github.com/gitleaks/gitleaks/blob/" + version() + "/config/gitleaks.toml",
		Version:   version(),
		License:   "MIT, Copyright (c) 2019 Zachary Rice; see LICENSE.gitleaks beside this file",
		Generated: "redact/rulegen (go run .); do not edit",
	}
	for _, a := range cfg.Allowlists {
		f.Allowlist = append(f.Allowlist, allowlist(a))
	}
	for _, id := range slices.Sorted(func(yield func(string) bool) {
		for id := range cfg.Rules {
			if !yield(id) {
				return
			}
		}
	}) {
		r := cfg.Rules[id]
		out := Rule{ID: id, SecretGroup: r.SecretGroup, Entropy: r.Entropy, Required: len(r.RequiredRules) > 0}
		if r.Regex != nil {
			out.Regex = r.Regex.String()
		}
		if r.Path != nil {
			out.Path = r.Path.String()
		}
		for _, k := range r.Keywords {
			out.Keywords = append(out.Keywords, strings.ToLower(k))
		}
		slices.Sort(out.Keywords)
		out.Keywords = slices.Compact(out.Keywords)
		for _, a := range r.Allowlists {
			out.Allowlists = append(out.Allowlists, allowlist(a))
		}
		f.Rules = append(f.Rules, out)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(f); err != nil {
		fail(err)
	}
	if err := os.WriteFile("../rules/gitleaks.json", b.Bytes(), 0o644); err != nil {
		fail(err)
	}
	fmt.Printf("wrote ../rules/gitleaks.json: gitleaks %s, %d rules\n", f.Version, len(f.Rules))
}

func allowlist(a *config.Allowlist) Allowlist {
	out := Allowlist{Target: a.RegexTarget, And: a.MatchCondition == config.AllowlistMatchAnd, Paths: len(a.Paths)}
	for _, re := range a.Regexes {
		out.Regexes = append(out.Regexes, re.String())
	}
	out.StopWords = append(out.StopWords, a.StopWords...)
	slices.Sort(out.StopWords)
	return out
}

// version is the gitleaks module version this program was built with.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/zricethezav/gitleaks/v8" {
				return d.Version
			}
		}
	}
	fail(fmt.Errorf("cannot tell the gitleaks version"))
	return ""
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "rulegen:", err)
	os.Exit(1)
}
