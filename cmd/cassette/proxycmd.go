package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/proxy"
	"github.com/cassette-dev/cassette/internal/recording"
	"github.com/cassette-dev/cassette/internal/workspace"
)

func newProxyCmd(stdio *IO, g *globals) *cobra.Command {
	o, caDir := &recording.ProxyJob{}, new(string)
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
			return proxyRun(cmd.Context(), stdio, g, o, *caDir)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Mode, "mode", "replay", "record, replay, passthrough, record-once, replay-with-new-episodes or observe")
	f.StringVar(&o.Listen, "listen", "127.0.0.1:0", "address to listen on (loopback unless --allow-non-loopback)")
	f.BoolVar(&o.AllowRemote, "allow-non-loopback", false, "allow a non-loopback --listen address (the proxy then serves anyone who can reach it)")
	f.StringVar(&o.Upstream, "upstream", "", "reverse-proxy to this base URL (http, https, or unix:///path for a unix socket) instead of being a forward proxy")
	f.StringVar(&o.Cassette, "cassette", "", "cassette file (record) or file or directory (replay)")
	f.StringVar(&o.Adapter, "adapter", "", "adapter whose credentials are redacted (default: from the cassette path)")
	f.StringVar(&o.UpstreamCA, "upstream-ca", "", "PEM file of the CA that signed the real service's certificate (replaces the adapter's real.ca_file)")
	f.StringVar(caDir, "ca-dir", "", "CA directory (default $CASSETTE_CA_DIR or the user config dir)")
	f.StringSliceVar(&o.MatchHeaders, "match-header", nil, "request headers that must also match on replay (repeatable)")
	f.StringVar(&o.MatchBody, "match-body", "raw", "request body matching: raw, json or ignore")
	f.BoolVar(&o.IgnoreHost, "ignore-host", false, "match recorded requests whatever their scheme and host")
	f.BoolVar(&o.Replayable, "replayable", false, "serve the last response again once a sequence is used up")
	f.BoolVar(&o.Latency, "latency", false, "replay with the recorded latency; a recorded stream (SSE, NDJSON) event by event, at the recorded times (spread evenly over its duration when it has none, as in go-vcr files)")
	f.Int64Var(&o.MaxRequestBody, "max-request-body", proxy.DefaultMaxRequestBody, "largest request body (bytes) the proxy buffers to record or match; a larger one is answered 413")
	f.IntSliceVar(&o.AllowStatus, "allow-status", nil, "record: a failing status (401, 403, 408, 429, 5xx) the upstream answers on purpose; record it instead of refusing the recording (repeatable)")
	bindMatchFlags(f, &o.Match)
	o.Changed = f.Changed
	return cmd
}

func proxyRun(ctx context.Context, stdio *IO, g *globals, o *recording.ProxyJob, caDir string) error {
	if o.Mode == "observe" {
		return observeProxyRun(ctx, stdio, g, o)
	}
	ver, sha := buildInfo()
	o.Recorder, o.Out, o.Log = cassettes.Recorder{Version: ver, SHA: sha}, stdio.Out, stdio.Err
	o.CA = func() (*proxy.CA, error) { return loadCA(caDir) }
	o.Load = func() (*workspace.Project, error) {
		p, err := optionalProject(g)
		if p == nil {
			return nil, err
		}
		o.Step = p.command
		return p.Project, err
	}
	o.Notify = func(ctx context.Context) (context.Context, context.CancelFunc) {
		return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	return o.Run(ctx)
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

// adapter is the declared adapter name; false without a project.
func (p *project) adapter(name string) (*cfgschema.Adapter, bool) {
	if p == nil {
		return nil, false
	}
	a, ok := p.cfg.Adapters[name]
	return a, ok
}
