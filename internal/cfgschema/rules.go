package cfgschema

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// kindRules are the rules of adapter a's kind (at field f): the format's
// own two kinds' fakes, or what a registered kind finds.
func kindRules(cfg *Config, kinds Kinds, f string, a *Adapter) []outcome.Problem {
	var out []outcome.Problem
	add := func(field, msg, expected string) {
		out = append(out, outcome.Problem{File: cfg.Path, Line: cfg.Line(field), Field: field, Message: msg, Expected: expected})
	}
	switch {
	case a.Fake.InProcess: // driven by a test runner: nothing to start
	case a.Kind == KindHTTP:
		if len(a.Fake.Command) == 0 && a.Fake.BaseURL == "" {
			add(f+".fake", "an http adapter's fake needs `base_url` or `command` (or in_process: true, for a fake a test runner drives)", "fake: {command: [...], base_url: http://127.0.0.1:${PORT}, ready: /healthz}")
		}
	case a.Kind == KindCLI:
		if len(a.Fake.Command) == 0 {
			add(f+".fake.command", "a cli adapter's fake needs `command` (or in_process: true, for a fake a test runner drives)", "command: [./bin/fake-gh]")
		}
	case kinds != nil && kinds.Known(a.Kind):
		for _, p := range kinds.AdapterProblems(f, a) {
			p.File, p.Line = cfg.Path, cfg.Line(p.Field)
			out = append(out, p)
		}
	}
	return out
}

// Rules are cassette.yaml's cross-field rules, which struct tags cannot
// say (the config loader adds them to the schema's problems).
func Rules(cfg *Config, kinds Kinds) []outcome.Problem {
	var out []outcome.Problem
	add := func(field, msg, expected string) {
		out = append(out, outcome.Problem{File: cfg.Path, Line: cfg.Line(field), Field: field, Message: msg, Expected: expected})
	}
	for _, name := range cfg.Order {
		a := cfg.Adapters[name]
		if a == nil {
			continue
		}
		f := "adapters." + name
		out = append(out, kindRules(cfg, kinds, f, a)...)
		if len(a.Fake.Test) > 0 && !a.Fake.InProcess {
			add(f+".fake.test", "fake.test verifies an in-process fake: it needs in_process: true (verify runs a process fake itself)", "fake: {in_process: true, test: [pytest, -q, tests/contracts]}")
		}
		if a.Real.Faults != nil {
			out = append(out, faultsProblems(cfg, f+".real.faults", a)...)
		}
		for k, v := range a.Real.Headers {
			for _, vr := range varsIn(v) {
				if !slices.Contains(a.Real.Credentials, vr) {
					add(f+".real.headers."+k, fmt.Sprintf("header uses ${%s}, which is not listed in real.credentials", vr), "list it in real.credentials so its value is redacted from cassettes")
				}
			}
		}
		out = append(out, realEnvSecrets(cfg, f, a)...)
		out = append(out, fakeSecrets(cfg, f, a)...)
		for i, s := range a.Scenarios {
			for j := range i {
				if a.Scenarios[j].Name == s.Name {
					add(fmt.Sprintf("%s.scenarios[%d].name", f, i), fmt.Sprintf("scenario `%s` is declared twice", s.Name), "unique scenario names")
				}
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(cfg.Quarantine)) {
		q := cfg.Quarantine[id]
		f := "quarantine." + id
		if !q.Quarantined.IsZero() && !q.Expires.IsZero() {
			days := q.Expires.Sub(q.Quarantined.Time) / (24 * time.Hour)
			if days > maxQuarantineDays {
				add(f+".expires", fmt.Sprintf("quarantine window is %d days", days), fmt.Sprintf("at most %d days after quarantined", maxQuarantineDays))
			}
			if days < 0 {
				add(f+".expires", "expires is before quarantined", "a date after quarantined")
			}
		}
		if len(id) > 0 {
			var adapter string
			for i := range id {
				if id[i] == '/' {
					adapter = id[:i]
					break
				}
			}
			if _, ok := cfg.Adapters[adapter]; adapter != "" && !ok {
				add(f, fmt.Sprintf("quarantine names adapter `%s`, which is not declared", adapter), "adapter/scenario of a declared adapter")
			}
		}
	}
	if sched := cfg.Refresh.Schedule; sched != "" && cfg.Refresh.Forge.Kind == "github" && cfg.Refresh.Forge.Repo == "" {
		add("refresh.forge.repo", "the github forge needs `repo`", "repo: owner/name")
	}
	if cfg.Refresh.TimeZone != "" {
		if _, err := time.LoadLocation(cfg.Refresh.TimeZone); err != nil {
			add("refresh.timezone", fmt.Sprintf("unknown time zone `%s`", cfg.Refresh.TimeZone), "an IANA zone like UTC or Europe/Paris")
		}
	}
	return out
}

// faultsProblems are the problems of an adapter's real.faults: it belongs
// to a cli adapter, and its patterns must compile.
func faultsProblems(cfg *Config, f string, a *Adapter) []outcome.Problem {
	var out []outcome.Problem
	if a.Kind != KindCLI {
		out = append(out, outcome.Problem{File: cfg.Path, Line: cfg.Line(f), Field: f, Message: "real.faults describes a cli adapter's command", Expected: "kind: cli"})
	}
	for key, pats := range map[string][]string{"stderr": a.Real.Faults.Stderr, "not_logged_in": a.Real.Faults.NotLoggedIn} {
		for i, p := range pats {
			if _, err := regexp.Compile(p); err != nil {
				field := fmt.Sprintf("%s.%s[%d]", f, key, i)
				out = append(out, outcome.Problem{File: cfg.Path, Line: cfg.Line(field), Field: field, Message: "not a regular expression: " + err.Error(),
					Expected: "an RE2 pattern, e.g. 'Could not resolve host'"})
			}
		}
	}
	slices.SortFunc(out, func(a, b outcome.Problem) int { return a.Line - b.Line })
	return out
}

// CredentialNames lists every credential variable declared by any adapter.
func (c *Config) CredentialNames() []string {
	seen := map[string]bool{}
	var out []string
	for _, name := range c.Order {
		a := c.Adapters[name]
		if a == nil {
			continue // `name:` with no value: validation says so
		}
		for _, v := range a.Real.Credentials {
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	return out
}

// realEnvSecrets refuses a real.env of adapter a (field f) that expands a
// credential a does not declare (another adapter's, or the forge's
// token): a real command gets its own adapter's credentials only
// (recorder.RecordingEnviron), and real.env would hand it another's.
func realEnvSecrets(cfg *Config, f string, a *Adapter) []outcome.Problem {
	var out []outcome.Problem
	secret := cfg.SecretVars()
	for _, k := range slices.Sorted(maps.Keys(a.Real.Env)) {
		for _, vr := range varsIn(a.Real.Env[k]) {
			if slices.Contains(secret, vr) && !slices.Contains(a.Real.Credentials, vr) {
				field := f + ".real.env." + k
				out = append(out, outcome.Problem{File: cfg.Path, Line: cfg.Line(field), Field: field,
					Message:  fmt.Sprintf("uses ${%s}, a credential this adapter does not declare (another adapter's or the forge's): a real command gets its own adapter's credentials only", vr),
					Expected: "list it in real.credentials of this adapter, if its command needs it"})
			}
		}
	}
	return out
}

// fakeSecrets refuses a fake.env or fake.base_url of adapter a (field f)
// that expands a live credential (SecretVars): a fake never sees one, and
// verify expands it empty.
func fakeSecrets(cfg *Config, f string, a *Adapter) []outcome.Problem {
	var out []outcome.Problem
	secret := cfg.SecretVars()
	check := func(field, v string) {
		for _, vr := range varsIn(v) {
			if slices.Contains(secret, vr) {
				out = append(out, outcome.Problem{File: cfg.Path, Line: cfg.Line(field), Field: field,
					Message:  fmt.Sprintf("uses ${%s}, a live credential: a fake is code the repository brings and never sees one", vr),
					Expected: "a value of the fake's own (a fake needs no real credential)"})
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(a.Fake.Env)) {
		check(f+".fake.env."+k, a.Fake.Env[k])
	}
	check(f+".fake.base_url", a.Fake.BaseURL)
	return out
}

// ForgeTokenEnv is the variable that holds the forge's token:
// refresh.forge.token_env, GITHUB_TOKEN for a github forge without one,
// else "".
func (c *Config) ForgeTokenEnv() string {
	switch f := c.Refresh.Forge; {
	case f.TokenEnv != "":
		return f.TokenEnv
	case f.Kind == "github":
		return "GITHUB_TOKEN"
	}
	return ""
}

// SecretVars are the variables that hold live credentials: those every
// adapter declares in real.credentials, and the forge's token. A real
// command sees its own adapter's only; a fake, code the repository brings,
// sees none of them (WithoutVars).
func (c *Config) SecretVars() []string {
	names := c.CredentialNames()
	if v := c.ForgeTokenEnv(); v != "" && !slices.Contains(names, v) {
		names = append(names, v)
	}
	return names
}

// WithoutVars is environ (NAME=value entries) less the variables named in
// drop.
func WithoutVars(environ, drop []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		if k, _, _ := strings.Cut(kv, "="); !slices.Contains(drop, k) {
			out = append(out, kv)
		}
	}
	return out
}

// FakeEnviron is the one environment of a fake: environ and extra
// (NAME=value), less the variables that hold live credentials
// (SecretVars). Every door that runs code the repository brings as a fake
// builds its environment here: verify's fakes and their builds, observe's
// shims and its test command (where in-process fakes live), a binding's
// cases, refresh's replay gate. A fake answers as the real service
// answered when it was recorded; the real service's credentials are not
// its to see. A nil config withholds nothing.
func (c *Config) FakeEnviron(environ []string, extra ...string) []string {
	all := append(slices.Clip(environ), extra...)
	if c == nil {
		return all
	}
	return WithoutVars(all, c.SecretVars())
}

// FakeLookup is lookup as a fake sees it: the secret variables are unset
// (fake.env and fake.base_url expand through it).
func (c *Config) FakeLookup(lookup func(string) (string, bool)) func(string) (string, bool) {
	if c == nil {
		return lookup
	}
	secret := c.SecretVars()
	return func(k string) (string, bool) {
		if slices.Contains(secret, k) {
			return "", false
		}
		return lookup(k)
	}
}
