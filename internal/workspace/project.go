package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/normalize"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
)

// Project is a loaded project: its cassette.yaml, validated; the
// normalizer registry (the built-ins plus the normalizers the project
// defines); and its redaction rules (the built-in credential names plus
// redact.names). It is loaded once, by Load (or Find), and
// passed down as a value to every command, test helper and door: nothing
// about a project is held by a package.
type Project struct {
	Config      *cfgschema.Config
	Normalizers *normalize.Registry
	// Redact are the project's credential names (Config.Redaction).
	Redact *redact.Rules

	// bare: Find found no cassette.yaml, so Config declares no
	// adapter and a cassette's adapter is not checked against it.
	bare bool
	// kinds are the adapter kinds it was loaded with (LoadKinds);
	// nil is http and cli.
	kinds cfgschema.Kinds
}

// Load reads and strictly validates the cassette.yaml at path and
// builds the project's registry and rules. A missing file is
// E_MISSING_CONFIG; anything else wrong is E_CFG_PARSE, every problem named
// by line and field (LoadConfig).
func Load(path string) (*Project, error) {
	return LoadKinds(path, nil)
}

// LoadKinds is Load for a door that knows more adapter kinds than http
// and cli (internal/kind's registry, Loading): its cassette.yaml and,
// through LoadOptions, its cassettes may name them.
func LoadKinds(path string, kinds cfgschema.Kinds) (*Project, error) {
	reg := normalize.Builtins()
	opts := projectOptions(reg)
	opts.Kinds = kinds
	cfg, err := cassettes.LoadConfig(path, opts)
	if err != nil {
		return nil, err
	}
	return &Project{Config: cfg, Normalizers: reg, Redact: cfg.Redaction(), kinds: kinds}, nil
}

// projectOptions validates normalizer names against reg and defines the
// project's normalizers in it.
func projectOptions(reg *normalize.Registry) cassettes.ConfigOptions {
	return cassettes.ConfigOptions{Normalizers: reg, DefineNormalizer: func(name string, d cfgschema.NormalizerDef) error {
		return reg.Define(name, normalize.Definition{Regex: d.Regex, Replace: d.Replace, JSONPaths: d.JSONPaths, Headers: d.Headers})
	}}
}

// FindConfig is the cassette.yaml in dir or in the nearest directory
// above it, as git finds .git, looking in at most levels parents (a
// negative levels: up to the root); "" when there is none.
func FindConfig(dir string, levels int) string {
	for d, i := dir, 0; levels < 0 || i <= levels; d, i = filepath.Dir(d), i+1 {
		p := filepath.Join(d, cfgschema.ConfigFile)
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			return p
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return ""
}

// findLevels is how many parents of a directory Find looks in.
const findLevels = 3

// Find loads the project a directory of cassettes belongs to: the
// cassette.yaml in dir or in one of its three parents (testdata/cassettes/
// github is three levels below the module's root). A cassette.yaml found
// but invalid is an error. Without one, it returns the project of no
// config: built-in normalizers and names, no adapter, and dir as its root,
// so that each cassette's own normalizers apply.
func Find(dir string) (*Project, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, &outcome.Error{Reason: outcome.EIO, Message: "cannot resolve " + dir, Err: err, NextStep: outcome.Command("ls", "-ld", dir)}
	}
	if p := FindConfig(abs, findLevels); p != "" {
		return Load(p)
	}
	cfg := &cfgschema.Config{Adapters: map[string]*cfgschema.Adapter{}, Dir: dir, Path: filepath.Join(dir, cfgschema.ConfigFile)}
	return &Project{Config: cfg, Normalizers: normalize.Builtins(), bare: true}, nil
}

// Kinds are the adapter kinds the project was loaded with
// (LoadKinds); nil is http and cli.
func (p *Project) Kinds() cfgschema.Kinds { return p.kinds }

// Credentials returns the live values of the credential variables the
// project declares (every adapter's real.credentials) that are set, read
// through lookup (nil is os.LookupEnv). They are for scans and redaction;
// never print them.
func (p *Project) Credentials(lookup func(string) (string, bool)) map[string]string {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	return redact.FromEnv(p.Config.CredentialNames(), lookup)
}

// LoadOptions are the options that load the project's cassettes: checked
// against its adapters and normalizers, and scanned for the credential
// values given (Credentials). They are the one set every door loads with
// (`cassette verify`, `check`, `cases`, cassettetest), so that a cassette
// is judged the same through each. A project Find found no
// cassette.yaml for checks no adapter (there are none to check against).
func (p *Project) LoadOptions(credentials map[string]string) cassettes.LoadOptions {
	o := cassettes.LoadOptions{Config: p.Config, Normalizers: p.Normalizers, Credentials: credentials, Kinds: p.kinds}
	if p.bare {
		o.Config = nil
	}
	return o
}
