// Package nextstep builds the next step a failing command prints from the
// project's own names (its adapters, scenarios and cassettes), so that each
// is one command that runs as printed in the user's project: never `...`,
// a placeholder, a `# comment`, or an adapter the project lacks. Every word
// goes through outcome.Command, and a command names the config when it is
// not the default one.
package nextstep

import (
	"cmp"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// Command is the cassette command of words, naming the config when it is
// not the default one (before a `--`, after which the words are a recorded
// command's).
func Command(config string, words ...string) string {
	if config == "" || config == cfgschema.ConfigFile {
		return outcome.Command(words...)
	}
	at := slices.Index(words, "--")
	if at < 0 {
		at = len(words)
	}
	out := append(append(append([]string(nil), words[:at]...), "--config", config), words[at:]...)
	return outcome.Command(out...)
}

// RecordFirst is the command that records a first cassette of adapter
// name ("" picks the first adapter that declares scenarios, else the
// first adapter): its declared scenarios; for a cli adapter, its real
// command's --version (harmless, read-only, and every CLI has one); for
// an http adapter without scenarios, a GET of its base URL through the
// recording proxy. Without any of these, record's help.
func RecordFirst(cfg *cfgschema.Config, name string) string {
	name = firstToRecord(cfg, name)
	a := cfg.Adapters[name]
	switch {
	case a == nil:
		return Command(cfg.Path, "cassette", "record", "--help")
	case len(a.Scenarios) > 0:
		return Command(cfg.Path, "cassette", "record", "--adapter", name)
	case a.Kind == cfgschema.KindCLI && len(a.Real.Command) > 0:
		return Command(cfg.Path, append(append([]string{"cassette", "record", "--adapter", name, "--scenario", "version", "--"}, a.Real.Command...), "--version")...)
	case a.Kind == cfgschema.KindHTTP && isHTTPURL(a.Real.BaseURL):
		return Command(cfg.Path, "cassette", "record", "--adapter", name, "--scenario", "root", "--", "curl", "-sS", strings.TrimSuffix(a.Real.BaseURL, "/")+"/")
	}
	return Command(cfg.Path, "cassette", "record", "--help")
}

// firstToRecord is the adapter RecordFirst records: name, or with ""
// the first adapter that declares scenarios, else the first adapter.
func firstToRecord(cfg *cfgschema.Config, name string) string {
	if name == "" {
		for _, n := range cfg.Order {
			if a := cfg.Adapters[n]; a != nil && len(a.Scenarios) > 0 {
				name = n
				break
			}
		}
	}
	if name == "" && len(cfg.Order) > 0 {
		name = cfg.Order[0]
	}
	return name
}

// RecordFirstNeeds says what RecordFirst's command needs before it can
// run, for the message it ends: the adapter's credential variables that
// are not set ("" when none is missing). Recording reads them from the
// environment, so the step is printed as it will run once they are set.
func RecordFirstNeeds(cfg *cfgschema.Config, name string) string {
	a := cfg.Adapters[firstToRecord(cfg, name)]
	if a == nil {
		return ""
	}
	var unset []string
	for _, v := range a.Real.Credentials {
		if os.Getenv(v) == "" {
			unset = append(unset, v)
		}
	}
	if len(unset) == 0 {
		return ""
	}
	return " (export " + strings.Join(unset, ", ") + " first: recording reads the real side's credentials from the environment, and they are not set)"
}

func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// Record is a `cassette record` run as the user gave it: the adapter, the
// scenario, the flags that change where it records from, and the command
// after -- as it may be printed (recorder.CommandWithRefs: never the value
// of a credential the command line holds, the variable it is in).
type Record struct {
	Adapter, Scenario   string
	BaseURL, UpstreamCA string
	Timeout             time.Duration
	Command             []string
}

// RecordAgain is the record command of r: what to run again once the
// cause is fixed.
func RecordAgain(cfg *cfgschema.Config, r Record) string {
	words := []string{"cassette", "record", "--adapter", r.Adapter}
	if r.Scenario != "" {
		words = append(words, "--scenario", r.Scenario)
	}
	if r.BaseURL != "" {
		words = append(words, "--base-url", r.BaseURL)
	}
	if r.UpstreamCA != "" {
		words = append(words, "--upstream-ca", r.UpstreamCA)
	}
	if r.Timeout > 0 { // as againArgs repeats it
		words = append(words, "--timeout", r.Timeout.String())
	}
	if len(r.Command) > 0 {
		words = append(append(words, "--"), r.Command...)
	}
	return Command(cfg.Path, words...)
}

// RecordDeclared records the declared scenario nearest to scenario (the
// first declared one if none is near), or a first recording when the
// adapter declares none.
func RecordDeclared(cfg *cfgschema.Config, adapter, scenario string, declared []string) string {
	if len(declared) == 0 {
		return RecordFirst(cfg, adapter)
	}
	pick := cmp.Or(outcome.Closest(scenario, declared), declared[0])
	return Command(cfg.Path, "cassette", "record", "--adapter", adapter, "--scenario", pick)
}

// RunPattern is the next step of a --run of command name that does not
// compile, in the project of cfg (nil when its config does not load; then
// config is the --config given): the same text as a literal, when that
// selects a case; else its literal start (what comes before the first
// special character), when a case begins with it; else the first
// cassette's adapter; else the command's help.
func RunPattern(cfg *cfgschema.Config, config, name, run string) string {
	if cfg == nil {
		return Command(config, "cassette", name, "--help")
	}
	files, _ := cassettes.Discover(cfg.CassetteDir())
	literal := regexp.MustCompile(regexp.QuoteMeta(run))
	start := run
	if i := strings.IndexAny(run, `.^$*+?()[]{}|\`); i >= 0 {
		start = run[:i]
	}
	first, prefixed := "", false
	for _, f := range files {
		rel, err := filepath.Rel(cfg.CassetteDir(), f)
		if err != nil {
			continue
		}
		id := strings.TrimSuffix(filepath.ToSlash(rel), filepath.Ext(rel))
		if literal.MatchString(id) {
			return Command(cfg.Path, "cassette", name, "--run", regexp.QuoteMeta(run))
		}
		prefixed = prefixed || start != "" && strings.HasPrefix(id, start)
		if first == "" {
			first, _, _ = strings.Cut(id, "/")
		}
	}
	if prefixed {
		return Command(cfg.Path, "cassette", name, "--run", "^"+regexp.QuoteMeta(start))
	}
	if first != "" {
		return Command(cfg.Path, "cassette", name, "--run", "^"+regexp.QuoteMeta(first)+"/")
	}
	return Command(cfg.Path, "cassette", name, "--help")
}

// NoCassetteDir gives the error of loading the project's own cassette
// directory when that directory is missing the step that makes it: record
// a first cassette (it said `cassette validate`, which only repeated it).
func NoCassetteDir(cfg *cfgschema.Config, err error, paths []string) error {
	ce, ok := err.(*outcome.Error)
	if !ok || ce.Reason != outcome.ECassetteNotFound || len(paths) != 1 || paths[0] != cfg.CassetteDir() {
		return err
	}
	ce.Message = "no directory " + paths[0] + ": no cassette was recorded in this project yet" + RecordFirstNeeds(cfg, "")
	ce.Err, ce.NextStep = nil, RecordFirst(cfg, "")
	return ce
}

// Observe runs the project's test suite under cassette observe, with the
// runner its files name (go.mod, package.json, a pytest configuration, a
// Makefile); with none of them, observe's help, which says what to give
// it.
func Observe(cfg *cfgschema.Config) string {
	run := TestCommand(cfg.Dir)
	if run == nil {
		return Command(cfg.Path, "cassette", "observe", "--help")
	}
	return Command(cfg.Path, append([]string{"cassette", "observe", "--"}, run...)...)
}

// TestCommand is the usual test command of the project in dir, or nil.
func TestCommand(dir string) []string {
	has := func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, name))
		return err == nil
	}
	switch {
	case has("go.mod"):
		return []string{"go", "test", "./..."}
	case has("package.json"):
		return []string{"npm", "test"}
	case has("pytest.ini"), has("conftest.py"), has("pyproject.toml"), has("tox.ini"), has("setup.cfg"):
		return []string{"pytest"}
	case has("Makefile"):
		return []string{"make", "test"}
	}
	return nil
}

// NearestAdapter is the declared adapter meant by a misspelt --adapter:
// the one whose real command the rest of the line runs (`--adapter gti --
// git log` means git, not the nearer gh), else the nearest name.
func NearestAdapter(cfg *cfgschema.Config, given string, command []string) string {
	if len(command) > 0 {
		base := filepath.Base(command[0])
		for _, name := range cfg.Order {
			a := cfg.Adapters[name]
			if a.Kind == cfgschema.KindCLI && len(a.Real.Command) > 0 && filepath.Base(a.Real.Command[0]) == base {
				return name
			}
		}
		for _, name := range cfg.Order {
			if a := cfg.Adapters[name]; a.Kind == cfgschema.KindCLI && len(a.Real.Command) == 0 && name == base {
				return name
			}
		}
	}
	return outcome.Closest(given, cfg.Order)
}

// DidYouMean is "did you mean `x`?", or "" for no x.
func DidYouMean(x string) string {
	if x == "" {
		return ""
	}
	return "did you mean `" + x + "`?"
}
