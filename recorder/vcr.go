package recorder

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
	vcr "gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/matching"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/recording"
	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/internal/workspace"
	"github.com/cassette-dev/cassette/match"
)

// Mode says whether a Recorder calls the real service, and whether it
// writes the cassette. The zero value is ModeRecordOnce.
type Mode int

// The modes, as go-vcr names them.
const (
	// ModeRecordOnce replays the cassette when its file exists and records
	// it when it does not: a new test's first run records, every later run
	// replays. It is the default.
	ModeRecordOnce Mode = iota

	// ModeReplayOnly never calls the real service: a request the cassette
	// does not hold fails with the closest recorded one, the fields that
	// differ and how to record it again. It is the mode for CI.
	ModeReplayOnly

	// ModeReplayWithNewEpisodes replays what the cassette holds and
	// records the requests it does not hold, adding them to the file.
	ModeReplayWithNewEpisodes

	// ModeRecordOnly always calls the real service and writes the cassette
	// anew from what this run sent and received.
	ModeRecordOnly

	// ModePassthrough calls the real service and records nothing.
	ModePassthrough
)

// vcr is go-vcr's mode of m.
func (m Mode) vcr() vcr.Mode {
	switch m {
	case ModeReplayOnly:
		return vcr.ModeReplayOnly
	case ModeReplayWithNewEpisodes:
		return vcr.ModeReplayWithNewEpisodes
	case ModeRecordOnly:
		return vcr.ModeRecordOnly
	case ModePassthrough:
		return vcr.ModePassthrough
	}
	return vcr.ModeRecordOnce
}

// An Option configures New.
type Option func(*options)

// options are what New is given; the zero value records once, calls the
// real service through http.DefaultTransport, matches by method, URL and
// body, and redacts the built-in credential names.
type options struct {
	mode    Mode
	real    http.RoundTripper
	rules   match.Rules
	matched bool   // WithMatch was given: its rules win over the project's
	project string // WithProject's directory; "" is none
	latency bool
	now     func() time.Time // the clock of recorded_at; nil is time.Now (tests)
}

// WithMode sets the mode (ModeRecordOnce by default).
func WithMode(m Mode) Option { return func(o *options) { o.mode = m } }

// WithRealTransport sets what reaches the real service when the mode
// records (http.DefaultTransport by default).
func WithRealTransport(rt http.RoundTripper) Option { return func(o *options) { o.real = rt } }

// WithMatch sets the rules by which a request matches a recorded one, the
// proxy's (package match). They replace the project's `match:` for the
// cassette's adapter and scenario; by default method, URL (query in any
// order) and body are compared, never RemoteAddr, Proto or other headers.
func WithMatch(r match.Rules) Option {
	return func(o *options) { o.rules, o.matched = r, true }
}

// WithProject reads the cassette.yaml in dir or in one of its three
// parents, as cassettetest does: the credentials its adapters declare are
// scrubbed from what is recorded (and a loaded cassette that holds one is
// refused), its redact.names are redacted, and the cassette's adapter
// (the folder the file is in) gives the normalizers recorded into it and
// the `match:` rules of its scenario. A directory without cassette.yaml
// above it is the built-in names only.
func WithProject(dir string) Option { return func(o *options) { o.project = dir } }

// WithLatency waits, on replay, for each interaction's recorded duration
// before answering (go-vcr's default; off here), ending the wait with the
// request's context.
func WithLatency() Option { return func(o *options) { o.latency = true } }

// withClock sets the clock of recorded_at (tests: golden cassettes).
func withClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// Recorder is an http.RoundTripper for users' own Go tests: go-vcr v4's
// recorder, reading and writing cassette files in cassette's format (a
// go-vcr `version: 2` file with cassette's metadata), with cassette's
// redaction applied to every interaction right after capture — so the client
// sees in record mode exactly the bytes it will see on replay, and no secret
// is ever held for saving. Saving is atomic and refused if a secret is left.
//
// Replay is the proxy's (package match): the same rules (by default
// method, URL and body, after redaction; never RemoteAddr, Proto or other
// headers), the n-th identical request served the n-th recorded response,
// and a request the cassette does not hold fails with the proxy's
// explanation: the closest recorded interaction (file:line), the fields
// that differ with a diff, and how to re-record. That error is go-vcr's
// cassette.ErrInteractionNotFound for code that checks for it.
type Recorder struct {
	rec   *vcr.Recorder
	red   *redact.Redactor
	opts  options
	meta  recording.Meta
	load  cassettes.LoadOptions
	path  string
	rules match.Rules
	pair  *matching.Matcher // go-vcr's matcher while it records (replayable)
	// idx serves replay from the cassette as loaded; nil when the mode
	// records it anew (go-vcr then replays only what it recorded itself).
	idx *matching.Index

	mu     sync.Mutex
	loaded *cassettes.Cassette // metadata of the file read, if any
	toSave *cassettes.Cassette // converted by marshal, written by writeFile
}

// New opens (or prepares) the cassette file at path, which must end in
// ".yaml"; its adapter and scenario are its folder's name and its own
// (cassettes/<adapter>/<scenario>.yaml). Call Stop when done to save what
// was recorded.
func New(path string, opts ...Option) (*Recorder, error) {
	if !strings.HasSuffix(path, ".yaml") {
		return nil, outcome.Errorf(outcome.EUsage, "pass a path like testdata/cassettes/<adapter>/<scenario>.yaml",
			"cassette path %q must end in .yaml", path)
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	t := &Recorder{opts: o, path: path}
	if err := t.configure(); err != nil {
		return nil, err
	}
	pair, err := matching.NewMatcher(t.rules, t.redact)
	if err != nil {
		return nil, outcome.Errorf(outcome.EUsage, "check the rules given to recorder.WithMatch", "cassette %s: %v", path, err)
	}
	t.pair = pair
	vopts := []vcr.Option{
		vcr.WithMode(o.mode.vcr()),
		vcr.WithFS(transportFS{t}),
		vcr.WithMarshalFunc(t.marshal),
		vcr.WithMatcher(t.match),
		vcr.WithHook(t.afterCapture, vcr.AfterCaptureHook),
		vcr.WithSkipRequestLatency(!o.latency),
		vcr.WithReplayableInteractions(t.rules.Replayable),
	}
	if o.real != nil {
		vopts = append(vopts, vcr.WithRealTransport(o.real))
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

// configure derives the metadata, the redaction, the load options and the
// rules from the path and, with WithProject, the project.
func (t *Recorder) configure() error {
	adapter, scenario := filepath.Base(filepath.Dir(t.path)), strings.TrimSuffix(filepath.Base(t.path), ".yaml")
	t.meta = recording.Meta{Adapter: adapter, Scenario: scenario, Now: t.opts.now}
	t.rules = t.opts.rules
	if t.opts.project == "" {
		t.red = redact.New(nil, nil)
		return nil
	}
	p, err := workspace.Find(t.opts.project)
	if err != nil {
		return err
	}
	creds := p.Credentials(nil)
	t.red = redact.New(p.Redact, creds)
	t.load = p.LoadOptions(creds)
	t.load.Config = nil // a Go test's cassette need not be declared in cassette.yaml
	if a, ok := p.Config.Adapters[adapter]; ok {
		t.meta.Normalizers = a.Normalizers
		if !t.opts.matched {
			t.rules = matching.FromConfig(a.Match.For(scenario))
		}
	}
	return nil
}

// RoundTrip implements http.RoundTripper.
func (t *Recorder) RoundTrip(r *http.Request) (*http.Response, error) {
	if t.idx == nil {
		return t.rec.RoundTrip(r)
	}
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	it, miss := t.idx.Lookup(matching.Request{Method: r.Method, URL: r.URL.String(), Header: r.Header, Body: body})
	switch {
	case it != nil:
		return t.replay(r, it)
	case t.opts.mode == ModeReplayWithNewEpisodes: // a new episode: go-vcr records it
		r = r.Clone(r.Context())
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		return t.rec.RoundTrip(r)
	}
	return nil, missError{miss}
}

// Client returns an *http.Client that uses the recorder.
func (t *Recorder) Client() *http.Client { return &http.Client{Transport: t} }

// Stop saves the cassette if the mode records, and releases the recorder.
func (t *Recorder) Stop() error { return t.rec.Stop() }

// redact is the Recorder's session redaction of one interaction.
func (t *Recorder) redact(in *cassettes.Interaction) { in.Redact(t.red) }

// afterCapture redacts a freshly captured interaction in place.
func (t *Recorder) afterCapture(i *cassette.Interaction) error {
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
func (t *Recorder) match(r *http.Request, rec cassette.Request) bool {
	if t.idx != nil {
		return false
	}
	body, err := readBody(r)
	if err != nil {
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(body)) // go-vcr reads it again to record it
	return t.pair.Match(matching.Request{Method: r.Method, URL: r.URL.String(), Header: r.Header, Body: body},
		matching.Request{Method: rec.Method, URL: rec.URL, Header: rec.Headers, Body: []byte(rec.Body)})
}

// marshal turns go-vcr's cassette into ours and encodes it; the converted
// cassette is kept for writeFile, which saves it with cassettes.Save.
func (t *Recorder) marshal(v any) ([]byte, error) {
	vc, ok := v.(*cassette.Cassette)
	if !ok {
		return nil, fmt.Errorf("recorder: unexpected value %T to marshal", v)
	}
	t.mu.Lock()
	loaded := t.loaded
	t.mu.Unlock()
	c := t.meta.NewCassette(cfgschema.KindHTTP, t.meta.Scenario)
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
	done, err := recording.Finish(c, t.red)
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
type transportFS struct{ t *Recorder }

func (f transportFS) ReadFile(name string) ([]byte, error) {
	c, err := cassettes.Load(name, f.t.load)
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
