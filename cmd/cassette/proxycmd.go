package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/cassettes"
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
599 response (X-Cassette-Miss: replay) naming the closest recorded request and what differs — never a
pass-through to the network.

Modes: record, replay, passthrough, record-once (replay if the cassette
exists, else record), replay-with-new-episodes (replay what matches, record
the rest).`,
		Example: `  cassette proxy --mode record --cassette cassettes/github/session.yaml
  cassette proxy --mode replay --cassette cassettes/github --listen 127.0.0.1:8080
  cassette proxy --mode record --upstream https://api.example.com --cassette cassettes/example/s.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return proxyRun(cmd.Context(), stdio, g, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.mode, "mode", "replay", "record, replay, passthrough, record-once or replay-with-new-episodes")
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
	f.BoolVar(&o.latency, "latency", false, "replay with the recorded latency; a recorded stream (SSE, NDJSON) event by event, at the recorded times")
	f.Int64Var(&o.maxRequestBody, "max-request-body", proxy.DefaultMaxRequestBody, "largest request body (bytes) the proxy buffers to record or match; a larger one is answered 413")
	f.IntSliceVar(&o.allowStatus, "allow-status", nil, "record: a failing status (408, 429, 5xx) the upstream answers on purpose; record it instead of refusing the recording (repeatable)")
	o.match.bind(f)
	return cmd
}

func proxyRun(ctx context.Context, stdio *IO, g *globals, o *proxyOptions) error {
	mode, err := proxy.ParseMode(o.mode)
	if err != nil {
		return err
	}
	if o.cassette == "" && mode != proxy.ModePassthrough {
		return cassettes.Errorf(cassettes.EUsage, cassettes.Command("cassette", "proxy", "--help"), "--cassette is required in %s mode (a file cassettes/<adapter>/<scenario>.yaml, or for replay a directory)", mode)
	}
	switch o.matchBody {
	case "raw", "json", "ignore":
	default:
		return cassettes.Errorf(cassettes.EUsage, cassettes.Command("cassette", "proxy", "--help"), "--match-body %q: expected raw, json or ignore", o.matchBody)
	}
	if err := o.match.check(); err != nil {
		return err
	}
	adapter, scenario := o.adapter, ""
	if m := strings.Split(filepath.ToSlash(filepath.Clean(o.cassette)), "/"); len(m) >= 2 && strings.HasSuffix(o.cassette, ".yaml") {
		if adapter == "" {
			adapter = m[len(m)-2]
		}
		scenario = strings.TrimSuffix(m[len(m)-1], ".yaml")
	}
	// The config names the credentials to redact: without one the proxy
	// still redacts credential headers and known key formats, but a broken
	// config is an error, never a reason to record declared values in clear.
	var credNames, normalizers []string
	up := proxy.Upstream{CAFile: o.upstreamCA}
	p, err := loadProject(g)
	var ce *cassettes.Error
	switch {
	case err == nil:
		if a, ok := p.cfg.Adapters[adapter]; ok {
			credNames, normalizers = a.Real.Credentials, a.Normalizers
			up = recorder.UpstreamOf(p.cfg.Dir, adapter, a, o.upstreamCA, nil)
		}
	case errors.As(err, &ce) && ce.Reason == cassettes.EMissingConfig:
	default:
		return err
	}
	redactor := recorder.NewRedactor(recorder.Credentials(credNames, nil))
	if w := up.Warning(); w != "" && mode != proxy.ModeReplay {
		fmt.Fprintln(stdio.Err, w)
	}
	tr, err := up.Transport()
	if err != nil {
		return err
	}
	opts := proxy.RunOptions{Options: proxy.Options{Mode: mode, Listen: o.listen, AllowNonLoopback: o.allowRemote, Upstream: o.upstream,
		Match:           o.match.apply(proxy.MatchOptions{Headers: o.matchHeaders, Body: proxy.BodyMode(o.matchBody), Replayable: o.replayable, IgnoreHost: o.ignoreHost}),
		SimulateLatency: o.latency, Redact: redactor.Interaction, Secrets: redactor.Declared(), Log: stdio.Err, Transport: tr,
		MaxRequestBody: o.maxRequestBody, AllowStatus: o.allowStatus},
		Again: proxyAgain(o)}
	if o.upstream == "" {
		dir := o.caDir
		if dir == "" {
			if dir, err = proxy.DefaultCADir(); err != nil {
				return err
			}
		}
		if opts.CA, err = proxy.LoadOrCreateCA(dir); err != nil {
			return err
		}
	}
	if o.cassette != "" {
		if _, err := os.Stat(o.cassette); err == nil {
			list, err := cassettes.LoadTree([]string{o.cassette}, cassettes.LoadOptions{})
			if err != nil {
				return err
			}
			opts.Cassettes = list
			if p != nil {
				if opts.MatchFor, err = matchFromConfig(p.cfg, opts.Match, o); err != nil {
					return err
				}
			}
		} else if mode == proxy.ModeReplay {
			return &cassettes.Error{Reason: cassettes.ECassetteNotFound, Message: "no cassette at " + o.cassette + ": record it first", Err: err,
				NextStep: cassettes.Command("cassette", "proxy", "--mode", "record", "--cassette", o.cassette)}
		}
	}
	if mode != proxy.ModeReplay && mode != proxy.ModePassthrough {
		if !strings.HasSuffix(o.cassette, ".yaml") {
			return cassettes.Errorf(cassettes.EUsage, cassettes.Command("cassette", "proxy", "--mode", o.mode, "--cassette", strings.TrimSuffix(strings.TrimSuffix(o.cassette, "/"), ".yml")+".yaml"),
				"--cassette must name a .yaml file to record into, got %q", o.cassette)
		}
		ver, sha := buildInfo()
		opts.Save = func(its []cassettes.Interaction) error {
			now := time.Now().UTC().Truncate(time.Second)
			c := &cassettes.Cassette{Cassette: cassettes.SchemaVersion, Version: cassettes.GoVCRVersion, Adapter: adapter, Scenario: scenario,
				Kind: cassettes.KindHTTP, Normalizers: normalizers, RecordedAt: &now, Recorder: &cassettes.Recorder{Version: ver, SHA: sha},
				Interactions: its, Path: o.cassette}
			if len(opts.Cassettes) == 1 && mode == proxy.ModeReplayWithNewEpisodes {
				c.Interactions = append(append([]cassettes.Interaction(nil), opts.Cassettes[0].Interactions...), its...)
			}
			for i := range c.Interactions {
				c.Interactions[i].ID = i
			}
			if err := cassettes.Save(c, redactor.SaveOptions()); err != nil {
				return err
			}
			fmt.Fprintf(stdio.Out, "saved %d interaction(s) to %s\n", len(c.Interactions), o.cassette)
			return nil
		}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return proxy.Run(ctx, stdio.Out, opts)
}

// proxyAgain is the command line of this run, for next steps.
func proxyAgain(o *proxyOptions) string {
	argv := []string{"cassette", "proxy", "--mode", o.mode, "--cassette", o.cassette}
	if o.upstream != "" {
		argv = append(argv, "--upstream", o.upstream)
	}
	if o.upstreamCA != "" {
		argv = append(argv, "--upstream-ca", o.upstreamCA)
	}
	if o.adapter != "" {
		argv = append(argv, "--adapter", o.adapter)
	}
	return cassettes.ShellJoin(argv)
}
