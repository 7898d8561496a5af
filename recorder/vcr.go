package recorder

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"strings"
	"sync"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
	vcr "gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/match"
)

// Mode is the go-vcr recorder mode of a Transport.
type Mode = vcr.Mode

// The Transport modes (go-vcr's, re-exported so users need not import it).
const (
	// ModeRecordOnce replays an existing cassette and records a missing one.
	ModeRecordOnce = vcr.ModeRecordOnce
	// ModeRecordOnly always calls the real service and rewrites the cassette.
	ModeRecordOnly = vcr.ModeRecordOnly
	// ModeReplayOnly never calls the real service; a request with no
	// recorded match fails.
	ModeReplayOnly = vcr.ModeReplayOnly
	// ModeReplayWithNewEpisodes replays what matches and records the rest.
	ModeReplayWithNewEpisodes = vcr.ModeReplayWithNewEpisodes
	// ModePassthrough calls the real service and records nothing.
	ModePassthrough = vcr.ModePassthrough
)

// TransportOptions configures NewTransport.
type TransportOptions struct {
	Meta
	// Mode is go-vcr's; its zero value is ModeRecordOnly, which calls the
	// real service and rewrites the cassette: a test that replays says
	// ModeRecordOnce or ModeReplayOnly.
	Mode Mode
	// Real reaches the real service; nil is http.DefaultTransport.
	Real http.RoundTripper
	// Credentials are the names of credential variables whose values are
	// scrubbed; LookupEnv reads them (nil is os.LookupEnv).
	Credentials []string
	LookupEnv   func(string) (string, bool)
	// Rules are the project's credential names (cassettes.Config.Redaction:
	// cassette.yaml's redact.names); nil is the built-in names.
	Rules *redact.Rules
	// Match are the rules by which a request matches a recorded one, the
	// proxy's (package match): by default method, URL (query in any order)
	// and body are compared. MatchHeaders, IgnoreBody and Replayable are
	// shorthands laid over them.
	Match match.Rules
	// MatchHeaders are headers that must also be equal (added to
	// Match.Headers).
	MatchHeaders []string
	// IgnoreBody matches without comparing bodies (Match.Body = ignore).
	IgnoreBody bool
	// Replayable lets one recorded interaction answer several requests
	// (Match.Replayable).
	Replayable bool
	// SimulateLatency sleeps each interaction's recorded duration on replay;
	// off by default (go-vcr's default is on).
	SimulateLatency bool
}

// Transport is an http.RoundTripper for users' own Go tests: go-vcr v4's
// recorder, reading and writing cassette files in cassette's format (a
// go-vcr `version: 2` file with cassette's metadata), with cassette's
// redaction applied to every interaction right after capture — so the client
// sees in record mode exactly the bytes it will see on replay, and no secret
// is ever held for saving. Saving is atomic (cassettes.Save) and refused if
// a secret is left.
//
// Replay is the proxy's (package match): the same rules (by default
// method, URL and body, after redaction; never RemoteAddr, Proto or other
// headers), the n-th identical request served the n-th recorded response,
// and a request the cassette does not hold fails with the proxy's
// explanation: the closest recorded interaction (file:line), the fields
// that differ with a diff, and how to re-record. That error is a
// *match.Miss, unwraps to a *outcome.Error (E_REPLAY_MISS), and is
// go-vcr's cassette.ErrInteractionNotFound for code that checks for it.
type Transport struct {
	rec   *vcr.Recorder
	red   *redact.Redactor
	opts  TransportOptions
	path  string
	rules match.Rules
	pair  *match.Matcher // go-vcr's matcher while it records (replayable)
	// idx serves replay from the cassette as loaded; nil when the mode
	// records it anew (go-vcr then replays only what it recorded itself).
	idx *match.Index

	mu     sync.Mutex
	loaded *cassettes.Cassette // metadata of the file read, if any
	toSave *cassettes.Cassette // converted by marshal, written by writeFile
}

// NewTransport opens (or prepares) the cassette file at path, which must end
// in ".yaml". Call Stop when done to save what was recorded.
func NewTransport(path string, opts TransportOptions) (*Transport, error) {
	if !strings.HasSuffix(path, ".yaml") {
		return nil, outcome.Errorf(outcome.EUsage, "pass a path like testdata/cassettes/<adapter>/<scenario>.yaml",
			"cassette path %q must end in .yaml", path)
	}
	t := &Transport{red: redact.New(opts.Rules, Credentials(opts.Credentials, opts.LookupEnv)), opts: opts, path: path, rules: opts.rules()}
	pair, err := match.NewMatcher(t.rules, t.redact)
	if err != nil {
		return nil, outcome.Errorf(outcome.EUsage, "check TransportOptions.Match", "cassette %s: %v", path, err)
	}
	t.pair = pair
	mode := opts.Mode
	vopts := []vcr.Option{
		vcr.WithMode(mode),
		vcr.WithFS(transportFS{t}),
		vcr.WithMarshalFunc(t.marshal),
		vcr.WithMatcher(t.match),
		vcr.WithHook(t.afterCapture, vcr.AfterCaptureHook),
		vcr.WithSkipRequestLatency(!opts.SimulateLatency),
		vcr.WithReplayableInteractions(t.rules.Replayable),
	}
	if opts.Real != nil {
		vopts = append(vopts, vcr.WithRealTransport(opts.Real))
	}
	rec, err := vcr.New(strings.TrimSuffix(path, ".yaml"), vopts...)
	if err != nil {
		var ce *outcome.Error
		if errors.As(err, &ce) {
			return nil, ce
		}
		return nil, &outcome.Error{Reason: outcome.ECassetteInvalid, Message: "cannot open cassette " + path, Err: err,
			NextStep: outcome.Command("cassette", "validate", path)}
	}
	t.rec = rec
	if err := t.index(); err != nil {
		return nil, err
	}
	return t, nil
}

// rules are the Match rules with the shorthands laid over them.
func (o TransportOptions) rules() match.Rules {
	r := o.Match
	r.Headers = append(append([]string(nil), r.Headers...), o.MatchHeaders...)
	if o.IgnoreBody {
		r.Body = match.BodyIgnore
	}
	r.Replayable = r.Replayable || o.Replayable
	return r
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(r *http.Request) (*http.Response, error) {
	if t.idx == nil {
		return t.rec.RoundTrip(r)
	}
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	it, miss := t.idx.Lookup(match.Request{Method: r.Method, URL: r.URL.String(), Header: r.Header, Body: body})
	switch {
	case it != nil:
		return t.replay(r, it)
	case t.opts.Mode == ModeReplayWithNewEpisodes: // a new episode: go-vcr records it
		r = r.Clone(r.Context())
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		return t.rec.RoundTrip(r)
	}
	return nil, missError{miss}
}

// Client returns an *http.Client that uses the transport.
func (t *Transport) Client() *http.Client { return &http.Client{Transport: t} }

// Stop saves the cassette if the mode records, and releases the recorder.
func (t *Transport) Stop() error { return t.rec.Stop() }

// redact is the Transport's session redaction of one interaction.
func (t *Transport) redact(in *cassettes.Interaction) { in.Redact(t.red) }

// afterCapture redacts a freshly captured interaction in place.
func (t *Transport) afterCapture(i *cassette.Interaction) error {
	ours := fromVCR(i)
	t.redact(&ours)
	*i = toVCR(ours, i)
	return nil
}

// match is go-vcr's matcher. go-vcr looks for a match only among what it
// holds: with a loaded cassette, which the index serves (so a request
// that reaches go-vcr is a new episode to record), never; while it
// records with Replayable set, among what it recorded this session, which
// it then serves again instead of calling the real service: an incoming
// request, redacted, is compared with one by the rules.
func (t *Transport) match(r *http.Request, rec cassette.Request) bool {
	if t.idx != nil {
		return false
	}
	body, err := readBody(r)
	if err != nil {
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(body)) // go-vcr reads it again to record it
	return t.pair.Match(match.Request{Method: r.Method, URL: r.URL.String(), Header: r.Header, Body: body},
		match.Request{Method: rec.Method, URL: rec.URL, Header: rec.Headers, Body: []byte(rec.Body)})
}

// marshal turns go-vcr's cassette into ours and encodes it; the converted
// cassette is kept for writeFile, which saves it with cassettes.Save.
func (t *Transport) marshal(v any) ([]byte, error) {
	vc, ok := v.(*cassette.Cassette)
	if !ok {
		return nil, fmt.Errorf("recorder: unexpected value %T to marshal", v)
	}
	t.mu.Lock()
	loaded := t.loaded
	t.mu.Unlock()
	c := t.opts.Meta.newCassette(cassettes.KindHTTP, t.opts.Scenario)
	if loaded != nil && !loaded.Plain {
		// keep the metadata of the file we extend, refresh the date
		c.Adapter, c.Scenario, c.Normalizers, c.Replayable = loaded.Adapter, loaded.Scenario, loaded.Normalizers, loaded.Replayable
		if loaded.Recorder != nil && c.Recorder == nil {
			c.Recorder = loaded.Recorder
		}
	}
	for _, i := range vc.Interactions {
		c.Interactions = append(c.Interactions, fromVCR(i))
	}
	c.Path = t.path
	done, err := finish(c, t.red)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.toSave = done
	t.mu.Unlock()
	return cassettes.Marshal(done)
}

// transportFS is the go-vcr file system: reads go through cassettes.Load
// (strict for our files, sidecar bodies inlined), writes through
// cassettes.Save (atomic, scanned).
type transportFS struct{ t *Transport }

func (f transportFS) ReadFile(name string) ([]byte, error) {
	c, err := cassettes.Load(name, cassettes.LoadOptions{})
	if err != nil {
		return nil, err
	}
	f.t.mu.Lock()
	f.t.loaded = c
	f.t.mu.Unlock()
	inline := *c
	inline.Interactions = append([]cassettes.Interaction(nil), c.Interactions...)
	for i := range inline.Interactions {
		inline.Interactions[i].Request.BodyFile = ""
		inline.Interactions[i].Response.BodyFile = ""
	}
	return cassettes.Marshal(&inline)
}

func (f transportFS) WriteFile(name string, _ []byte) error {
	f.t.mu.Lock()
	c := f.t.toSave
	f.t.mu.Unlock()
	if c == nil {
		return fmt.Errorf("recorder: nothing marshalled for %s", name)
	}
	c.Path = name
	return cassettes.Save(c, cassettes.SaveOptionsFor(f.t.red))
}

func (f transportFS) IsFileExists(name string) bool {
	_, err := os.Stat(name)
	return !errors.Is(err, fs.ErrNotExist)
}

func fromVCR(i *cassette.Interaction) cassettes.Interaction {
	q, p := i.Request, i.Response
	return cassettes.Interaction{
		ID: i.ID,
		Request: cassettes.Request{
			Proto: q.Proto, ProtoMajor: q.ProtoMajor, ProtoMinor: q.ProtoMinor,
			ContentLength: q.ContentLength, TransferEncoding: q.TransferEncoding, Trailer: q.Trailer,
			Host: q.Host, RemoteAddr: q.RemoteAddr, RequestURI: q.RequestURI,
			Body: cassettes.Body(q.Body), Form: q.Form, Headers: q.Headers, URL: q.URL, Method: q.Method,
		},
		Response: cassettes.Response{
			Proto: p.Proto, ProtoMajor: p.ProtoMajor, ProtoMinor: p.ProtoMinor,
			TransferEncoding: p.TransferEncoding, Trailer: p.Trailer, ContentLength: p.ContentLength,
			Uncompressed: p.Uncompressed, Body: cassettes.Body(p.Body), Headers: p.Headers,
			Status: p.Status, Code: p.Code, Duration: cassettes.Duration(p.Duration),
		},
	}
}

// toVCR writes ours back into go-vcr's shape, keeping the fields of orig
// that ours does not carry.
func toVCR(in cassettes.Interaction, orig *cassette.Interaction) cassette.Interaction {
	out := *orig
	q, p := &out.Request, &out.Response
	q.Proto, q.ProtoMajor, q.ProtoMinor = in.Request.Proto, in.Request.ProtoMajor, in.Request.ProtoMinor
	q.ContentLength, q.TransferEncoding, q.Trailer = in.Request.ContentLength, in.Request.TransferEncoding, in.Request.Trailer
	q.Host, q.RemoteAddr, q.RequestURI = in.Request.Host, in.Request.RemoteAddr, in.Request.RequestURI
	q.Body, q.Form, q.Headers, q.URL, q.Method = string(in.Request.Body), in.Request.Form, in.Request.Headers, in.Request.URL, in.Request.Method
	p.Proto, p.ProtoMajor, p.ProtoMinor = in.Response.Proto, in.Response.ProtoMajor, in.Response.ProtoMinor
	p.TransferEncoding, p.Trailer, p.ContentLength = in.Response.TransferEncoding, in.Response.Trailer, in.Response.ContentLength
	p.Uncompressed, p.Body, p.Headers = in.Response.Uncompressed, string(in.Response.Body), in.Response.Headers
	p.Status, p.Code = in.Response.Status, in.Response.Code
	return out
}
