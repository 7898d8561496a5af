package recording

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// Live re-records committed cassettes against the real side of their
// adapter, from each cassette's own input: HTTP cassettes go to
// real.base_url with real.headers (an adapter without real.base_url goes
// to the cassette's recorded host, and may then declare no real.headers), CLI
// cassettes run real.command with their recorded arguments and stdin in
// real.dir with real.env, both with the live retry policy. What runs and
// where credentials go come from cassette.yaml, never from a cassette. It
// is what refresh re-records with, and what `cassette record` runs for a
// cassette that only its file describes.
type Live struct {
	Config    *cfgschema.Config
	LookupEnv func(string) (string, bool) // nil is os.LookupEnv
	// Environ is the environment a CLI cassette's command inherits, less
	// the credentials of other adapters and of the forge; nil is
	// os.Environ().
	Environ   []string
	Recorder  cassettes.Recorder // the build that records
	Now       func() time.Time   // recorded_at; nil is time.Now
	Transport http.RoundTripper  // HTTP; nil is the adapter's upstream transport
	Policy    *Policy            // nil is the policy of specs/000
	// Intercept is the recording proxy every CLI re-recording runs behind;
	// nil is the proxy with the CA kept in CADir (reverse in front of
	// real.base_url when the adapter has one, forward otherwise).
	Intercept InterceptFunc
	// CADir is where the forward proxy's CA is kept; "" is
	// proxy.DefaultCADir().
	CADir string
	// CLITimeout bounds one CLI run; 0 is 10 minutes.
	CLITimeout time.Duration
	// AttemptTimeout bounds one live HTTP request; 0 is the recorder's
	// default (30 s).
	AttemptTimeout time.Duration
	// UpstreamCA, when set, replaces every adapter's real.ca_file (the
	// --upstream-ca flag).
	UpstreamCA string
	// AllowProjectRepo lets git or gh run in a real.dir inside the
	// project's own repository (--allow-project-repo; see CheckRealDir).
	AllowProjectRepo bool
	// Again is the command next steps print to record a cli cassette
	// again; "" is `cassette refresh --once --adapter NAME`.
	Again string
	// AgainArgs are the flags that `cassette record --adapter A --scenario
	// S`, the next step of an http cassette, must repeat ("" derives them
	// from AttemptTimeout and UpstreamCA).
	AgainArgs string
	// Warn receives the warning of an adapter that turns certificate checks
	// off (real.insecure_skip_verify), once per re-recording; nil discards.
	Warn io.Writer
	// HoldClients leaves an HTTP re-recording's connections to the real
	// side open when Rerecord returns, for Recording.Release to close:
	// learn makes each repeat of a scenario a new client of the real side
	// while the earlier ones are still connected, as clients are in
	// production (docs/learn.md). A CLI re-recording's command is a client
	// of its own that exits; its connections are closed.
	HoldClients bool
}

// Rerecord records old again against the real side of adapter name,
// declared as a, and returns the new recording (with the live-call
// telemetry of an HTTP one).
func (l Live) Rerecord(ctx context.Context, name string, a *cfgschema.Adapter, old *cassettes.Cassette) (Recording, error) {
	lookup := l.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	up := UpstreamOf(l.Config.Dir, name, a, l.UpstreamCA, lookup)
	if w := up.Warning(); w != "" && l.Warn != nil {
		fmt.Fprintln(l.Warn, w)
	}
	var tr *http.Transport
	if l.Transport == nil || (old.Kind == cfgschema.KindCLI && l.Intercept == nil) {
		var err error
		if tr, err = up.Transport(); err != nil {
			return Recording{}, err
		}
		if !l.HoldClients || old.Kind == cfgschema.KindCLI {
			defer tr.CloseIdleConnections()
		}
	}
	meta := Meta{Adapter: name, Recorder: l.Recorder, Now: l.Now}
	if old.Kind == cfgschema.KindCLI {
		return l.rerecordCLI(ctx, name, a, old, l.cliOptions(name, a, old, meta, lookup, tr))
	}
	if a.Real.BaseURL == "" && len(a.Real.Headers) > 0 {
		return Recording{}, l.noBaseURL(name, old)
	}
	var rt http.RoundTripper = tr
	if l.Transport != nil {
		rt = l.Transport
	}
	rec, err := RerecordHTTP(ctx, old, HTTPOptions{Meta: meta, BaseURL: cmp.Or(a.Real.BaseURL, recordedBase(old)), Headers: a.Real.Headers,
		Credentials: a.Real.Credentials, Rules: l.Config.Redaction(), LookupEnv: lookup, Transport: rt, Policy: l.Policy, AttemptTimeout: l.AttemptTimeout,
		AgainArgs: l.againArgs(), Hold: l.HoldClients})
	if l.HoldClients && tr != nil {
		unix := rec.Release // a unix socket's own clone of tr
		rec.Release = func() {
			if unix != nil {
				unix()
			}
			tr.CloseIdleConnections()
		}
	}
	return rec, err
}

// rerecordCLI runs real.command again with old's arguments and stdin, as
// opts says, reading its outcome with the command's fault signatures.
func (l Live) rerecordCLI(ctx context.Context, name string, a *cfgschema.Adapter, old *cassettes.Cassette, opts CLIOptions) (Recording, error) {
	if len(a.Real.Command) == 0 {
		return Recording{}, l.noRealCommand(name, old)
	}
	if err := CheckRealDir(ctx, l.Config, name, a.Real.Command, opts.Dir, l.AllowProjectRepo); err != nil {
		return Recording{}, err
	}
	var err error
	if opts.Faults, err = FaultsOf(a.Real.Command[0], a); err != nil {
		return Recording{}, err
	}
	c, err := RerecordCLI(ctx, old, opts)
	if c != nil && !keepsInteractions(a, old) {
		c.Interactions = nil
	}
	return Recording{Cassette: c}, err
}

// againArgs are the flags of this run that the command recording a
// cassette again must repeat: the same time limit and the same CA.
func (l Live) againArgs() string {
	if l.AgainArgs != "" {
		return l.AgainArgs
	}
	var words []string
	if l.AttemptTimeout > 0 {
		words = append(words, "--timeout", l.AttemptTimeout.String())
	}
	if l.UpstreamCA != "" {
		words = append(words, "--upstream-ca", l.UpstreamCA)
	}
	if len(words) == 0 {
		return ""
	}
	return " " + outcome.Command(words...)
}

// cliOptions is how a CLI cassette of adapter a is run again: which
// command (real.command, whatever the cassette names), in which directory
// and environment (the credentials declared by other adapters and the
// forge's token left out: each real command gets its own), and behind
// which recording proxy: always one, so that the real side failing is seen
// whether or not the cassette holds HTTP interactions (reverse in front of
// real.base_url when the adapter has one, for its real.env to point at;
// forward otherwise).
func (l Live) cliOptions(name string, a *cfgschema.Adapter, old *cassettes.Cassette, meta Meta, lookup func(string) (string, bool), tr *http.Transport) CLIOptions {
	timeout := cmp.Or(l.CLITimeout, 10*time.Minute)
	environ := l.Environ
	opts := CLIOptions{Meta: meta, Dir: cfgschema.ResolvePath(l.Config.Dir, a.Real.Dir), Env: ExpandEnv(a.Real.Env, lookup), Credentials: a.Real.Credentials,
		Rules: l.Config.Redaction(), LookupEnv: lookup, Environ: RecordingEnviron(l.Config, a, environ), Withheld: withheldVars(l.Config, a), Timeout: timeout, Log: l.Warn,
		Again: cmp.Or(l.Again, outcome.Command("cassette", "refresh", "--once", "--adapter", name)+l.againArgs())}
	// What runs is real.command, from cassette.yaml, never input.command:
	// RerecordCLI refuses a cassette that names another program.
	opts.RealCommand = a.Real.Command
	opts.Intercept = l.Intercept
	if opts.Intercept == nil { // a cli adapter's engine (reverse), or forward
		opts.Intercept = ProxyInterceptor(ProxyConfig{Upstream: a.Real.BaseURL, CADir: l.CADir, Transport: tr, AllowStatus: ExpectedStatuses(old)})
	}
	return opts
}

// keepsInteractions reports whether a re-recording of old keeps the HTTP
// interactions its command made: where the adapter keeps them (it has a
// real.base_url, or the committed cassette holds some). A cassette
// recorded without them (imported, recorded before interception, a tool
// that reached its service past the proxy) stays without them: the proxy
// was there to see the real side fail, not to change what is compared.
func keepsInteractions(a *cfgschema.Adapter, old *cassettes.Cassette) bool {
	return a.Real.BaseURL != "" || len(old.Interactions) > 0
}

// RecordingEnviron is the environment a command recorded for adapter a
// inherits (from environ; nil is os.Environ()): all of it but the
// credential variables that other adapters declare and the forge's token,
// unless a declares them too. Each real command gets its own credentials
// only, whether `cassette record -- CMD` runs it or refresh runs it again.
func RecordingEnviron(cfg *cfgschema.Config, a *cfgschema.Adapter, environ []string) []string {
	if environ == nil {
		environ = os.Environ()
	}
	return cfgschema.WithoutVars(environ, withheldVars(cfg, a))
}

// withheldVars are the credential variables a command recorded for
// adapter a does not get: those other adapters declare and the forge's
// token, unless a declares them too. Their values are still scrubbed from
// what it records (CLIOptions.Withheld, Session's Redactor).
func withheldVars(cfg *cfgschema.Config, a *cfgschema.Adapter) []string {
	return slices.DeleteFunc(cfg.SecretVars(), func(n string) bool { return slices.Contains(a.Real.Credentials, n) })
}

// noRealCommand is the error of a CLI cassette whose adapter declares no
// real.command: nothing can be run, since a cassette's own input.command is
// never run.
func (l Live) noRealCommand(name string, old *cassettes.Cassette) error {
	field := "adapters." + name + ".real.command"
	line := l.Config.Line("adapters." + name + ".real")
	if line == 0 {
		line = l.Config.Line("adapters." + name)
	}
	return &outcome.Error{Reason: outcome.ECfgParse,
		Message: fmt.Sprintf("%s cannot be recorded again: adapter %s declares no real.command, and the command a cassette names is never run (set %s in %s)", old.ID(), name, field, l.Config.Path),
		Problems: []outcome.Problem{{File: l.Config.Path, Line: line, Field: field, Message: "not set",
			Expected: "the real tool the cassettes were recorded with, e.g. command: [gh]"}},
		NextStep: l.validateStep()}
}

// noBaseURL is the error of an HTTP cassette whose adapter sends
// real.headers (credentials) but declares no real.base_url: the host would
// come from the cassette, and a cassette never chooses where credentials
// go.
func (l Live) noBaseURL(name string, old *cassettes.Cassette) error {
	field := "adapters." + name + ".real.base_url"
	return &outcome.Error{Reason: outcome.ECfgParse,
		Message: fmt.Sprintf("%s is not recorded again: adapter %s sends real.headers but declares no real.base_url, and a cassette never chooses the host its credentials go to (set %s in %s)", old.ID(), name, field, l.Config.Path),
		Problems: []outcome.Problem{{File: l.Config.Path, Line: l.Config.Line("adapters." + name + ".real"), Field: field, Message: "not set",
			Expected: "the service's URL, e.g. base_url: https://api.example.com"}},
		NextStep: l.validateStep()}
}

// recordedBase is the scheme and host of a cassette's first recorded
// request: where an adapter without real.base_url (recorded through the
// proxy) is re-recorded.
func recordedBase(c *cassettes.Cassette) string {
	for _, it := range c.Interactions {
		if u, err := url.Parse(it.Request.URL); err == nil && u.Host != "" {
			return u.Scheme + "://" + u.Host
		}
	}
	return ""
}

// validateStep is `cassette validate` for this config: the check to run
// once the config is fixed.
func (l Live) validateStep() string {
	if l.Config.Path == "" || l.Config.Path == cfgschema.ConfigFile {
		return outcome.Command("cassette", "validate")
	}
	return outcome.Command("cassette", "validate", "--config", l.Config.Path)
}
