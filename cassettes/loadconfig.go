package cassettes

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// ConfigOptions are the registries a config load validates against.
type ConfigOptions struct {
	Normalizers NameSet // built-in normalizer names; nil skips the check
	// DefineNormalizer, when set, is called for each project-defined
	// normalizer so that the caller's registry can compile it (a bad regular
	// expression or JSONPath is reported at its line).
	DefineNormalizer func(name string, def cfgschema.NormalizerDef) error
	// Kinds are the adapter kinds the config may declare; nil is http and
	// cli (kinds.go).
	Kinds cfgschema.Kinds
}

// LoadConfig reads and strictly validates cassette.yaml. A missing file is
// E_MISSING_CONFIG; anything else wrong is E_CFG_PARSE with every problem
// named by line and field.
func LoadConfig(path string, opts ConfigOptions) (*cfgschema.Config, error) {
	data, prob, err := readRegular(path, filepath.Dir(path), MaxFileBytes)
	if prob != nil {
		return nil, &outcome.Error{Reason: outcome.ECfgParse, Message: path + " is not read: " + prob.Message + "; replace it with a regular file", Problems: []outcome.Problem{*prob},
			NextStep: outcome.Command("ls", "-l", path)}
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &outcome.Error{Reason: outcome.EMissingConfig, Message: fmt.Sprintf("config file %s does not exist (cassette init scaffolds one)", path),
				NextStep: initStep(path)}
		}
		return nil, &outcome.Error{Reason: outcome.EIO, Message: "cannot read " + path, Err: err, NextStep: outcome.Command("ls", "-l", path)}
	}
	return ParseConfig(path, data, opts)
}

// ParseConfig is LoadConfig for bytes already read.
func ParseConfig(path string, data []byte, opts ConfigOptions) (*cfgschema.Config, error) {
	next := validateStep(path)
	if leaks := leakProblems(path, data, nil); len(leaks) > 0 {
		return nil, &outcome.Error{Reason: outcome.ESecretLeak, Message: path + " contains a credential: replace the value with ${VAR} (the variable listed in real.credentials) and rotate the credential", Problems: leaks,
			NextStep: next}
	}
	doc, probs := parseDocument(path, data, "cassette.yaml with an `adapters:` mapping (run `cassette init` for an example)")
	if len(probs) > 0 {
		return nil, &outcome.Error{Reason: outcome.ECfgParse, Message: path + " is not valid YAML", Problems: probs, NextStep: next}
	}
	cfg := &cfgschema.Config{Path: path, Dir: filepath.Dir(path)}
	cfg.Located(func(field string) int { return lineOf(doc, field) })
	probs = append(probs, checkKnown(path, doc.Content[0], reflect.TypeOf(cfgschema.Config{}), "", true, nil)...)
	if err := decodeStrict(data, cfg, true); err != nil {
		probs = append(probs, yamlProblems(path, doc, err)...)
	}
	// Schema problems (unknown fields, wrong types) do not stop the load:
	// the decoder kept what it could, and every other problem is reported
	// in the same run (a config with three typos takes one run to fix).
	msg := path + " is invalid"
	if len(probs) > 0 {
		msg = path + " does not fit the config schema"
	}
	if ad := mappingKey(doc.Content[0], "adapters"); ad != nil && ad.Kind == 4 /* yaml.MappingNode */ {
		for i := 0; i+1 < len(ad.Content); i += 2 {
			cfg.Order = append(cfg.Order, ad.Content[i].Value)
		}
	}
	probs = append(probs, notAgain(probs, structProblems(path, cfg, registries{cfg: cfg, normalizers: opts.Normalizers, kinds: opts.Kinds}, cfg.Line))...)
	probs = append(probs, cfgschema.Rules(cfg, opts.Kinds)...)
	if p := cassettesDirProblem(cfg); p != nil {
		probs = append(probs, *p)
	}
	if opts.DefineNormalizer != nil {
		for _, name := range sortedKeys(keysOf(cfg.Normalizers)) {
			if err := opts.DefineNormalizer(name, cfg.Normalizers[name]); err != nil {
				field := "normalizers." + name
				probs = append(probs, outcome.Problem{File: path, Line: cfg.Line(field), Field: field, Message: err.Error()})
			}
		}
	}
	if len(probs) > 0 {
		reason := outcome.ECfgParse
		if onlyQuarantine(probs) { // specs/000's rules of a quarantine entry, and nothing else
			reason, msg = outcome.EQuarantineInvalid, path+": a quarantine entry breaks the quarantine rules (every field set, a known category, at most 14 days)"
		}
		return nil, &outcome.Error{Reason: reason, Message: msg, Problems: probs, NextStep: next}
	}
	cfg.Validated()
	return cfg, nil
}

// onlyQuarantine reports whether every problem is one of a quarantine
// entry (a field under quarantine.<id> or quarantine[<id>]).
func onlyQuarantine(probs []outcome.Problem) bool {
	for _, p := range probs {
		if !strings.HasPrefix(p.Field, "quarantine.") && !strings.HasPrefix(p.Field, "quarantine[") {
			return false
		}
	}
	return true
}

// notAgain drops from later the problems of a value that could not be
// decoded (already reported, at that line, by the decoder), which the
// rules would call missing.
func notAgain(reported, later []outcome.Problem) []outcome.Problem {
	lines := map[int]bool{}
	for _, p := range reported {
		lines[p.Line] = true
	}
	out := later[:0]
	for _, p := range later {
		if lines[p.Line] && (p.Message == "is required" || p.Message == "is missing") {
			continue
		}
		out = append(out, p)
	}
	return out
}
