package proxy

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sync"
	"time"

	"golang.org/x/net/http/httpproxy"

	"github.com/cassette-dev/cassette/internal/infra"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// Upstream is how the proxy and the recorder reach the real services: the
// TLS settings a user's reality needs (a private CA, a client certificate)
// and the corporate proxy of the environment.
type Upstream struct {
	// CAFile is a PEM file of CA certificates trusted on top of the system
	// roots (a private or self-signed CA).
	CAFile string
	// ClientCert and ClientKey are PEM files of a client certificate and
	// its key, for services that require mTLS. The key is read in place;
	// it is never copied, logged or recorded.
	ClientCert, ClientKey string
	// InsecureSkipVerify turns certificate checks off. It is an explicit
	// opt-in (real.insecure_skip_verify) and every run warns about it.
	InsecureSkipVerify bool
	// Field names where these settings came from in messages
	// ("adapters.api.real" or "--upstream-ca"); "" is "real".
	Field string
	// LookupEnv reads HTTPS_PROXY, HTTP_PROXY and NO_PROXY (either case) of
	// this process; nil is os.LookupEnv. The recorded child's own proxy
	// variables point at the recording proxy and are not these.
	LookupEnv func(string) (string, bool)
}

// Transport returns a transport to the real services with these settings,
// chained through the corporate proxy named by this process's HTTPS_PROXY
// (HTTP_PROXY for plain http, NO_PROXY honoured). It fails with E_USAGE,
// naming the field, when a file cannot be read or holds no certificate.
func (u Upstream) Transport() (*http.Transport, error) {
	field := u.Field
	if field == "" {
		field = "real"
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: u.InsecureSkipVerify} //nolint:gosec // explicit, warned opt-in
	if u.CAFile != "" {
		pem, err := os.ReadFile(u.CAFile)
		if err != nil {
			return nil, upstreamFileError(field+".ca_file", u.CAFile, "cannot be read", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, upstreamFileError(field+".ca_file", u.CAFile, "holds no PEM certificate", nil)
		}
		cfg.RootCAs = pool
	}
	switch {
	case u.ClientCert != "" && u.ClientKey != "":
		pair, err := tls.LoadX509KeyPair(u.ClientCert, u.ClientKey)
		if err != nil {
			// The error of LoadX509KeyPair never quotes the key's bytes.
			return nil, upstreamFileError(field+".client_cert", u.ClientCert, "and its key "+u.ClientKey+" cannot be loaded as a pair", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	case u.ClientCert != "" || u.ClientKey != "":
		return nil, &outcome.Error{Reason: outcome.EUsage,
			Message:  field + ".client_cert and " + field + ".client_key go together: set both or neither",
			Problems: []outcome.Problem{{Field: field + ".client_key", Message: "only one of the pair is set", Expected: "both client_cert and client_key"}},
			NextStep: outcome.Command("cassette", "validate")}
	}
	lookup := u.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	get := func(names ...string) string {
		for _, n := range names {
			if v, ok := lookup(n); ok && v != "" {
				return v
			}
		}
		return ""
	}
	pc := &httpproxy.Config{HTTPSProxy: get("HTTPS_PROXY", "https_proxy"), HTTPProxy: get("HTTP_PROXY", "http_proxy"), NoProxy: get("NO_PROXY", "no_proxy")}
	pf := pc.ProxyFunc()
	tr := &http.Transport{
		DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
		MaxIdleConns:          256,
		TLSClientConfig:       cfg,
		ForceAttemptHTTP2:     true,
		DisableCompression:    true,
	}
	if pc.HTTPSProxy != "" || pc.HTTPProxy != "" {
		tr.Proxy = func(r *http.Request) (*url.URL, error) { return pf(r.URL) }
	}
	return tr, nil
}

// Warning is the line every run prints when certificate checks are off;
// "" when they are on.
func (u Upstream) Warning() string {
	if !u.InsecureSkipVerify {
		return ""
	}
	field := u.Field
	if field == "" {
		field = "real"
	}
	return "warning: " + field + ".insecure_skip_verify is set: the real service's TLS certificate is NOT checked; anyone on the network path can answer in its place and end up in the cassettes. Prefer " + field + ".ca_file."
}

func upstreamFileError(field, path, what string, err error) error {
	return &outcome.Error{Reason: outcome.EUsage, Err: err,
		Message:  fmt.Sprintf("%s: %s %s", field, path, what),
		Problems: []outcome.Problem{{Field: field, Message: path + " " + what, Expected: "a readable PEM file"}},
		NextStep: outcome.Command("grep", "-c", "-e", "-----BEGIN", path)} // does it hold PEM blocks? (prints no key material)
}

// UpstreamFailure is one request the proxy could not complete against the
// real service, classified (see infra.ClassifyTransport): a recording
// during which one happened is not a valid recording.
type UpstreamFailure struct {
	Method string
	URL    string // without its query (see shownURL), credentials scrubbed
	infra.Failure
	Detail string // the transport's error text or the status line, scrubbed
}

// String renders the failure for a message.
func (f UpstreamFailure) String() string {
	s := f.Method + " " + f.URL + ": " + f.Class
	if f.Detail != "" && f.Detail != f.Class {
		s += " (" + f.Detail + ")"
	}
	return s
}

// failures is the proxy's list of upstream failures.
type failures struct {
	mu   sync.Mutex
	list []UpstreamFailure
}

// Failures returns the upstream failures seen so far, in order: transport
// errors (refused, DNS, TLS, reset mid-body, timeout) and responses with a
// status the live-call policy treats as the service failing (408, 429, 5xx
// of specs/000). The responses themselves were relayed to the client.
func (p *Proxy) Failures() []UpstreamFailure {
	p.fails.mu.Lock()
	defer p.fails.mu.Unlock()
	return append([]UpstreamFailure(nil), p.fails.list...)
}

// failed records a failure of req: err, or else a failing status.
func (p *Proxy) failed(req *http.Request, err error, status int, statusLine string) UpstreamFailure {
	p.settle() // what the interactions before taught is known (storing.go)
	f := UpstreamFailure{Method: req.Method, URL: p.red.String(shownURL(req.URL.String()))}
	if err != nil {
		f.Failure = infra.ClassifyTransport(err)
		f.Detail = p.red.String(urlQuery.ReplaceAllString(err.Error(), "${1}?…"))
	} else {
		f.Failure, _ = infra.ClassifyStatus(status)
		f.Detail = p.red.String(statusLine)
	}
	// The client going away (its request's context cancelled) is not the
	// upstream failing.
	if !errors.Is(err, context.Canceled) {
		p.fails.mu.Lock()
		p.fails.list = append(p.fails.list, f)
		p.fails.mu.Unlock()
	}
	return f
}

// failingStatus records resp as an upstream failure when its status is one
// the live-call policy gives up on.
func (p *Proxy) failingStatus(req *http.Request, resp *http.Response) {
	if _, ok := infra.ClassifyStatus(resp.StatusCode); ok && !slices.Contains(p.opts.AllowStatus, resp.StatusCode) {
		f := p.failed(req, nil, resp.StatusCode, resp.Status)
		p.logf("upstream failed: %s", f)
	}
}

// chainUpstream makes the upstream transport's corporate proxy (if any)
// apply to CONNECT tunnels too (passthrough mode), and never to ourselves.
func (p *Proxy) chainUpstream() {
	inner := p.tr.Proxy
	if inner == nil {
		return
	}
	p.tr.Proxy = func(r *http.Request) (*url.URL, error) {
		u, err := inner(r)
		if err != nil || u == nil || u.Host == p.addr {
			return nil, err
		}
		return u, nil
	}
	p.gp.ConnectDial = func(network, addr string) (net.Conn, error) {
		u, err := p.tr.Proxy(&http.Request{URL: &url.URL{Scheme: "https", Host: addr}})
		if err != nil || u == nil {
			return net.Dial(network, addr)
		}
		return p.gp.NewConnectDialToProxy(u.String())(network, addr)
	}
}
