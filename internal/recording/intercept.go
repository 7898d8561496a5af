package recording

import (
	"context"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/infra"
	"github.com/cassette-dev/cassette/internal/proxy"
	"github.com/cassette-dev/cassette/internal/redact"
)

// ProxyConfig configures the recording proxy a CLI recording runs its child
// through.
type ProxyConfig struct {
	// CA signs the MITM certificates; nil loads (or creates) the CA in
	// CADir, and CADir "" is proxy.DefaultCADir().
	CA    *proxy.CA
	CADir string
	// Transport reaches the real services; nil is the proxy's default
	// (verified TLS, no proxy). Tests set RootCAs for a self-signed upstream.
	Transport *http.Transport
	// Log receives the proxy's one line per request; nil discards.
	Log io.Writer
	// FlushTimeout bounds the wait, once the child has exited, for
	// responses still being relayed; 0 is 5 s.
	FlushTimeout time.Duration
	// Upstream, when set, makes the proxy a reverse proxy in front of this
	// base URL (http, https or unix:///path; a cli adapter's real.base_url)
	// instead of a forward one: the child gets CASSETTE_PROXY_ADDR and
	// CASSETTE_PROXY_URL (see ExpandEnv) and no HTTPS_PROXY. No CA is needed.
	Upstream string
	// AllowStatus are failing statuses (401, 403, 408, 429, 5xx) the command's calls
	// answer on purpose (see proxy.Options.AllowStatus).
	AllowStatus []int
}

// ExpectedStatuses are the failing statuses (401, 403, 408, 429, 5xx) a cassette
// holds: a failure of the real side is never saved, so these were recorded
// on purpose and are expected when the cassette is recorded again.
func ExpectedStatuses(c *cassettes.Cassette) []int {
	var out []int
	for _, in := range c.Interactions {
		if _, failing := infra.ClassifyStatus(in.Response.Code); failing && !slices.Contains(out, in.Response.Code) {
			out = append(out, in.Response.Code)
		}
	}
	return out
}

// ProxyInterceptor returns an InterceptFunc that starts the forward
// recording proxy (HTTPS MITM with the cassette CA) on loopback for one CLI
// recording: the child gets HTTPS_PROXY/HTTP_PROXY and every CA variable
// (SSL_CERT_FILE, NODE_EXTRA_CA_CERTS, REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE,
// GIT_SSL_CAINFO), and each interaction is redacted before it is stored.
func ProxyInterceptor(cfg ProxyConfig) InterceptFunc {
	return func(ctx context.Context, red *redact.Redactor) (Interceptor, error) {
		if cfg.Upstream != "" {
			return startReverse(ctx, cfg, red)
		}
		ca := cfg.CA
		if ca == nil {
			dir := cfg.CADir
			if dir == "" {
				var err error
				if dir, err = proxy.DefaultCADir(); err != nil {
					return nil, err
				}
			}
			var err error
			if ca, err = proxy.LoadOrCreateCA(dir); err != nil {
				return nil, err
			}
		}
		p, err := cfg.newProxy(red, proxy.Options{CA: ca})
		if err != nil {
			return nil, err
		}
		i, err := cfg.start(p)
		if err != nil {
			return nil, err
		}
		i.ca = ca
		return i, nil
	}
}

// newProxy makes the recording proxy of cfg: o says forward (CA) or
// reverse (Upstream), cfg the rest.
func (cfg ProxyConfig) newProxy(red *redact.Redactor, o proxy.Options) (*proxy.Proxy, error) {
	o.Mode, o.Redact, o.Transport, o.Log, o.AllowStatus = proxy.ModeRecord, red, cfg.Transport, cfg.Log, cfg.AllowStatus
	return proxy.New(o)
}

// start starts p and wraps it as the interceptor of one recording.
func (cfg ProxyConfig) start(p *proxy.Proxy) (*proxyInterceptor, error) {
	if err := p.Start(); err != nil {
		p.Close()
		return nil, err
	}
	flush := cfg.FlushTimeout
	if flush <= 0 {
		flush = 5 * time.Second
	}
	return &proxyInterceptor{p: p, flush: flush}, nil
}

type proxyInterceptor struct {
	p     *proxy.Proxy
	ca    *proxy.CA
	flush time.Duration
}

func (i *proxyInterceptor) Env() []string { return i.ca.ChildEnv(i.p.URL()) }

func (i *proxyInterceptor) Interactions() []cassettes.Interaction {
	ctx, cancel := context.WithTimeout(context.Background(), i.flush)
	defer cancel()
	_ = i.p.Flush(ctx) // what is still streaming after the child exited is left out
	return i.p.Interactions()
}

func (i *proxyInterceptor) Failures() []proxy.UpstreamFailure { return i.p.Failures() }

func (i *proxyInterceptor) Incomplete() []proxy.Incomplete { return i.p.Incomplete() }

func (i *proxyInterceptor) Close() error { return i.p.Close() }
