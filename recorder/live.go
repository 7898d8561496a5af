package recorder

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
)

// Live re-records committed cassettes against the real side of their
// adapter, from each cassette's own input: HTTP cassettes go to
// real.base_url with real.headers, CLI cassettes run their recorded
// command in real.dir with real.env, both with the live retry policy. It
// is what refresh re-records with, and what `cassette record` runs for a
// cassette that only its file describes.
type Live struct {
	Config    *cassettes.Config
	LookupEnv func(string) (string, bool) // nil is os.LookupEnv
	Recorder  cassettes.Recorder          // the build that records
	Now       func() time.Time            // recorded_at; nil is time.Now
	Transport http.RoundTripper           // HTTP; nil is the adapter's upstream transport
	Policy    *Policy                     // nil is the policy of specs/000
	// Intercept records the HTTP calls of a CLI cassette that has some;
	// nil is the recording proxy with the user's CA.
	Intercept InterceptFunc
	// CLITimeout bounds one CLI run; 0 is 10 minutes.
	CLITimeout time.Duration
	// AttemptTimeout bounds one live HTTP request; 0 is the recorder's
	// default (30 s).
	AttemptTimeout time.Duration
	// UpstreamCA, when set, replaces every adapter's real.ca_file (the
	// --upstream-ca flag).
	UpstreamCA string
	// Again is the command next steps print to record a cassette again;
	// "" is `cassette refresh --once --adapter NAME`.
	Again string
	// Warn receives the warning of an adapter that turns certificate checks
	// off (real.insecure_skip_verify), once per re-recording; nil discards.
	Warn io.Writer
}

// Rerecord records old again against the real side of adapter name,
// declared as a, and returns the new recording (with the live-call
// telemetry of an HTTP one).
func (l Live) Rerecord(ctx context.Context, name string, a *cassettes.Adapter, old *cassettes.Cassette) (Recording, error) {
	lookup := l.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	up := UpstreamOf(l.Config.Dir, name, a, l.UpstreamCA, lookup)
	if w := up.Warning(); w != "" && l.Warn != nil {
		fmt.Fprintln(l.Warn, w)
	}
	var tr *http.Transport
	if l.Transport == nil || (old.Kind == cassettes.KindCLI && l.Intercept == nil) {
		var err error
		if tr, err = up.Transport(); err != nil {
			return Recording{}, err
		}
		defer tr.CloseIdleConnections()
	}
	meta := Meta{Adapter: name, Recorder: l.Recorder, Now: l.Now}
	if old.Kind == cassettes.KindCLI {
		c, err := RerecordCLI(ctx, old, l.cliOptions(name, a, old, meta, lookup, tr))
		return Recording{Cassette: c}, err
	}
	var rt http.RoundTripper = tr
	if l.Transport != nil {
		rt = l.Transport
	}
	return RerecordHTTP(ctx, old, HTTPOptions{Meta: meta, BaseURL: cmp.Or(a.Real.BaseURL, recordedBase(old)), Headers: a.Real.Headers,
		Credentials: a.Real.Credentials, Rules: l.Config.Redaction(), LookupEnv: lookup, Transport: rt, Policy: l.Policy, AttemptTimeout: l.AttemptTimeout})
}

// cliOptions is how a CLI cassette of adapter a is run again: which
// command (real.command when the cassette was recorded through it), in
// which directory and environment, and whether behind the recording proxy
// (when the cassette holds HTTP interactions, or the adapter has a
// real.base_url its real.env may point at through the reverse proxy).
func (l Live) cliOptions(name string, a *cassettes.Adapter, old *cassettes.Cassette, meta Meta, lookup func(string) (string, bool), tr *http.Transport) CLIOptions {
	timeout := cmp.Or(l.CLITimeout, 10*time.Minute)
	opts := CLIOptions{Meta: meta, Dir: cassettes.ResolvePath(l.Config.Dir, a.Real.Dir), Env: ExpandEnv(a.Real.Env, lookup), Credentials: a.Real.Credentials,
		Rules: l.Config.Redaction(), LookupEnv: lookup, Timeout: timeout, Log: l.Warn, Again: cmp.Or(l.Again, "cassette refresh --once --adapter "+name)}
	// A cassette recorded through real.command keeps only the tool's name
	// in input.command: run real.command itself again.
	if old.Input != nil && len(a.Real.Command) > 0 && old.Input.Command == strings.Join(a.Real.Command, " ") {
		opts.RealCommand = a.Real.Command
	}
	if len(old.Interactions) > 0 || a.Real.BaseURL != "" {
		opts.Intercept = l.Intercept
		if opts.Intercept == nil { // a cli adapter's engine (reverse), or forward
			opts.Intercept = ProxyInterceptor(ProxyConfig{Upstream: a.Real.BaseURL, Transport: tr, AllowStatus: ExpectedStatuses(old)})
		}
	}
	return opts
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
