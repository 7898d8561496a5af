package main

import (
	"cmp"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/outcome"
	"github.com/cassette-dev/cassette/recorder"
)

// The next steps commands print are built here from the project's own
// names (its adapters, scenarios and cassettes), so that each is one
// command that runs as printed in the user's project: never `...`, a
// placeholder, a `# comment`, or an adapter the project lacks. Every word
// goes through outcome.Command.

// command is the cassette command of words, naming the config when it is
// not the default one (before a `--`, after which the words are a recorded
// command's).
func (p *project) command(words ...string) string {
	return commandWithConfig(p.cfg.Path, words...)
}

func commandWithConfig(config string, words ...string) string {
	if config == "" || config == cassettes.ConfigFile {
		return outcome.Command(words...)
	}
	at := slices.Index(words, "--")
	if at < 0 {
		at = len(words)
	}
	out := append(append(append([]string(nil), words[:at]...), "--config", config), words[at:]...)
	return outcome.Command(out...)
}

// recordFirst is the command that records a first cassette of adapter
// name ("" picks the first adapter that declares scenarios, else the
// first adapter): its declared scenarios; for a cli adapter, its real
// command's --version (harmless, read-only, and every CLI has one); for
// an http adapter without scenarios, a GET of its base URL through the
// recording proxy. Without any of these, record's help.
func (p *project) recordFirst(name string) string {
	name = p.firstToRecord(name)
	a := p.cfg.Adapters[name]
	switch {
	case a == nil:
		return p.command("cassette", "record", "--help")
	case len(a.Scenarios) > 0:
		return p.command("cassette", "record", "--adapter", name)
	case a.Kind == cassettes.KindCLI && len(a.Real.Command) > 0:
		return p.command(append(append([]string{"cassette", "record", "--adapter", name, "--scenario", "version", "--"}, a.Real.Command...), "--version")...)
	case a.Kind == cassettes.KindHTTP && isHTTPURL(a.Real.BaseURL):
		return p.command("cassette", "record", "--adapter", name, "--scenario", "root", "--", "curl", "-sS", strings.TrimSuffix(a.Real.BaseURL, "/")+"/")
	}
	return p.command("cassette", "record", "--help")
}

// firstToRecord is the adapter recordFirst records: name, or with ""
// the first adapter that declares scenarios, else the first adapter.
func (p *project) firstToRecord(name string) string {
	if name == "" {
		for _, n := range p.cfg.Order {
			if a := p.cfg.Adapters[n]; a != nil && len(a.Scenarios) > 0 {
				name = n
				break
			}
		}
	}
	if name == "" && len(p.cfg.Order) > 0 {
		name = p.cfg.Order[0]
	}
	return name
}

// recordFirstNeeds says what recordFirst's command needs before it can
// run, for the message it ends: the adapter's credential variables that
// are not set ("" when none is missing). Recording reads them from the
// environment, so the step is printed as it will run once they are set.
func (p *project) recordFirstNeeds(name string) string {
	a := p.cfg.Adapters[p.firstToRecord(name)]
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

// recordAgain is the record command of this run, as the user gave it (the
// adapter, scenario, flags that change where it records from, and the
// command after --): what to run again once the cause is fixed.
func (p *project) recordAgain(o *recordOptions, command []string) string {
	words := []string{"cassette", "record", "--adapter", o.adapter}
	if o.scenario != "" {
		words = append(words, "--scenario", o.scenario)
	}
	if o.baseURL != "" {
		words = append(words, "--base-url", o.baseURL)
	}
	if o.upstreamCA != "" {
		words = append(words, "--upstream-ca", o.upstreamCA)
	}
	if o.attemptTimeout > 0 { // as againArgs repeats it
		words = append(words, "--timeout", o.attemptTimeout.String())
	}
	if len(command) > 0 {
		// never the value of a credential the command line holds: the
		// variable it is in (the error may come before record's own check)
		var creds []string
		if a := p.cfg.Adapters[o.adapter]; a != nil {
			creds = a.Real.Credentials
		}
		words = append(append(words, "--"), recorder.CommandWithRefs(p.cfg.Redaction(), creds, o.adapter, command)...)
	}
	return p.command(words...)
}

// caseIDs are the ids (adapter/scenario) of the cassettes, in order.
func caseIDs(list []*cassettes.Cassette) []string {
	out := make([]string, 0, len(list))
	for _, c := range list {
		out = append(out, c.ID())
	}
	return out
}

// noCaseStep is the next step of a verify that selected nothing: with
// --case, the nearest existing case; with --adapter, a first recording of
// that adapter; with --run, every case; with no cassette at all, a first
// recording.
func (p *project) noCaseStep(o *verifyOptions, list []*cassettes.Cassette) string {
	ids := caseIDs(list)
	switch {
	case len(ids) == 0:
		return p.recordFirst(firstOr(o.adapters, ""))
	case len(o.cases) > 0:
		if near := nearestCase(o.cases[0], ids); near != "" {
			return p.command("cassette", "verify", "--case", near)
		}
		return p.command("cassette", "verify")
	case len(o.adapters) > 0:
		for _, a := range o.adapters {
			if !slices.ContainsFunc(list, func(c *cassettes.Cassette) bool { return c.Adapter == a }) {
				return p.recordFirst(a)
			}
		}
	}
	return p.command("cassette", "verify")
}

// nearestCase is the existing case id nearest to want: the one it names
// when want is only an adapter or a scenario, else the closest spelling.
func nearestCase(want string, ids []string) string {
	for _, id := range ids {
		adapter, scenario, _ := strings.Cut(id, "/")
		if want == adapter || want == scenario {
			return id
		}
	}
	return cassettes.Closest(want, ids)
}

// runPatternStep is the next step of a --run that does not compile: the
// same text as a literal, when that selects a case; else its literal start
// (what comes before the first special character), when a case begins
// with it; else the first cassette's adapter; else verify's help.
func runPatternStep(g *globals, name, run string) string {
	p, err := loadProject(g)
	if err != nil {
		return commandWithConfig(g.config, "cassette", name, "--help")
	}
	files, _ := cassettes.Discover(p.cfg.CassetteDir())
	literal := regexp.MustCompile(regexp.QuoteMeta(run))
	start := run
	if i := strings.IndexAny(run, `.^$*+?()[]{}|\`); i >= 0 {
		start = run[:i]
	}
	first, prefixed := "", false
	for _, f := range files {
		rel, err := filepath.Rel(p.cfg.CassetteDir(), f)
		if err != nil {
			continue
		}
		id := strings.TrimSuffix(filepath.ToSlash(rel), filepath.Ext(rel))
		if literal.MatchString(id) {
			return p.command("cassette", name, "--run", regexp.QuoteMeta(run))
		}
		prefixed = prefixed || start != "" && strings.HasPrefix(id, start)
		if first == "" {
			first, _, _ = strings.Cut(id, "/")
		}
	}
	if prefixed {
		return p.command("cassette", name, "--run", "^"+regexp.QuoteMeta(start))
	}
	if first != "" {
		return p.command("cassette", name, "--run", "^"+regexp.QuoteMeta(first)+"/")
	}
	return p.command("cassette", name, "--help")
}

// noCassetteDir gives the error of loading the project's own cassette
// directory when that directory is missing the step that makes it: record
// a first cassette (it said `cassette validate`, which only repeated it).
func (p *project) noCassetteDir(err error, paths []string) error {
	ce, ok := err.(*outcome.Error)
	if !ok || ce.Reason != outcome.ECassetteNotFound || len(paths) != 1 || paths[0] != p.cfg.CassetteDir() {
		return err
	}
	ce.Message = "no directory " + paths[0] + ": no cassette was recorded in this project yet" + p.recordFirstNeeds("")
	ce.Err, ce.NextStep = nil, p.recordFirst("")
	return ce
}

// observeStep runs the project's test suite under cassette observe, with
// the runner its files name (go.mod, package.json, a pytest
// configuration, a Makefile); with none of them, observe's help, which
// says what to give it.
func (p *project) observeStep() string {
	run := testCommandOf(p.cfg.Dir)
	if run == nil {
		return p.command("cassette", "observe", "--help")
	}
	return p.command(append([]string{"cassette", "observe", "--"}, run...)...)
}

// testCommandOf is the usual test command of the project in dir, or nil.
func testCommandOf(dir string) []string {
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

func firstOr(xs []string, or string) string {
	if len(xs) == 0 {
		return or
	}
	return xs[0]
}

// noCaseError is the error of a verify that selected no case: a --case
// that names no cassette is said to be one (with the nearest that exists),
// not that nothing matched.
func noCaseError(p *project, o *verifyOptions, list []*cassettes.Cassette) *outcome.Error {
	e := &outcome.Error{Reason: outcome.ECassetteNotFound, Message: "no cassette matches: nothing to verify", NextStep: p.noCaseStep(o, list)}
	if len(list) == 0 {
		e.Message = "no cassette under " + p.cfg.CassetteDir() + ": nothing to verify; record a first one" + p.recordFirstNeeds("")
	}
	ids := caseIDs(list)
	for _, c := range o.cases {
		if slices.Contains(ids, c) {
			continue
		}
		pr := outcome.Problem{Field: "--case", Message: "no case " + c, Expected: "adapter/scenario of a cassette under " + p.cfg.CassetteDir()}
		if near := nearestCase(c, ids); near != "" {
			pr.Suggestion = "did you mean `" + near + "`?"
		}
		e.Problems = append(e.Problems, pr)
		e.Message = "no such case: " + c
	}
	return e
}

// recordOtherAdapter is the record command of this run with the declared
// adapter nearest to the one given, or a first recording.
func (p *project) recordOtherAdapter(o *recordOptions, command []string) string {
	near := cassettes.Closest(o.adapter, p.cfg.Order)
	if near == "" {
		return p.recordFirst("")
	}
	other := *o
	other.adapter = near
	return p.recordAgain(&other, command)
}

// recordDeclared records the declared scenario nearest to scenario (the
// first declared one if none is near), or a first recording when the
// adapter declares none.
func (p *project) recordDeclared(adapter, scenario string, declared []string) string {
	if len(declared) == 0 {
		return p.recordFirst(adapter)
	}
	pick := cmp.Or(cassettes.Closest(scenario, declared), declared[0])
	return p.command("cassette", "record", "--adapter", adapter, "--scenario", pick)
}
