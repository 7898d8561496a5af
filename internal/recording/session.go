package recording

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// Session is one recording job: one adapter of a loaded project, recorded
// by `cassette record` (a command, the declared scenarios, or a
// cassette's own input again) or `cassette proxy --mode record`. It is
// built from the project once (NewSession) and holds what every recording
// of the job shares, which the command line used to pass as ten
// parameters: the adapter, the redactor (the project's rules, the
// adapter's credential values, and what the job learns), the metadata the
// cassettes get, the transport to the real side, the signals that
// interrupt it, and the environment a recorded command inherits
// (RecordingEnviron: its own adapter's credentials only).
type Session struct {
	Project  *workspace.Project
	Name     string // the adapter's name
	Adapter  *cfgschema.Adapter
	Meta     Meta
	Redactor *redact.Redactor
	// Dir is the adapter's cassette directory, cassettes/<adapter>.
	Dir string
	// Transport reaches the real side with the adapter's TLS settings and
	// the corporate proxy (UpstreamOf); nil until Dial.
	Transport *http.Transport
	// Interrupts are the SIGINT and SIGTERM the job holds while it writes;
	// nil until CatchInterrupts.
	Interrupts *Interrupts
	// Step renders a next step for this project (the command line names
	// the --config the user gave); nil is outcome.Command.
	Step func(words ...string) string
	// Log receives what the recording has to say beside a command's own
	// output (notes, calls left out); nil discards.
	Log io.Writer

	upstreamCA string
	lookup     func(string) (string, bool)
}

// SessionOptions are what differs between two jobs of one project.
type SessionOptions struct {
	Scenario   string             // the cassette's scenario, when the job records one
	Recorder   cassettes.Recorder // the build that records
	UpstreamCA string             // replaces the adapter's real.ca_file (--upstream-ca)
	// LookupEnv reads the credential values; nil is os.LookupEnv.
	LookupEnv func(string) (string, bool)
}

// NewSession starts a recording job on adapter name of project p. Without
// a project (p nil: `cassette proxy` runs without cassette.yaml) or for an
// adapter it does not declare, the job has an empty declaration: the
// built-in credential names and key formats are redacted, no declared
// value.
func NewSession(p *workspace.Project, name string, o SessionOptions) *Session {
	a := &cfgschema.Adapter{}
	var rules *redact.Rules
	var others []string
	dir := ""
	if p != nil {
		if decl, ok := p.Config.Adapters[name]; ok {
			a = decl
		}
		rules, dir = p.Config.Redaction(), filepath.Join(p.Config.CassetteDir(), name)
		others = withheldVars(p.Config, a)
	}
	return &Session{Project: p, Name: name, Adapter: a,
		Meta:     Meta{Adapter: name, Scenario: o.Scenario, Normalizers: a.Normalizers, Recorder: o.Recorder},
		Redactor: redact.New(rules, Credentials(append(slices.Clone(a.Real.Credentials), others...), o.LookupEnv)),
		Dir:      dir, upstreamCA: o.UpstreamCA, lookup: o.LookupEnv}
}

// Dial builds the transport to the real side and returns what its
// settings warn of ("" when nothing: certificate checks turned off are).
func (s *Session) Dial() (warning string, err error) {
	up := UpstreamOf(s.Project.Config.Dir, s.Name, s.Adapter, s.upstreamCA, s.lookup)
	s.Transport, err = up.Transport()
	return up.Warning(), err
}

// CatchInterrupts starts holding SIGINT and SIGTERM for the job (see
// Interrupts); Close gives them back.
func (s *Session) CatchInterrupts() { s.Interrupts = CatchInterrupts() }

// Close ends the job: idle connections closed, signals given back.
func (s *Session) Close() {
	if s.Transport != nil {
		s.Transport.CloseIdleConnections()
	}
	if s.Interrupts != nil {
		s.Interrupts.Release()
	}
}

// Interrupted is the signal that stopped the job, nil when none did.
func (s *Session) Interrupted() os.Signal {
	if s.Interrupts == nil {
		return nil
	}
	return s.Interrupts.Signal()
}

// ProxySave is how a recording proxy of this job saves what it recorded
// at path (again: the command that records it again).
func (s *Session) ProxySave(path, again string) *ProxySave {
	return &ProxySave{Meta: s.Meta, Path: path, Redactor: s.Redactor, Again: again}
}

// Path is the cassette of scenario in the adapter's directory.
func (s *Session) Path(scenario string) string { return filepath.Join(s.Dir, scenario+".yaml") }

// Environ is the environment a command recorded in this job inherits.
func (s *Session) Environ() []string {
	if s.Project == nil {
		return os.Environ() // no project: no adapter declares a credential
	}
	return RecordingEnviron(s.Project.Config, s.Adapter, nil)
}

// withheld are the credential variables the job's commands do not get
// (withheldVars).
func (s *Session) withheld() []string {
	if s.Project == nil {
		return nil
	}
	return withheldVars(s.Project.Config, s.Adapter)
}

func (s *Session) step(words ...string) string {
	if s.Step != nil {
		return s.Step(words...)
	}
	return outcome.Command(words...)
}

func (s *Session) logf(format string, args ...any) {
	if s.Log != nil {
		fmt.Fprintf(s.Log, format, args...)
	}
}

// Lock takes the write lock of each cassette the job will write (see
// workspace.LockCassette): another recorder of one of them, or an import
// of the adapter, is E_LOCKED (its next step again, when given) before
// anything runs. The returned func releases them.
func (s *Session) Lock(again string, paths ...string) (func(), error) {
	var held []*workspace.Lock
	release := func() {
		for _, l := range held {
			l.Unlock()
		}
	}
	for _, path := range paths {
		l, err := workspace.LockCassette(s.Project.Config.Dir, s.Dir, path)
		if err != nil {
			release()
			if ce, ok := err.(*outcome.Error); ok && ce.Reason == outcome.ELocked && again != "" {
				ce.NextStep = again
			}
			return nil, err
		}
		held = append(held, l)
	}
	return release, nil
}

// Save writes a recorded cassette at path through the scanning, atomic
// save, which keeps it inside the project root, and says whether it was
// "recorded" or "re-recorded".
func (s *Session) Save(c *cassettes.Cassette, path string) (verb string, err error) {
	verb = "recorded"
	if _, err := os.Stat(path); err == nil {
		verb = "re-recorded"
	}
	c.Path = path
	opts := cassettes.SaveOptionsFor(s.Redactor)
	if s.Project != nil {
		opts.Root = s.Project.Config.Dir
	}
	return verb, cassettes.Save(c, opts)
}

// CommandRun is one command `cassette record -- COMMAND` records.
type CommandRun struct {
	Command     []string
	Stdin       []byte
	BaseURL     string        // --base-url: the real side its HTTP goes to, instead of real.base_url
	AllowStatus []int         // failing statuses answered on purpose
	Timeout     time.Duration // bounds the command
	Mutating    bool
	// Stdout and Stderr receive the command's output once it exited,
	// redacted; nil is quiet.
	Stdout, Stderr io.Writer
	Again          string // the command that records it again, for next steps
}

// RecordCommand runs the command once behind the recording proxy, in the
// adapter's real.dir and real.env, with the job's environment, and returns
// the cassette: a cli adapter's keeps the command's input and output and
// its calls; an http adapter's keeps only the calls to its own host (the
// others are named on Log).
func (s *Session) RecordCommand(ctx context.Context, run CommandRun) (*cassettes.Cassette, error) {
	a, command := s.Adapter, run.Command
	meta := s.Meta
	opts := CLIOptions{Meta: meta, Command: command[0], Args: command[1:], Dir: cfgschema.ResolvePath(s.Project.Config.Dir, a.Real.Dir), Env: ExpandEnv(a.Real.Env, nil), Stdin: run.Stdin,
		Environ: s.Environ(), Credentials: a.Real.Credentials, Withheld: s.withheld(), Rules: s.Project.Config.Redaction(), Timeout: run.Timeout, Again: run.Again, Log: s.Log,
		Intercept: ProxyInterceptor(ProxyConfig{Upstream: cliUpstream(a, run.BaseURL), Transport: s.Transport, AllowStatus: run.AllowStatus})}
	if s.Interrupts != nil {
		opts.Signals = s.Interrupts.C()
	}
	var err error
	if opts.Faults, err = FaultsOf(command[0], a); err != nil {
		return nil, err
	}
	if a.Kind == cfgschema.KindHTTP { // its cassette holds the calls to its host only (SplitHosts)
		opts.BaseURL = cmp.Or(run.BaseURL, a.Real.BaseURL)
	}
	opts.Stdout, opts.Stderr = run.Stdout, run.Stderr
	c, err := RecordCLI(ctx, opts)
	if err != nil {
		return nil, err
	}
	s.inputOf(c, command)
	c.Mutating = run.Mutating
	if a.Kind == cfgschema.KindHTTP {
		return s.keepHTTP(c, run)
	}
	return c, nil
}

// inputOf sets input.args to the arguments after the tool itself: when
// the command starts with the adapter's real.command, that prefix is the
// tool, so that verify can run fake.command with the same arguments.
func (s *Session) inputOf(c *cassettes.Cassette, command []string) {
	a := s.Adapter
	if n := len(a.Real.Command); n > 0 && len(command) >= n && c.Input != nil && slices.Equal(command[:n], a.Real.Command) {
		c.Input.Command = strings.Join(a.Real.Command, " ")
		c.Input.Args = append([]string(nil), command[n:]...)
	} else if a.Kind == cfgschema.KindCLI {
		s.logf("note: this command does not start with real.command of adapter %s (%q): refresh and `cassette record` without a command will refuse to record the cassette again (they run only real.command), and `cassette validate` refuses it\n",
			s.Name, strings.Join(a.Real.Command, " "))
	}
}

// keepHTTP makes the recording of an http adapter's command its calls to
// the adapter's host.
func (s *Session) keepHTTP(c *cassettes.Cassette, run CommandRun) (*cassettes.Cassette, error) {
	a, cfg, command := s.Adapter, s.Project.Config, run.Command
	c.Kind, c.Input, c.Output = cfgschema.KindHTTP, nil, nil
	if len(c.Interactions) == 0 {
		next := s.step("cassette", "proxy", "--help")
		if up := cmp.Or(run.BaseURL, a.Real.BaseURL); up != "" {
			next = s.step("cassette", "proxy", "--mode", "record", "--upstream", up, "--cassette", s.Path(s.Meta.Scenario))
		}
		return nil, outcome.Errorf(outcome.EUsage, next,
			"%s made no HTTP(S) request through the proxy; nothing to record for http adapter %s (a client that ignores HTTPS_PROXY, as Go programs do for loopback hosts, can be pointed at a recording proxy in front of the service instead)", command[0], s.Name)
	}
	kept, host, others := SplitHosts(c.Interactions, cmp.Or(run.BaseURL, a.Real.BaseURL)) // --base-url overrides real.base_url
	if len(others) > 0 {
		s.logf("not recorded in %s/%s: calls to hosts other than %s, the adapter's (%s); record each service under its own adapter\n", s.Name, s.Meta.Scenario, host, hostCounts(others))
	}
	if len(kept) == 0 {
		field := "adapters." + s.Name + ".real.base_url"
		return nil, &outcome.Error{Reason: outcome.EUsage,
			Message:  fmt.Sprintf("%s made no HTTP(S) request to %s, the host of adapter %s; it called %s (fix real.base_url of adapter %s in %s, or call its host)", command[0], host, s.Name, hostCounts(others), s.Name, cfg.Path),
			Problems: []outcome.Problem{{File: cfg.Path, Line: cfg.Line(field), Field: field, Message: "the host the adapter's cassettes hold calls to", Expected: "the service the command calls"}},
			NextStep: s.step("cassette", "validate")}
	}
	c.Interactions = kept
	return c, nil
}

// cliUpstream is the base URL a cli adapter's command reaches its server
// at (override, else real.base_url): its HTTP is then recorded through a
// reverse proxy in front of it. "" (any http adapter, or none declared)
// records through the forward proxy.
func cliUpstream(a *cfgschema.Adapter, override string) string {
	if a.Kind != cfgschema.KindCLI {
		return ""
	}
	return cmp.Or(override, a.Real.BaseURL)
}

// ScenariosRun is the declared scenarios `cassette record` (no command)
// sends to the real side.
type ScenariosRun struct {
	Scenarios      []Scenario
	BaseURL        string        // --base-url, instead of real.base_url
	AttemptTimeout time.Duration // bounds each live request; 0 is the default
	AgainArgs      string        // the flags a next step repeats
}

// RecordScenarios sends each scenario to the real side with real.headers
// (see RecordHTTP).
func (s *Session) RecordScenarios(ctx context.Context, run ScenariosRun) ([]Recording, error) {
	a := s.Adapter
	return RecordHTTP(ctx, HTTPOptions{Meta: s.Meta, BaseURL: cmp.Or(run.BaseURL, a.Real.BaseURL), Headers: a.Real.Headers, Credentials: a.Real.Credentials,
		Rules: s.Project.Config.Redaction(), Scenarios: run.Scenarios, Transport: s.Transport, AttemptTimeout: run.AttemptTimeout, AgainArgs: run.AgainArgs})
}

// AgainRun is a committed cassette `cassette record` records again from
// its own input, as refresh does.
type AgainRun struct {
	BaseURL        string // --base-url, instead of real.base_url
	Again          string // the command that records it again
	AgainArgs      string // the flags a next step repeats
	AttemptTimeout time.Duration
	CLITimeout     time.Duration
	// AllowProjectRepo is --allow-project-repo (Live.AllowProjectRepo).
	AllowProjectRepo bool
}

// RecordAgain records old again from its own input, with the job's
// transport when it was dialled, else one dialled for this re-recording,
// and the job's credential lookup (see Live.Rerecord). `cassette record`
// of a cassette and refresh's re-recordings both come here.
func (s *Session) RecordAgain(ctx context.Context, old *cassettes.Cassette, run AgainRun) (Recording, error) {
	a := s.Adapter
	if run.BaseURL != "" {
		ac := *a
		ac.Real.BaseURL = run.BaseURL
		a = &ac
	}
	live := Live{Config: s.Project.Config, LookupEnv: s.lookup, Recorder: s.Meta.Recorder, Again: run.Again + run.AgainArgs, AgainArgs: run.AgainArgs,
		UpstreamCA: s.upstreamCA, AttemptTimeout: run.AttemptTimeout, CLITimeout: run.CLITimeout, AllowProjectRepo: run.AllowProjectRepo}
	if s.Transport != nil { // undialled: Live dials for each re-recording (a nil *http.Transport is not a nil RoundTripper)
		live.Transport = s.Transport
	}
	return live.Rerecord(ctx, s.Name, a, old)
}

// hostCounts renders {host: n} as "a.example.com (2 calls), b.example.com (1 call)".
func hostCounts(m map[string]int) string {
	var parts []string
	for _, h := range slices.Sorted(maps.Keys(m)) {
		unit := "calls"
		if m[h] == 1 {
			unit = "call"
		}
		parts = append(parts, fmt.Sprintf("%s (%d %s)", h, m[h], unit))
	}
	return strings.Join(parts, ", ")
}
