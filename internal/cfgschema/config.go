package cfgschema

import (
	"os"
	"regexp"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/cassette-dev/cassette/internal/redact"
)

// ConfigFile is the default config file name.
const ConfigFile = "cassette.yaml"

// Kind is the kind of an adapter and of its cassettes.
type Kind string

// The adapter kinds.
const (
	KindHTTP Kind = "http"
	KindCLI  Kind = "cli"
)

// Config is cassette.yaml: the adapters, project-defined normalizers, the
// refresh settings and quarantine entries.
type Config struct {
	Version     int                      `yaml:"version,omitempty" validate:"omitempty,eq=1"`
	Cassettes   string                   `yaml:"cassettes,omitempty"` // directory of cassettes; default "cassettes"
	Adapters    map[string]*Adapter      `yaml:"adapters" validate:"required,min=1,dive,keys,adaptername,endkeys,required"`
	Normalizers map[string]NormalizerDef `yaml:"normalizers,omitempty" validate:"dive,keys,normalizername,endkeys"`
	Refresh     Refresh                  `yaml:"refresh,omitempty"`
	Quarantine  map[string]Quarantine    `yaml:"quarantine,omitempty" validate:"dive,keys,caseid,endkeys"`
	Redact      Redact                   `yaml:"redact,omitempty"`

	// Path is where the config was loaded from; Dir is its directory, the
	// project root against which relative paths resolve.
	Path string `yaml:"-"`
	Dir  string `yaml:"-"`
	// Order lists adapter names in the order the file declares them (the
	// order of reports).
	Order []string `yaml:"-"`

	line  func(field string) int // where fields are in the file (Located)
	rules *redact.Rules          // Redact.Names as redaction rules, made once by Validated
}

// Located sets where the config's fields are in the file it was read
// from, for Line; the config loader calls it before it validates.
func (c *Config) Located(line func(field string) int) { c.line = line }

// Validated makes the project's redaction rules once, for Redaction; the
// config loader calls it when the config has passed every check.
func (c *Config) Validated() { c.rules = redact.NewRules(c.Redact.Names) }

// Redaction returns the project's credential names: the built-in ones plus
// redact.names, as every door that redacts for this project takes them
// (recording, import, the proxy, the redact.credentials normalizer).
func (c *Config) Redaction() *redact.Rules {
	switch {
	case c == nil:
		return nil
	case c.rules != nil:
		return c.rules
	case len(c.Redact.Names) == 0:
		return nil // the built-in names
	}
	return redact.NewRules(c.Redact.Names) // a Config built in memory
}

// Redact extends what recording redacts.
type Redact struct {
	// Names are added to the credential-shaped names (see
	// docs/concepts/adapters.md, "Recording"): headers, query, form and multipart parameters and JSON
	// keys of these names are redacted like Authorization or client_secret.
	Names []string `yaml:"names,omitempty" validate:"dive,required"`
}

// Adapter is one external service with a real side and a fake side.
type Adapter struct {
	Kind        Kind     `yaml:"kind" validate:"required,kind"`
	Real        Real     `yaml:"real"`
	Fake        Fake     `yaml:"fake"`
	Normalizers []string `yaml:"normalizers,omitempty" validate:"dive,normalizer"`
	Owners      []string `yaml:"owners,omitempty"`
	// ContractHeaders are the response headers verify compares (after
	// normalization); other headers are informative only.
	ContractHeaders []string `yaml:"contract_headers,omitempty"`
	// Scenarios are HTTP scenarios that can be recorded without a client
	// program (cassette record --adapter X), and what refresh re-records.
	Scenarios []Scenario `yaml:"scenarios,omitempty" validate:"dive"`
	// Match configures replay matching for this adapter's cassettes.
	Match Match `yaml:"match,omitempty"`
	// AllowMutating lets refresh re-run scenarios marked replayable: false
	// (mutating calls) against the real service.
	AllowMutating bool `yaml:"allow_mutating,omitempty"`
	// Coverage says how `cassette coverage` reads this adapter's calls as
	// call shapes, and how many must be backed by a cassette.
	Coverage Coverage `yaml:"coverage,omitempty"`
	// Compare is how verify compares the fake's answer with the cassette:
	// exact (the default: the normalized forms byte for byte) or modelled
	// (what the fake leaves out is listed, not a drift; what it gives must
	// be what reality gave): docs/modelled.md.
	Compare string `yaml:"compare,omitempty" validate:"omitempty,oneof=exact modelled"`
	// Required are what the fake must model even in modelled mode:
	// JSONPaths ($.id, $.items[*].name, $..sha), status, and header names.
	Required []string `yaml:"required,omitempty" validate:"dive,requiredentry"`
	// Stream is how a JSON-lines or SSE stream is compared: records (the
	// default: record by record) or content (the text of consecutive
	// records concatenated, so a fake may split it differently).
	Stream string `yaml:"stream,omitempty" validate:"omitempty,oneof=records content"`
	// StreamText names the text fields that stream: content concatenates:
	// stream presets (anthropic.messages, openai.chat, openai.responses) or
	// JSONPaths of string fields; none: every preset applies.
	StreamText []string `yaml:"stream_text,omitempty" validate:"dive,streamtext"`
	// Contracts set compare, required, stream and stream_text for single
	// scenarios (by name) over the adapter's own.
	Contracts map[string]Contract `yaml:"contracts,omitempty" validate:"dive,keys,loadedscenario,endkeys"`
}

// Coverage configures the call shapes of one adapter (package coverage
// holds the rules; docs/concepts/coverage.md shows them).
type Coverage struct {
	// Paths are URL path templates ("/repos/{owner}/{repo}"): in a path
	// that starts with a template's segments, the segments under its
	// {names} become {} (names, slugs: values no rule can recognise).
	Paths []string `yaml:"paths,omitempty" validate:"dive,startswith=/"`
	// Depth is how many leading words of a CLI call name the subcommand
	// (`gh pr list`: 2); nil is 1.
	Depth *int `yaml:"depth,omitempty" validate:"omitempty,min=0,max=8"`
	// Args are the positional arguments that are part of a CLI call's
	// shape, by the command and subcommand words they follow ("gh api":
	// path): with `path`, the first one is an endpoint, shown as a path
	// template like an HTTP path (`gh api repos/{}/{}/issues`), and a
	// GraphQL call by its operation name (`gh api graphql query:Repo`);
	// `none` keeps none. Built in: {"gh api": path}.
	Args map[string]string `yaml:"args,omitempty" validate:"dive,keys,required,endkeys,oneof=path none"`
	// ValueFlags are the CLI flags whose value is the next word
	// (`-C DIR`), so that the value is never read as a subcommand.
	ValueFlags []string `yaml:"value_flags,omitempty" validate:"dive,startswith=-"`
	// Ignore are call shapes left out of coverage ("GET /healthz",
	// "git --version"); * matches any run of characters.
	Ignore []string `yaml:"ignore,omitempty" validate:"dive,required"`
	// IgnoreQuery are query parameters and IgnoreFlags CLI flags left out
	// of shapes, by name (a cache buster, a verbosity flag).
	IgnoreQuery []string `yaml:"ignore_query,omitempty" validate:"dive,required"`
	IgnoreFlags []string `yaml:"ignore_flags,omitempty" validate:"dive,startswith=-"`
	// Min is the percentage of the adapter's observed call shapes that
	// cassettes must cover (nil is 100); `cassette coverage --min` overrides it.
	Min *float64 `yaml:"min,omitempty" validate:"omitempty,min=0,max=100"`
	// MinModelled is the least percentage of the response fields reality
	// returned that the fake must model (compare: modelled); below it
	// verify fails. nil sets no floor.
	MinModelled *float64 `yaml:"min_modelled,omitempty" validate:"omitempty,min=0,max=100"`
}

// Real is how to reach the real service.
type Real struct {
	BaseURL     string            `yaml:"base_url,omitempty" validate:"omitempty,url|startswith=unix:///"` // or a unix socket: a cli adapter's engine, or what an http adapter records through
	Command     []string          `yaml:"command,omitempty"`
	Credentials []string          `yaml:"credentials,omitempty" validate:"dive,envname"`
	Headers     map[string]string `yaml:"headers,omitempty"`
	Env         map[string]string `yaml:"env,omitempty"`
	Dir         string            `yaml:"dir,omitempty"`
	// CAFile, ClientCert, ClientKey and InsecureSkipVerify configure TLS
	// to the real service (see the recorder's upstream options): a private
	// CA's PEM file trusted on top of the system roots, a client
	// certificate and key for mTLS (read in place, never copied), and an
	// explicit opt-out of certificate checks that warns on every run.
	CAFile             string `yaml:"ca_file,omitempty"`
	ClientCert         string `yaml:"client_cert,omitempty"`
	ClientKey          string `yaml:"client_key,omitempty"`
	InsecureSkipVerify bool   `yaml:"insecure_skip_verify,omitempty"`
	// Faults are how a cli adapter's real command says that the real side
	// could not be reached, on top of the built-in signatures of the tool
	// it names (curl, git, gh, docker, podman, LLM CLIs).
	Faults *Faults `yaml:"faults,omitempty"`
}

// Faults are the failure signatures of a cli adapter's real command: a run
// that ends with one of these exit codes, or a non-zero exit code and
// stderr matching one of these patterns, could not reach the real side. It
// is infrastructure (exit 3), never a cassette or a drift.
type Faults struct {
	ExitCodes []int    `yaml:"exit_codes,omitempty" validate:"dive,min=1,max=255"`
	Stderr    []string `yaml:"stderr,omitempty" validate:"dive,required"` // RE2 patterns, searched in stderr
	// NotLoggedIn are stderr patterns saying the tool has no credentials
	// (`gh auth login`): refresh skips the adapter, as for an unset
	// credential variable.
	NotLoggedIn []string `yaml:"not_logged_in,omitempty" validate:"dive,required"`
	// Builtin false drops the tool's built-in signatures (default true).
	Builtin *bool `yaml:"builtin,omitempty"`
	// Strict false records a re-recording whose exit code went from 0 to
	// non-zero with nothing on stdout and no signature matched; by default
	// (true) it is refused as suspect.
	Strict *bool `yaml:"strict,omitempty"`
}

// InProcessOnly says whether an adapter's fake lives only in a test
// runner's process: fake.in_process with no command to start and no
// base_url to reach.
func (a *Adapter) InProcessOnly() bool {
	return a.Fake.InProcess && len(a.Fake.Command) == 0 && a.Fake.BaseURL == ""
}

// Fake is how to reach or start the fake.
type Fake struct {
	// Build runs once before the fake is used (e.g. [go, build, -o, bin/fake, ./fakes/x]),
	// so that many cases share one compiled fake.
	Build   []string `yaml:"build,omitempty"`
	Command []string `yaml:"command,omitempty"`
	BaseURL string   `yaml:"base_url,omitempty"`
	Ready   string   `yaml:"ready,omitempty"`
	// ReadyStatus are statuses besides 2xx and 3xx that mean the fake is
	// ready (a fake whose ready path answers 404 on purpose).
	ReadyStatus []int             `yaml:"ready_status,omitempty" validate:"dive,min=100,max=599"`
	Env         map[string]string `yaml:"env,omitempty"`
	Dir         string            `yaml:"dir,omitempty"`
	Timeout     Duration          `yaml:"timeout,omitempty"`
	// InProcess declares that the fake lives in a test runner's process (a
	// Python or JavaScript object, verified through `cassette check` by the
	// pytest or node:test binding, or a Go one through cassettetest). Such
	// an adapter needs no command or base_url; verify skips its cases when
	// it has neither.
	InProcess bool `yaml:"in_process,omitempty"`
	// Test is the command that verifies an in-process fake (its contract
	// tests through a binding: [pytest, -q, tests/contracts], [node,
	// --test, test/contracts]), run in the directory of cassette.yaml:
	// `verify --in-process` runs it, and refresh runs it as the replay
	// gate on the re-recorded cassettes, reading its results back from
	// the report set the bindings write to $CASSETTE_REPORT_DIR.
	Test []string `yaml:"test,omitempty" validate:"omitempty,min=1,dive,required"`
	// Shared runs one fake process for all of the adapter's cases, in
	// parallel. The default starts a fresh fake for each case, so that a
	// stateful fake sees each cassette as the real service was recorded
	// and results never depend on case order; share only stateless fakes.
	Shared bool `yaml:"shared,omitempty"`
}

// Scenario is one HTTP call shape to record from the real side.
type Scenario struct {
	Name       string            `yaml:"name" validate:"required,scenarioname"`
	Method     string            `yaml:"method,omitempty" validate:"omitempty,oneof=GET HEAD POST PUT PATCH DELETE OPTIONS"`
	Path       string            `yaml:"path" validate:"required,startswith=/"`
	Headers    map[string]string `yaml:"headers,omitempty"`
	Body       string            `yaml:"body,omitempty"`
	Replayable *bool             `yaml:"replayable,omitempty"` // copied to the cassette (replay may repeat it)
	Mutating   bool              `yaml:"mutating,omitempty"`   // copied to the cassette (refresh skips it)
	// Status is the status this call answers on purpose when it is one the
	// live-call policy treats as a failure (401, 403, 408, 429, 5xx): it is then
	// recorded, not retried and not refused.
	Status int `yaml:"status,omitempty" validate:"omitempty,min=100,max=599"`
}

// Match configures how replay matches requests to recorded interactions.
type Match struct {
	Headers []string `yaml:"headers,omitempty"`
	Body    string   `yaml:"body,omitempty" validate:"omitempty,oneof=raw json ignore"`
	Query   *bool    `yaml:"query,omitempty"`

	// URLs are URL patterns ("glob:https://api.x.com/v1/items/*" or
	// "regex:…"): requests whose URLs match the same pattern as a recorded
	// one match it on the URL.
	URLs []string `yaml:"urls,omitempty"`
	// IgnoreQuery are query parameters left out of matching, by name.
	IgnoreQuery []string `yaml:"ignore_query,omitempty"`
	// IgnoreJSON are JSONPaths left out of a JSON request body; OnlyJSON,
	// when set, are the only ones compared.
	IgnoreJSON []string `yaml:"ignore_json,omitempty"`
	OnlyJSON   []string `yaml:"only_json,omitempty"`
	// Sequence is what replay does once the n responses recorded for n
	// identical requests are served: once (the default: a miss) or
	// replayable (serve the last one again). A cassette's own
	// `replayable:` key wins.
	Sequence string `yaml:"sequence,omitempty" validate:"omitempty,oneof=replayable once"`
	// Preset names a match preset (package match: anthropic, openai,
	// gemini): what to leave out of an LLM API's request bodies so that a
	// newer SDK still matches what an older one recorded. The settings
	// above are laid over it. An unknown name is an error of `cassette
	// validate` and the proxy, naming its line.
	Preset string `yaml:"preset,omitempty"`
	// Empty is what verify makes of an HTTP cassette that records no
	// request (`interactions: []`, which go-vcr writes for a test that sent
	// none): pass (the default: nothing to compare) or fail.
	Empty string `yaml:"empty,omitempty" validate:"omitempty,oneof=pass fail"`
	// Scenarios override these settings for single scenarios, by name.
	Scenarios map[string]Match `yaml:"scenarios,omitempty" validate:"dive"`
}

// For returns the match settings of one scenario: the adapter's, with the
// fields the scenario's override sets replacing them.
func (m Match) For(scenario string) Match {
	o, ok := m.Scenarios[scenario]
	out := m
	out.Scenarios = nil
	if !ok {
		return out
	}
	if o.Headers != nil {
		out.Headers = o.Headers
	}
	if o.Body != "" {
		out.Body = o.Body
	}
	if o.Query != nil {
		out.Query = o.Query
	}
	if o.URLs != nil {
		out.URLs = o.URLs
	}
	if o.IgnoreQuery != nil {
		out.IgnoreQuery = o.IgnoreQuery
	}
	if o.IgnoreJSON != nil {
		out.IgnoreJSON = o.IgnoreJSON
	}
	if o.OnlyJSON != nil {
		out.OnlyJSON = o.OnlyJSON
	}
	if o.Sequence != "" {
		out.Sequence = o.Sequence
	}
	if o.Empty != "" {
		out.Empty = o.Empty
	}
	if o.Preset != "" {
		out.Preset = o.Preset
	}
	return out
}

// NormalizerDef is a project-defined normalizer: a regular expression with
// a replacement, JSONPaths whose values are replaced, or headers whose
// values are replaced.
type NormalizerDef struct {
	Regex     string   `yaml:"regex,omitempty"`
	Replace   string   `yaml:"replace,omitempty"`
	JSONPaths []string `yaml:"json_paths,omitempty"`
	Headers   []string `yaml:"headers,omitempty"`
}

// Refresh holds the scheduled refresh settings.
type Refresh struct {
	Schedule      string   `yaml:"schedule,omitempty"`
	TimeZone      string   `yaml:"timezone,omitempty"`
	Forge         Forge    `yaml:"forge,omitempty"`
	EscalateAfter int      `yaml:"escalate_after,omitempty" validate:"omitempty,min=1"`
	Base          string   `yaml:"base,omitempty"` // base branch of refresh PRs; default: the current branch
	Labels        []string `yaml:"labels,omitempty"`
}

// Forge is where refresh pushes branches and opens PRs and issues.
type Forge struct {
	Kind     string `yaml:"kind,omitempty" validate:"omitempty,oneof=github git"`
	Repo     string `yaml:"repo,omitempty"`
	TokenEnv string `yaml:"token_env,omitempty" validate:"omitempty,envname"`
	Remote   string `yaml:"remote,omitempty"`
	APIURL   string `yaml:"api_url,omitempty" validate:"omitempty,url"`
}

// Quarantine is a flaky-case quarantine entry (specs/000): all nine fields
// are required, the category is one of the FLAKE-* codes, and the window is
// at most 14 days.
type Quarantine struct {
	Category    string `yaml:"category" validate:"required,oneof=FLAKE-TIMING FLAKE-ENV FLAKE-NET FLAKE-RES FLAKE-EXT FLAKE-LOGIC"`
	Owner       string `yaml:"owner" validate:"required"`
	Quarantined Date   `yaml:"quarantined" validate:"required"`
	Expires     Date   `yaml:"expires" validate:"required"`
	Bead        string `yaml:"bead" validate:"required"`
	Evidence    string `yaml:"evidence" validate:"required"`
	Repro       string `yaml:"repro" validate:"required"`
	Reason      string `yaml:"reason" validate:"required"`
	RemoveWhen  string `yaml:"remove_when" validate:"required"`
}

// maxQuarantineDays is the longest quarantine window allowed.
const maxQuarantineDays = 14

// Expired reports whether the entry has expired at now (after its expiry day).
func (q Quarantine) Expired(now time.Time) bool {
	return now.UTC().Format(time.DateOnly) > q.Expires.String()
}

// CassetteDir is the directory holding the cassettes, resolved against the
// config's directory.
func (c *Config) CassetteDir() string {
	d := c.Cassettes
	if d == "" {
		d = "cassettes"
	}
	return ResolvePath(c.Dir, d)
}

// AdaptersOf are the names of the adapters of kind k, in the file's order.
func (c *Config) AdaptersOf(k Kind) []string {
	var out []string
	for _, n := range c.Order {
		if c.Adapters[n].Kind == k {
			out = append(out, n)
		}
	}
	return out
}

// Line returns the line of a field path in cassette.yaml (see Cassette.Line).
func (c *Config) Line(field string) int {
	if c.line == nil {
		return 0
	}
	return c.line(field)
}

// Date is a calendar day (YYYY-MM-DD), as quarantine entries carry them.
type Date struct{ time.Time }

// String renders the day as YYYY-MM-DD ("" for the zero Date).
func (d Date) String() string {
	if d.IsZero() {
		return ""
	}
	return d.Format(time.DateOnly)
}

// MarshalYAML writes YYYY-MM-DD.
func (d Date) MarshalYAML() (any, error) { return d.String(), nil }

// UnmarshalYAML reads YYYY-MM-DD.
func (d *Date) UnmarshalYAML(n *yaml.Node) error {
	t, err := time.Parse(time.DateOnly, strings.TrimSpace(n.Value))
	if err != nil {
		return ValueError(n, "expected a date like 2026-11-30, got %q", n.Value)
	}
	d.Time = t
	return nil
}

var interpolation = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// Expand replaces ${VAR} with lookup(VAR). It is used only where the design
// allows interpolation: real.headers, real.env, fake.base_url and fake.env.
// A variable that is not set expands to "" and is reported in missing.
func Expand(s string, lookup func(string) (string, bool)) (out string, missing []string) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	out = interpolation.ReplaceAllStringFunc(s, func(m string) string {
		name := m[2 : len(m)-1]
		v, ok := lookup(name)
		if !ok {
			missing = append(missing, name)
		}
		return v
	})
	return out, missing
}

// varsIn lists the ${VAR} names a string refers to.
func varsIn(s string) []string {
	var out []string
	for _, m := range interpolation.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}
