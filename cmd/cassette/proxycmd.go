package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/match"
	"github.com/cassette-dev/cassette/outcome"
	"github.com/cassette-dev/cassette/proxy"
	"github.com/cassette-dev/cassette/recorder"
)

type proxyOptions struct {
	mode, listen, upstream, cassette, adapter, caDir string
	upstreamCA                                       string
	allowRemote, replayable, latency, ignoreHost     bool
	matchHeaders                                     []string
	matchBody                                        string
	maxRequestBody                                   int64
	allowStatus                                      []int
	match                                            matchFlags
}

func newProxyCmd(stdio *IO, g *globals) *cobra.Command {
	o := &proxyOptions{}
	cmd := &cobra.Command{
		Use:   "proxy --mode record|replay|passthrough --cassette PATH",
		Short: "Run the intercepting proxy: record, replay or pass through HTTP(S)",
		Long: `proxy serves until Ctrl-C (SIGINT or SIGTERM); in a recording mode it then
saves what it recorded to --cassette and exits 0.

Without --upstream it is a forward proxy with HTTPS interception (HTTP/1.1 and
HTTP/2): point a client at it with HTTPS_PROXY and trust the CA (see
'cassette ca show'). With --upstream it is a reverse proxy listening on a
local port, for clients that cannot use a proxy.

Replay fails closed: a request that matches no recorded interaction gets a
599 response (X-Cassette-Miss: replay, X-Should-Retry: false, which SDKs that
retry 5xx honour) naming the closest recorded request and what differs —
never a pass-through to the network.

Modes: record, replay, passthrough, record-once (replay if the cassette
exists, else record), replay-with-new-episodes (replay what matches, record
the rest), observe (--upstream is a fake the tests start themselves; each
call to it is written for 'cassette coverage' as a call to --adapter).`,
		Example: `  cassette proxy --mode record --cassette cassettes/github/session.yaml
  cassette proxy --mode replay --cassette cassettes/github --listen 127.0.0.1:8080
  cassette proxy --mode record --upstream https://api.example.com --cassette cassettes/example/s.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return proxyRun(cmd.Context(), stdio, g, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.mode, "mode", "replay", "record, replay, passthrough, record-once, replay-with-new-episodes or observe")
	f.StringVar(&o.listen, "listen", "127.0.0.1:0", "address to listen on (loopback unless --allow-non-loopback)")
	f.BoolVar(&o.allowRemote, "allow-non-loopback", false, "allow a non-loopback --listen address (the proxy then serves anyone who can reach it)")
	f.StringVar(&o.upstream, "upstream", "", "reverse-proxy to this base URL (http, https, or unix:///path for a unix socket) instead of being a forward proxy")
	f.StringVar(&o.cassette, "cassette", "", "cassette file (record) or file or directory (replay)")
	f.StringVar(&o.adapter, "adapter", "", "adapter whose credentials are redacted (default: from the cassette path)")
	f.StringVar(&o.upstreamCA, "upstream-ca", "", "PEM file of the CA that signed the real service's certificate (replaces the adapter's real.ca_file)")
	f.StringVar(&o.caDir, "ca-dir", "", "CA directory (default $CASSETTE_CA_DIR or the user config dir)")
	f.StringSliceVar(&o.matchHeaders, "match-header", nil, "request headers that must also match on replay (repeatable)")
	f.StringVar(&o.matchBody, "match-body", "raw", "request body matching: raw, json or ignore")
	f.BoolVar(&o.ignoreHost, "ignore-host", false, "match recorded requests whatever their scheme and host")
	f.BoolVar(&o.replayable, "replayable", false, "serve the last response again once a sequence is used up")
	f.BoolVar(&o.latency, "latency", false, "replay with the recorded latency; a recorded stream (SSE, NDJSON) event by event, at the recorded times (spread evenly over its duration when it has none, as in go-vcr files)")
	f.Int64Var(&o.maxRequestBody, "max-request-body", proxy.DefaultMaxRequestBody, "largest request body (bytes) the proxy buffers to record or match; a larger one is answered 413")
	f.IntSliceVar(&o.allowStatus, "allow-status", nil, "record: a failing status (408, 429, 5xx) the upstream answers on purpose; record it instead of refusing the recording (repeatable)")
	o.match.bind(f)
	return cmd
}

func proxyRun(ctx context.Context, stdio *IO, g *globals, o *proxyOptions) error {
	if o.mode == "observe" {
		return observeProxyRun(ctx, stdio, g, o.listen, o.upstream, o.adapter, o.allowRemote)
	}
	mode, err := o.check()
	if err != nil {
		return err
	}
	adapter, scenario := o.target()
	indexed := lowGC() // until the cassettes are loaded and indexed
	defer indexed()
	p, err := optionalProject(g)
	if err != nil {
		return err
	}
	opts, err := o.proxyOptions(stdio, p, mode, adapter)
	if err != nil {
		return err
	}
	ver, sha := buildInfo()
	s := recorder.NewSession(p.loaded(), adapter, recorder.SessionOptions{Scenario: scenario, Recorder: cassettes.Recorder{Version: ver, SHA: sha}})
	opts.Redact = s.Redactor
	var save *recorder.ProxySave
	if mode != proxy.ModeReplay && mode != proxy.ModePassthrough {
		save = s.ProxySave(o.cassette, proxyAgain(o))
		if len(opts.Cassettes) == 1 && mode == proxy.ModeReplayWithNewEpisodes {
			save.Before = opts.Cassettes[0].Interactions
		}
		unlock, err := o.claim(p, save, scenario)
		if err != nil {
			return err
		}
		defer unlock()
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serveProxy(ctx, stdio.Out, opts, save, indexed)
}

// loadGCPercent is the GC target while the proxy loads and indexes its
// cassettes: the Go default (100) let the heap grow to twice what a large
// cassette set keeps (100,000 interactions: ~240 MB kept, ~400 MB
// resident); at 25 the peak was ~60 MB lower for 3.5% more start-up time
// (interleaved medians of 5).
const loadGCPercent = 25

// lowGC sets the GC target to loadGCPercent (unless GOGC asks for less)
// and returns what restores it, once.
func lowGC() func() {
	prev := debug.SetGCPercent(loadGCPercent)
	if prev < loadGCPercent { // GOGC=off or lower: the user's
		debug.SetGCPercent(prev)
	}
	return sync.OnceFunc(func() { debug.SetGCPercent(prev) })
}

// claim checks where a recording proxy will save, before it listens: in
// a project, inside it (its symlinks resolved); a scenario name that
// keeps the name rule; and the cassette's write lock, held until the proxy
// has saved (another process recording into it is E_LOCKED).
func (o *proxyOptions) claim(p *project, save *recorder.ProxySave, scenario string) (func(), error) {
	root := "."
	if p != nil {
		root = p.cfg.Dir
		if resolved, ok := cassettes.Within(root, o.cassette); !ok {
			return nil, &outcome.Error{Reason: outcome.EUsage,
				Message:  fmt.Sprintf("--cassette %s is outside the project %s (it resolves to %s): a recording is saved inside the project it belongs to", outcome.Printable(o.cassette), outcome.Printable(root), outcome.Printable(resolved)),
				NextStep: commandWithConfig(p.cfg.Path, proxyWords(o, filepath.Join(p.cfg.CassetteDir(), save.Adapter, filepath.Base(o.cassette)))...)}
		}
		save.Root = root
	}
	if !cassettes.ValidName(scenario) {
		next := outcome.Command("cassette", "proxy", "--help")
		if name := cassettes.WildName(scenario); name != "" {
			next = outcome.Command(proxyWords(o, filepath.Join(filepath.Dir(o.cassette), name+".yaml"))...)
			if p != nil {
				next = commandWithConfig(p.cfg.Path, proxyWords(o, filepath.Join(filepath.Dir(o.cassette), name+".yaml"))...)
			}
		}
		return nil, &outcome.Error{Reason: outcome.EUsage, NextStep: next,
			Message:  fmt.Sprintf("--cassette %s: %q is not a valid scenario name", outcome.Printable(o.cassette), scenario),
			Problems: []outcome.Problem{{Field: "--cassette", Message: "its file name is the scenario", Expected: cassettes.ScenarioRule}}}
	}
	lock, err := cassettes.LockCassette(root, filepath.Dir(o.cassette), o.cassette)
	if err != nil {
		if ce, ok := err.(*outcome.Error); ok && ce.Reason == outcome.ELocked {
			ce.NextStep = proxyAgain(o)
		}
		return nil, err
	}
	return lock.Unlock, nil
}

// check checks the flags that do not need the project, and returns the mode.
func (o *proxyOptions) check() (proxy.Mode, error) {
	mode, err := proxy.ParseMode(o.mode)
	if err != nil {
		return mode, err
	}
	if o.cassette == "" && mode != proxy.ModePassthrough {
		return mode, outcome.Errorf(outcome.EUsage, outcome.Command("cassette", "proxy", "--help"), "--cassette is required in %s mode (a file cassettes/<adapter>/<scenario>.yaml, or for replay a directory)", mode)
	}
	if recording := mode != proxy.ModeReplay && mode != proxy.ModePassthrough; recording && !strings.HasSuffix(o.cassette, ".yaml") {
		return mode, outcome.Errorf(outcome.EUsage, outcome.Command("cassette", "proxy", "--mode", o.mode, "--cassette", strings.TrimSuffix(strings.TrimSuffix(o.cassette, "/"), ".yml")+".yaml"),
			"--cassette must name a .yaml file to record into, got %q", o.cassette)
	}
	switch o.matchBody {
	case "raw", "json", "ignore":
	default:
		return mode, outcome.Errorf(outcome.EUsage, outcome.Command("cassette", "proxy", "--help"), "--match-body %q: expected raw, json or ignore", o.matchBody)
	}
	return mode, o.match.check()
}

// target is the adapter (--adapter, else the cassette's directory) and
// the scenario (the cassette's file name) a recording is saved as.
func (o *proxyOptions) target() (adapter, scenario string) {
	adapter = o.adapter
	if m := strings.Split(filepath.ToSlash(filepath.Clean(o.cassette)), "/"); len(m) >= 2 && strings.HasSuffix(o.cassette, ".yaml") {
		if adapter == "" {
			adapter = m[len(m)-2]
		}
		scenario = strings.TrimSuffix(m[len(m)-1], ".yaml")
	}
	return adapter, scenario
}

// proxyOptions builds the proxy's options from the flags and the project
// (nil without a config).
func (o *proxyOptions) proxyOptions(stdio *IO, p *project, mode proxy.Mode, adapter string) (proxy.Options, error) {
	up := proxy.Upstream{CAFile: o.upstreamCA}
	if a, ok := p.adapter(adapter); ok {
		up = recorder.UpstreamOf(p.cfg.Dir, adapter, a, o.upstreamCA, nil)
	}
	if w := up.Warning(); w != "" && mode != proxy.ModeReplay {
		fmt.Fprintln(stdio.Err, w)
	}
	tr, err := up.Transport()
	if err != nil {
		return proxy.Options{}, err
	}
	opts := proxy.Options{Mode: mode, Listen: o.listen, AllowNonLoopback: o.allowRemote, Upstream: o.upstream,
		Match:           o.match.apply(match.Rules{Headers: o.matchHeaders, Body: match.BodyMode(o.matchBody), Replayable: o.replayable, IgnoreHost: o.ignoreHost}),
		SimulateLatency: o.latency, Log: stdio.Err, Transport: tr, MaxRequestBody: o.maxRequestBody, AllowStatus: o.allowStatus}
	if o.upstream == "" {
		if opts.CA, err = loadCA(o.caDir); err != nil {
			return opts, err
		}
	}
	opts.Rerecord = o.rerecord(p)
	if o.cassette == "" {
		return opts, nil
	}
	if _, err := os.Stat(o.cassette); err != nil {
		if mode == proxy.ModeReplay {
			return opts, &outcome.Error{Reason: outcome.ECassetteNotFound, Message: "no cassette at " + o.cassette + ": record it first", Err: err,
				NextStep: opts.Rerecord(nil)}
		}
		return opts, nil
	}
	// Replay only serves copies of the loaded headers: they may be shared.
	// (A mode that records saves the loaded interactions again.)
	if opts.Cassettes, err = cassettes.LoadTree([]string{o.cassette}, cassettes.LoadOptions{ShareHeaders: mode == proxy.ModeReplay}); err != nil {
		return opts, err
	}
	if p != nil {
		if opts.MatchFor, err = matchFromConfig(p.cfg, opts.Match, o); err != nil {
			return opts, err
		}
	}
	return opts, nil
}

// serveProxy runs the proxy until ctx ends (SIGINT or SIGTERM), then stops
// it, waits for the interactions still being recorded, and saves them when
// save is set (a recording mode). A clean stop returns nil (exit 0); a
// recording during which the real service failed is not saved (exit 3).
// indexed, when set, is called once the cassettes are indexed.
func serveProxy(ctx context.Context, w io.Writer, opts proxy.Options, save *recorder.ProxySave, indexed func()) error {
	p, err := proxy.New(opts)
	if indexed != nil {
		indexed()
	}
	if err != nil {
		return err
	}
	if err := p.Start(); err != nil {
		return err
	}
	fmt.Fprintf(w, "cassette proxy: %s mode, listening on %s\n", p.Mode(), p.URL())
	if opts.Upstream != "" {
		fmt.Fprintf(w, "  reverse proxy for %s: point the client's base URL at %s\n", opts.Upstream, p.URL())
	} else {
		fmt.Fprintf(w, "  forward proxy: in the client's shell,\n")
		for _, kv := range opts.CA.ChildEnv(p.URL()) {
			fmt.Fprintf(w, "    export %s\n", kv)
		}
	}
	// record-once is resolved now: record or replay.
	recording := save != nil && (p.Mode() == proxy.ModeRecord || p.Mode() == proxy.ModeReplayWithNewEpisodes)
	fmt.Fprintf(w, "  press Ctrl-C to stop%s\n", map[bool]string{true: " and save what was recorded", false: ""}[recording])
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // responses still being recorded
	defer cancel()
	shutErr := p.Shutdown(sctx)
	recorded := 0
	if recording {
		c, err := recorder.SaveProxy(p, *save)
		if err != nil {
			return err
		}
		if c != nil {
			recorded = len(c.Interactions) - len(save.Before)
			for _, it := range c.Interactions[len(save.Before):] {
				fmt.Fprintf(w, "  recorded %s %s → %d\n", it.Request.Method, proxy.ShownURL(it.Request.URL), it.Response.Code)
			}
			fmt.Fprintf(w, "saved %d interaction(s) to %s\n", len(c.Interactions), c.Path)
		}
	}
	fmt.Fprintf(w, "cassette proxy: stopped; %d interaction(s) recorded, %d replayed, %d replay miss(es)\n", recorded, p.Replayed(), len(p.Misses()))
	return shutErr
}

// optionalProject is the project when there is a config, nil when there
// is none; a config that does not load is an error.
func optionalProject(g *globals) (*project, error) {
	p, err := loadProject(g)
	var ce *outcome.Error
	if errors.As(err, &ce) && ce.Reason == outcome.EMissingConfig {
		return nil, nil
	}
	return p, err
}

// loaded is the loaded project; nil without one.
func (p *project) loaded() *cassettes.Project {
	if p == nil {
		return nil
	}
	return p.Project
}

// adapter is the declared adapter name; false without a project.
func (p *project) adapter(name string) (*cassettes.Adapter, bool) {
	if p == nil {
		return nil, false
	}
	a, ok := p.cfg.Adapters[name]
	return a, ok
}

// rerecord is the command a replay miss names to record a cassette again:
// `cassette record --adapter A --scenario S` when the project declares the
// cassette's adapter (it needs the declaration), else this proxy in record
// mode on that cassette, with this run's upstream; with nothing recorded,
// on a new file in the replayed directory.
func (o *proxyOptions) rerecord(p *project) func(*cassettes.Cassette) string {
	return func(c *cassettes.Cassette) string {
		if c != nil {
			if _, ok := p.adapter(c.Adapter); ok && cassettes.ValidNewName(c.Adapter) && cassettes.ValidNewName(c.Scenario) {
				return outcome.Command("cassette", "record", "--adapter", c.Adapter, "--scenario", c.Scenario)
			}
		}
		again := *o
		again.mode = string(proxy.ModeRecord)
		switch {
		case c != nil && c.Path != "":
			again.cassette = c.Path
		case !strings.HasSuffix(o.cassette, ".yaml"):
			again.cassette = filepath.Join(o.cassette, "new.yaml")
		}
		return proxyAgain(&again)
	}
}

// proxyAgain is the command line of this run, for next steps.
func proxyAgain(o *proxyOptions) string { return outcome.Command(proxyWords(o, o.cassette)...) }

// proxyWords is the proxy's command line, with the flags that choose where
// and what it records, for the cassette at path.
func proxyWords(o *proxyOptions, path string) []string {
	argv := []string{"cassette", "proxy", "--mode", o.mode, "--cassette", path}
	if o.listen != "" && o.listen != "127.0.0.1:0" {
		argv = append(argv, "--listen", o.listen)
	}
	if o.upstream != "" {
		argv = append(argv, "--upstream", o.upstream)
	}
	if o.upstreamCA != "" {
		argv = append(argv, "--upstream-ca", o.upstreamCA)
	}
	if o.adapter != "" {
		argv = append(argv, "--adapter", o.adapter)
	}
	return argv
}
