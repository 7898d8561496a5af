package observe

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/coverage"
	"github.com/cassette-dev/cassette/internal/nextstep"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/proxy"
	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// ProxyJob is `cassette proxy --mode observe`: an observing reverse proxy
// on Listen in front of Upstream, a fake the tests start themselves, each
// call written as a call to Adapter, until its context ends.
type ProxyJob struct {
	Listen, Upstream, Adapter string
	AllowRemote               bool
	// Load loads the project (after the flags are checked).
	Load func() (*workspace.Project, error)
	// Dir is where the observations go ($CASSETTE_OBSERVE_DIR); "" is a
	// run of this process's own in the project's .cassette/observed.
	Dir string
	// LookupEnv reads the credentials the observations are redacted of.
	LookupEnv func(string) (string, bool)
	// Notify wraps the context in one that ends at Ctrl-C; nil: none.
	Notify func(context.Context) (context.Context, context.CancelFunc)
	// Out gets the proxy's address, once it listens, and its last line.
	Out io.Writer
}

// Run serves until ctx (or Notify's context) ends.
func (j *ProxyJob) Run(ctx context.Context) error {
	target, err := url.Parse(j.Upstream)
	if j.Upstream == "" || err != nil || (target.Scheme != "http" && target.Scheme != "https") || target.Host == "" {
		next := outcome.Command("cassette", "proxy", "--mode", "observe", "--upstream", "http://127.0.0.1:8080", "--adapter", cmp.Or(j.Adapter, "NAME"))
		return outcome.Errorf(outcome.EUsage, next, "--mode observe needs --upstream, the fake's base URL (http:// or https://), got %q", j.Upstream)
	}
	if err := proxy.CheckListen(j.Listen, j.AllowRemote); err != nil {
		return err
	}
	p, err := j.Load()
	if err != nil {
		return err
	}
	a, err := j.adapter(p.Config)
	if err != nil {
		return err
	}
	dir, err := j.dir(p.Config)
	if err != nil {
		return err
	}
	w, err := coverage.OpenWriter(dir, "proxy-"+j.Adapter, "proxy")
	if err != nil {
		return &outcome.Error{Reason: outcome.EIO, Message: "cannot open the observation file", Err: err, NextStep: outcome.Command("ls", "-ld", dir)}
	}
	defer w.Close()
	rules, _ := coverage.NewRules(a)
	obs := &coverage.Observer{Adapter: j.Adapter, Kind: cfgschema.KindHTTP, Rules: rules, Writer: w, Redactor: redact.New(p.Redact, p.Credentials(j.LookupEnv))}
	px, err := proxy.New(proxy.Options{Mode: proxy.ModeObserve, Listen: j.Listen, AllowNonLoopback: j.AllowRemote, Upstream: j.Upstream, Observe: obs.Proxy(target)})
	if err != nil {
		return err
	}
	if err := px.Start(); err != nil {
		if ce, ok := err.(*outcome.Error); ok && ce.Err != nil {
			err = ce.Err // the listener's own error, under this command's next step
		}
		return &outcome.Error{Reason: outcome.EUsage, Message: "cannot listen on " + j.Listen, Err: err,
			NextStep: nextstep.Command(p.Config.Path, "cassette", "proxy", "--mode", "observe", "--upstream", j.Upstream, "--adapter", j.Adapter, "--listen", "127.0.0.1:0")}
	}
	fmt.Fprintf(j.Out, "cassette proxy: observe mode, listening on http://%s\n  calls to adapter %s's fake at %s are written to %s\n  press Ctrl-C to stop\n",
		px.Addr(), j.Adapter, j.Upstream, dir)
	if j.Notify != nil {
		var stop context.CancelFunc
		ctx, stop = j.Notify(ctx)
		defer stop()
	}
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = px.Shutdown(sctx)
	fmt.Fprintf(j.Out, "cassette proxy: stopped\nnext: cassette coverage\n")
	return err
}

// adapter is the http adapter the calls are written for.
func (j *ProxyJob) adapter(cfg *cfgschema.Config) (*cfgschema.Adapter, error) {
	a, ok := cfg.Adapters[j.Adapter]
	if ok && a.Kind == cfgschema.KindHTTP {
		return a, nil
	}
	https := cfg.AdaptersOf(cfgschema.KindHTTP)
	return nil, &outcome.Error{Reason: outcome.EUsage, Message: fmt.Sprintf("--adapter %q: --mode observe needs an http adapter declared in %s", j.Adapter, cfg.Path),
		Problems: []outcome.Problem{{File: cfg.Path, Line: cfg.Line("adapters"), Field: "adapters", Message: "declared: " + strings.Join(cfg.Order, ", "),
			Suggestion: outcome.Suggest(j.Adapter, cfg.Order)}},
		NextStep: j.step(cfg, cmp.Or(outcome.Closest(j.Adapter, https), firstOr(https, "")))}
}

// dir is where the observations go.
func (j *ProxyJob) dir(cfg *cfgschema.Config) (string, error) {
	if j.Dir != "" {
		return j.Dir, nil
	}
	root, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return "", err
	}
	return coverage.OwnRun(filepath.Join(root, filepath.FromSlash(coverage.ObservedDir)), time.Now(), os.Getpid()), nil // a run of its own
}

// step is the command that starts the observing proxy for an http adapter
// of the project, or, when it has none, the check of its config.
func (j *ProxyJob) step(cfg *cfgschema.Config, adapter string) string {
	if adapter == "" {
		return nextstep.Command(cfg.Path, "cassette", "validate")
	}
	return nextstep.Command(cfg.Path, "cassette", "proxy", "--mode", "observe", "--upstream", j.Upstream, "--adapter", adapter)
}
