package recording

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/infra"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/internal/wsplay"
)

// Scenario is one HTTP call shape of an adapter, as cassette.yaml declares
// it: a method, a path (with its query) under the adapter's real base URL,
// extra headers and a body. `${VAR}` in path, headers and body is expanded
// from the environment.
type Scenario struct {
	Name       string
	Method     string // "" is GET
	Path       string // starts with "/"; may carry a query
	Headers    map[string]string
	Body       string
	Replayable *bool // copied to the cassette
	Mutating   bool  // copied to the cassette: refresh does not re-run it
	Status     int   // a 408/429/5xx the call answers on purpose: recorded, not retried
}

// HTTPOptions says against what and how RecordHTTP records.
type HTTPOptions struct {
	Meta
	BaseURL string // the adapter's real base_url
	// Headers are the adapter's real headers, sent with every request
	// (`Authorization: Bearer ${GITHUB_TOKEN}`); `${VAR}` is expanded.
	Headers     map[string]string
	Credentials []string // names of the credential variables, scrubbed from everything recorded
	// Rules are the project's credential names (cfgschema.Config.Redaction:
	// cassette.yaml's redact.names); nil is the built-in names.
	Rules *redact.Rules
	// LookupEnv reads the environment; nil is os.LookupEnv.
	LookupEnv func(string) (string, bool)
	Scenarios []Scenario
	// Transport sends the requests; nil is a clone of
	// http.DefaultTransport with transparent compression off, so that what
	// is recorded is the body bytes the server sent.
	Transport http.RoundTripper
	// Policy is the live-call retry policy; nil is DefaultPolicy().
	Policy *Policy
	// AttemptTimeout bounds one attempt (a timeout is retried); 0 is 30 s.
	AttemptTimeout time.Duration
	// AgainArgs are flags next steps repeat after `cassette record
	// --adapter A --scenario S` (e.g. " --base-url URL").
	AgainArgs string
	// Hold leaves the connections of the transport RerecordHTTP makes (a
	// unix socket's) open when it returns, for Recording.Release to close.
	Hold bool
}

// Recording is one recorded cassette and the live_record result of the
// calls that produced it (retry telemetry included).
type Recording struct {
	Cassette *cassettes.Cassette
	Live     LiveRecord
	// Release closes the connections to the real side that a re-recording
	// left open (Live.HoldClients); nil when it left none.
	Release func()
}

// RecordHTTP records every scenario against the adapter's real base URL, one
// cassette per scenario, in the order given. Retryable failures are retried
// by the policy; a scenario that still fails stops the run with E_RATE_LIMIT
// (429), E_PROVIDER_5XX (any 5xx, the ones the policy does not retry at
// their first answer), E_TIMEOUT or E_REAL_*, and the recordings made so
// far are returned with the error; a failing status the scenario declares
// (Status) is recorded instead. Other statuses (404, 401, …) are recorded
// as the real answer. Everything is redacted, and a
// cassette with a secret left fails with E_SECRET_LEAK.
func RecordHTTP(ctx context.Context, opts HTTPOptions) ([]Recording, error) {
	opts, done, err := viaUnixSocket(opts) // unix.go: real.base_url unix:///…
	if err != nil {
		return nil, err
	}
	defer done()
	lookup := opts.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	red := redact.New(opts.Rules, Credentials(opts.Credentials, lookup))
	var out []Recording
	// One Redactor is the session: a value learned by name in a later
	// scenario (a token a response set as a cookie, sent again as a bearer)
	// is scrubbed from the cassettes recorded before it too.
	defer func() {
		for _, r := range out {
			r.Cassette.Redact(red)
		}
	}()
	for _, sc := range opts.Scenarios {
		req, err := expandScenario(sc, opts.BaseURL, opts.Headers, lookup)
		if err != nil {
			return out, withScenario(err, opts.Adapter, sc.Name)
		}
		req.expect = sc.Status
		rec, err := record(ctx, opts, sc.Name, []request{req}, red)
		if err != nil {
			return out, withScenario(err, opts.Adapter, sc.Name)
		}
		rec.Cassette.Replayable, rec.Cassette.Mutating = sc.Replayable, sc.Mutating
		out = append(out, rec)
	}
	return out, nil
}

// RerecordHTTP issues again the requests of a recorded HTTP cassette
// against opts.BaseURL (the refresh loop's entry point): each recorded
// request keeps its method, path, query and body; its recorded headers are
// sent except the redacted ones and the hop-by-hop ones, and the adapter's
// real headers (opts.Headers, `${VAR}` expanded) are set on top. The new
// cassette keeps the old one's scenario, path and replayable flag.
func RerecordHTTP(ctx context.Context, old *cassettes.Cassette, opts HTTPOptions) (rec Recording, err error) {
	opts, done, err := viaUnixSocket(opts) // unix.go: real.base_url unix:///…
	if err != nil {
		return Recording{}, err
	}
	if opts.Hold {
		defer func() { rec.Release = done }()
	} else {
		defer done()
	}
	lookup := opts.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	if opts.Adapter == "" {
		opts.Adapter = old.Adapter
	}
	if len(opts.Normalizers) == 0 {
		opts.Normalizers = old.Normalizers
	}
	red := redact.New(opts.Rules, Credentials(opts.Credentials, lookup))
	var reqs []request
	for i, in := range old.Interactions {
		u, err := url.Parse(in.Request.URL)
		if err != nil {
			return Recording{}, &outcome.Error{Reason: outcome.ECassetteInvalid, Err: err,
				Message:  "a recorded request URL does not parse",
				Problems: []outcome.Problem{{File: old.Path, Line: old.Line(fmt.Sprintf("interactions[%d].request.url", i)), Field: fmt.Sprintf("interactions[%d].request.url", i), Message: "not a URL"}},
				NextStep: outcome.Command("cassette", "validate", old.Path)}
		}
		h := map[string]string{}
		for k, vs := range in.Request.Headers {
			if len(vs) == 0 || hopHeader(k) || red.Rules().IsCredentialHeader(k) || strings.Contains(vs[0], redact.Redacted) {
				continue
			}
			h[k] = vs[0]
		}
		hdr, err := expandHeaders(opts.Headers, lookup)
		if err != nil {
			return Recording{}, withScenario(err, opts.Adapter, old.Scenario)
		}
		for k, v := range hdr {
			h[k] = v
		}
		// A failing status in a cassette was recorded on purpose (a failure
		// of the real side is never saved): it is expected again.
		expect := 0
		if _, failing := infra.ClassifyStatus(in.Response.Code); failing {
			expect = in.Response.Code
		}
		reqs = append(reqs, request{method: in.Request.Method, url: joinURL(opts.BaseURL, u.RequestURI()), headers: h, body: in.Request.Body.Bytes(), expect: expect,
			session: sessionOf(in)})
	}
	rec, err = record(ctx, opts, old.Scenario, reqs, red)
	if err != nil {
		return rec, withScenario(err, opts.Adapter, old.Scenario)
	}
	for i := range rec.Cassette.Interactions {
		keepShape(&rec.Cassette.Interactions[i].Request, old.Interactions[i].Request)
	}
	if rec.Cassette, err = Finish(rec.Cassette, red); err != nil {
		return rec, withScenario(err, opts.Adapter, old.Scenario)
	}
	rec.Cassette.Path = old.Path
	rec.Cassette.Replayable, rec.Cassette.Mutating = old.Replayable, old.Mutating
	return rec, nil
}

// keepShape gives a re-recorded request the recorded shape of the old one,
// so that re-recording an unchanged service writes the same bytes: what
// says how the request was recorded rather than what the service answered
// is kept (the client's proto, go-vcr's parsed form, a Content-Length
// header, which Go's transport sends but keeps out of the request's
// headers); what was sent (method, URL, headers, body) is the new
// recording's.
func keepShape(q *cassettes.Request, old cassettes.Request) {
	if old.Proto != "" {
		q.Proto, q.ProtoMajor, q.ProtoMinor = old.Proto, old.ProtoMajor, old.ProtoMinor
	}
	if old.Headers.Get("Content-Length") != "" {
		if q.Headers == nil {
			q.Headers = http.Header{}
		}
		q.Headers.Set("Content-Length", strconv.Itoa(len(q.Body)))
	}
	if old.Form != nil {
		q.Form = q.ParsedForm()
	}
}

// request is one expanded request to send.
type request struct {
	method  string
	url     string
	headers map[string]string
	body    []byte
	expect  int                  // a failing status (401, 403, 408, 429, 5xx) expected on purpose, 0 for none
	session *cassettes.WebSocket // a WebSocket session to play after the upgrade (websocket.go)
}

func expandScenario(sc Scenario, base string, adapterHeaders map[string]string, lookup func(string) (string, bool)) (request, error) {
	method := strings.ToUpper(sc.Method)
	if method == "" {
		method = http.MethodGet
	}
	path, err := expand(sc.Path, "scenarios."+sc.Name+".path", lookup)
	if err != nil {
		return request{}, err
	}
	body, err := expand(sc.Body, "scenarios."+sc.Name+".body", lookup)
	if err != nil {
		return request{}, err
	}
	h, err := expandHeaders(adapterHeaders, lookup)
	if err != nil {
		return request{}, err
	}
	sh, err := expandHeaders(sc.Headers, lookup)
	if err != nil {
		return request{}, err
	}
	for k, v := range sh {
		h[k] = v
	}
	if base == "" {
		return request{}, &outcome.Error{Reason: outcome.ECfgParse, Message: "the adapter has no real base URL: set `real.base_url` of the adapter in cassette.yaml",
			Problems: []outcome.Problem{{Field: "real.base_url", Message: "missing", Expected: "a URL such as https://api.example.com"}}}
	}
	return request{method: method, url: joinURL(base, path), headers: h, body: []byte(body)}, nil
}

func expandHeaders(in map[string]string, lookup func(string) (string, bool)) (map[string]string, error) {
	out := make(map[string]string, len(in))
	for k, v := range in {
		e, err := expand(v, "real.headers."+k, lookup)
		if err != nil {
			return nil, err
		}
		out[k] = e
	}
	return out, nil
}

// expand replaces ${VAR} and $VAR from the environment; a variable that is
// not set is an E_MISSING_CONFIG error naming it (never a value).
func expand(s, field string, lookup func(string) (string, bool)) (string, error) {
	var missing []string
	out := os.Expand(s, func(name string) string {
		v, ok := lookup(name)
		if !ok {
			missing = append(missing, name)
		}
		return v
	})
	if len(missing) > 0 {
		sort.Strings(missing)
		return "", &outcome.Error{Reason: outcome.EMissingConfig,
			Message:  fmt.Sprintf("%s uses unset environment variable(s) %s: set them in the environment, then run the command again", field, strings.Join(missing, ", ")),
			Problems: []outcome.Problem{{Field: field, Message: "refers to an unset variable", Expected: "${" + missing[0] + "} set in the environment"}}}
	}
	return out, nil
}

func joinURL(base, pathAndQuery string) string {
	if pathAndQuery == "" {
		return base
	}
	if !strings.HasPrefix(pathAndQuery, "/") {
		pathAndQuery = "/" + pathAndQuery
	}
	return strings.TrimSuffix(base, "/") + pathAndQuery
}

func hopHeader(k string) bool {
	switch http.CanonicalHeaderKey(k) {
	case "Connection", "Keep-Alive", "Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade", "Content-Length", "Host", "Accept-Encoding":
		return true
	}
	return false
}

func withScenario(err error, adapter, scenario string) error {
	var ce *outcome.Error
	if errors.As(err, &ce) {
		if ce.NextStep == "" {
			ce.NextStep = outcome.Command("cassette", "record", "--adapter", adapter, "--scenario", scenario)
		}
		ce.Message = fmt.Sprintf("%s/%s: %s", adapter, scenario, ce.Message)
		return ce
	}
	return err
}

// record sends the requests in order and builds one redacted cassette.
func record(ctx context.Context, opts HTTPOptions, scenario string, reqs []request, red *redact.Redactor) (Recording, error) {
	rt := opts.Transport
	if rt == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.DisableCompression = true
		rt = t
		defer t.CloseIdleConnections()
	}
	s := &sender{opts: opts, rt: rt, red: red, pol: DefaultPolicy(), attemptTimeout: opts.AttemptTimeout,
		again: outcome.Command("cassette", "record", "--adapter", opts.Adapter, "--scenario", scenario) + opts.AgainArgs}
	if opts.Policy != nil {
		s.pol = *opts.Policy
	}
	if s.attemptTimeout <= 0 {
		s.attemptTimeout = 30 * time.Second
	}
	c := opts.Meta.NewCassette(cfgschema.KindHTTP, scenario)
	for _, rq := range reqs {
		in, err := s.send(ctx, rq)
		if err != nil {
			return Recording{Live: NewLiveRecord(s.calls...)}, err
		}
		c.Interactions = append(c.Interactions, in)
	}
	done, err := Finish(c, red)
	if ce, ok := err.(*outcome.Error); ok && ce.NextStep == "" {
		ce.NextStep = s.again
	}
	return Recording{Cassette: done, Live: NewLiveRecord(s.calls...)}, err
}

// sender sends the requests of one recording with the live retry policy,
// and keeps the telemetry of each call: per live call, never summed.
type sender struct {
	opts           HTTPOptions
	rt             http.RoundTripper
	red            *redact.Redactor
	pol            Policy
	attemptTimeout time.Duration
	again          string // the command that records the scenario again
	calls          []Telemetry
}

// send sends one request (retried by the policy, each attempt bounded)
// and returns the interaction it recorded. A request that still fails is
// the error of its class, its text scrubbed of credentials.
func (s *sender) send(ctx context.Context, rq request) (cassettes.Interaction, error) {
	var cancel context.CancelFunc = func() {}
	defer func() { cancel() }()
	key := "" // a WebSocket upgrade's Sec-WebSocket-Key
	newReq := func(ctx context.Context) (*http.Request, error) {
		cancel()
		var actx context.Context
		actx, cancel = context.WithTimeout(ctx, s.attemptTimeout)
		var body io.Reader
		if len(rq.body) > 0 {
			body = bytes.NewReader(rq.body)
		}
		r, err := http.NewRequestWithContext(actx, rq.method, rq.url, body)
		if err != nil {
			return nil, &outcome.Error{Reason: outcome.ECfgParse, Message: "cannot build the request: check `real.base_url` and the scenario's path in cassette.yaml", Err: redactedError(s.red, err),
				NextStep: s.again}
		}
		for _, k := range slices.Sorted(maps.Keys(rq.headers)) {
			r.Header.Set(k, rq.headers[k])
		}
		if rq.session != nil {
			key = wsplay.Handshake(r.Header)
		}
		return r, nil
	}
	start := s.opts.Meta.now()
	rpol := s.pol.expecting(rq.expect) // a failing status answered on purpose is neither retried nor refused
	resp, t, err := rpol.Do(ctx, s.rt, newReq)
	s.calls = append(s.calls, t)
	if err != nil {
		return cassettes.Interaction{}, withLimit(transportError(s.red, err, ctx, t, s.again), s.attemptTimeout)
	}
	if rq.session != nil && resp.StatusCode == http.StatusSwitchingProtocols {
		return s.session(rq, resp, key, start, t) // websocket.go
	}
	respBody, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return cassettes.Interaction{}, withLimit(transportError(s.red, err, ctx, t, s.again), s.attemptTimeout)
	}
	// The policy retried what specs/000 retries; any failing status left
	// (those, or a 5xx it does not retry: 501, 505, …) is the service
	// failing, unless the scenario answers it on purpose.
	if f, failing := infra.ClassifyStatus(resp.StatusCode); failing && resp.StatusCode != rq.expect && (rq.session == nil || f.Reason != outcome.ERealAuth) {
		return cassettes.Interaction{}, statusError(resp.StatusCode, t, s.again)
	}
	if rq.session != nil { // an upgrade refused: never a recording
		return s.session(rq, resp, key, start, t)
	}
	return interaction(rq, resp, respBody, s.opts.Meta.now().Sub(start)), nil
}

// interaction is the recorded form of one request sent and its response.
func interaction(rq request, resp *http.Response, respBody []byte, dur time.Duration) cassettes.Interaction {
	req := resp.Request
	in := cassettes.Interaction{
		Request: cassettes.Request{
			Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			ContentLength: int64(len(rq.body)),
			Host:          req.URL.Host,
			Body:          cassettes.Body(rq.body),
			Headers:       req.Header.Clone(),
			URL:           req.URL.String(),
			Method:        rq.method,
		},
		Response: cassettes.Response{
			Proto: resp.Proto, ProtoMajor: resp.ProtoMajor, ProtoMinor: resp.ProtoMinor,
			TransferEncoding: resp.TransferEncoding,
			Trailer:          resp.Trailer,
			ContentLength:    resp.ContentLength,
			Uncompressed:     resp.Uncompressed,
			Body:             cassettes.Body(respBody),
			Headers:          resp.Header.Clone(),
			Status:           resp.Status,
			Code:             resp.StatusCode,
			Duration:         cassettes.Duration(dur),
		},
	}
	if in.Response.ContentLength < 0 {
		in.Response.ContentLength = int64(len(respBody))
	}
	return in
}

// withLimit says, in the error of an attempt that timed out, how long each
// attempt could take, and how to change it.
func withLimit(err error, attemptTimeout time.Duration) error {
	var ce *outcome.Error
	if errors.As(err, &ce) && ce.Reason == outcome.ETimeout {
		ce.Message += fmt.Sprintf(" (each attempt may take %s; --timeout sets it)", attemptTimeout)
	}
	return err
}

func statusError(code int, t Telemetry, again string) error {
	f, _ := infra.ClassifyStatus(code)
	return &outcome.Error{Reason: f.Reason,
		Message:  fmt.Sprintf("the real service answered %s after %d attempt(s) (backoff %v ms); %s", f.Class, t.Attempts, t.RetryBackoffMS, f.Advice()),
		NextStep: again}
}

// transportError is the error of a request that got no complete response,
// classified (refused, DNS, TLS, reset, timeout: see
// infra.ClassifyTransport), its text scrubbed of credentials.
func transportError(red *redact.Redactor, err error, ctx context.Context, t Telemetry, again string) error {
	var ce *outcome.Error
	if errors.As(err, &ce) {
		return ce
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	f := infra.ClassifyTransport(err)
	return &outcome.Error{Reason: f.Reason, Err: redactedError(red, err),
		Message:  fmt.Sprintf("the real service could not be reached after %d attempt(s): %s; %s", t.Attempts, f.Class, f.Advice()),
		NextStep: again}
}
