package cassettes

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// SchemaVersion is the version of cassette's own metadata (the `cassette:` key).
const SchemaVersion = 1

// GoVCRVersion is the go-vcr cassette format version our HTTP cassettes follow
// (the `version:` key), so that go-vcr v3/v4 load them as they are.
const GoVCRVersion = 2

// Cassette is the recorded input and output of one scenario of one adapter.
// HTTP interactions keep go-vcr's `version: 2` shape; the other top-level keys
// are cassette's metadata, which go-vcr ignores.
type Cassette struct {
	Cassette    int            `yaml:"cassette,omitempty"`
	Version     int            `yaml:"version"`
	Adapter     string         `yaml:"adapter,omitempty"`
	Scenario    string         `yaml:"scenario,omitempty"`
	Kind        cfgschema.Kind `yaml:"kind,omitempty"`
	Normalizers []string       `yaml:"normalizers,omitempty"`
	RecordedAt  *time.Time     `yaml:"recorded_at,omitempty"`
	Recorder    *Recorder      `yaml:"recorder,omitempty"`
	// Replayable, when true, lets replay serve the last response again once
	// the recorded sequence is used up (go-vcr's replayable interactions).
	Replayable *bool `yaml:"replayable,omitempty"`
	// Mutating marks a scenario that changes the real service (creates,
	// deletes, charges): refresh does not re-run it unless the adapter
	// sets allow_mutating.
	Mutating bool `yaml:"mutating,omitempty"`
	// Compare, Required, Stream and StreamText set this cassette's
	// contract over its adapter's (go-vcr ignores them).
	//
	// Compare is how verify compares the fake's answer with the cassette:
	// exact (the default: the normalized forms byte for byte) or modelled
	// (what the fake leaves out is listed, not a drift; what it gives must
	// be what reality gave): docs/modelled.md.
	Compare string `yaml:"compare,omitempty"`
	// Required are what the fake must model even in modelled mode:
	// JSONPaths ($.id, $.items[*].name, $..sha), status, and header names.
	Required []string `yaml:"required,omitempty"`
	// Stream is how a JSON-lines or SSE stream is compared: records (the
	// default: record by record) or content (the text of consecutive
	// records concatenated, so a fake may split it differently).
	Stream string `yaml:"stream,omitempty"`
	// StreamText names the text fields that stream: content concatenates:
	// stream presets (anthropic.messages, openai.chat, openai.responses) or
	// JSONPaths of string fields; none: every preset applies.
	StreamText   []string      `yaml:"stream_text,omitempty"`
	Input        *Input        `yaml:"input,omitempty"`
	Output       *Output       `yaml:"output,omitempty"`
	Interactions []Interaction `yaml:"interactions"`

	// Path is the file the cassette was loaded from or will be saved to.
	Path string `yaml:"-"`
	// Plain is true for a go-vcr cassette without cassette's metadata; its
	// adapter and scenario were taken from the path.
	Plain bool `yaml:"-"`
	// Warnings are non-fatal findings of the loader (an upgraded format, a
	// key another tool added).
	Warnings []outcome.Problem `yaml:"-"`
	// Source is the file as it was loaded (zero for a cassette not loaded
	// from a file).
	Source Source `yaml:"-"`

	loc *locator // where fields are in the file, for Line
}

// Recorder identifies the cassette build that wrote a cassette.
type Recorder struct {
	Version string `yaml:"version"`
	SHA     string `yaml:"sha,omitempty"`
}

// Input is what a CLI scenario runs: the command, its arguments, its standard
// input and the names (never the values) of the environment variables it needs.
type Input struct {
	Command string   `yaml:"command"`
	Args    []string `yaml:"args,omitempty"`
	Stdin   Body     `yaml:"stdin,omitempty"`
	Env     []string `yaml:"env,omitempty"`
}

// Output is what a CLI scenario produced.
type Output struct {
	Stdout   Body `yaml:"stdout"`
	Stderr   Body `yaml:"stderr"`
	ExitCode int  `yaml:"exit_code"`
}

// Interaction is one HTTP round trip, in go-vcr's shape.
type Interaction struct {
	ID       int      `yaml:"id"`
	Request  Request  `yaml:"request"`
	Response Response `yaml:"response"`
	// WebSocket is the session that followed a WebSocket upgrade (the
	// response is its 101): the messages both sides sent, in order. go-vcr
	// ignores the key (websocket.go).
	WebSocket *WebSocket `yaml:"websocket,omitempty"`
}

// Request is a recorded HTTP request (go-vcr's fields and names).
type Request struct {
	Proto            string      `yaml:"proto,omitempty"`
	ProtoMajor       int         `yaml:"proto_major,omitempty"`
	ProtoMinor       int         `yaml:"proto_minor,omitempty"`
	ContentLength    int64       `yaml:"content_length,omitempty"`
	TransferEncoding []string    `yaml:"transfer_encoding,omitempty"`
	Trailer          http.Header `yaml:"trailer,omitempty"`
	Host             string      `yaml:"host,omitempty"`
	RemoteAddr       string      `yaml:"remote_addr,omitempty"`
	RequestURI       string      `yaml:"request_uri,omitempty"`
	Body             Body        `yaml:"body,omitempty"`
	BodyFile         string      `yaml:"body_file,omitempty"` // sidecar holding a large body
	Form             url.Values  `yaml:"form,omitempty"`
	Headers          http.Header `yaml:"headers,omitempty"`
	URL              string      `yaml:"url"`
	Method           string      `yaml:"method"`
}

// Response is a recorded HTTP response (go-vcr's fields and names).
type Response struct {
	Proto            string      `yaml:"proto,omitempty"`
	ProtoMajor       int         `yaml:"proto_major,omitempty"`
	ProtoMinor       int         `yaml:"proto_minor,omitempty"`
	TransferEncoding []string    `yaml:"transfer_encoding,omitempty"`
	Trailer          http.Header `yaml:"trailer,omitempty"`
	ContentLength    int64       `yaml:"content_length"`
	Uncompressed     bool        `yaml:"uncompressed,omitempty"`
	Body             Body        `yaml:"body"`
	BodyFile         string      `yaml:"body_file,omitempty"` // sidecar holding a large body
	Headers          http.Header `yaml:"headers"`
	Status           string      `yaml:"status"`
	Code             int         `yaml:"code"`
	Duration         Duration    `yaml:"duration,omitempty"`
	// EventTimes are, for a stream (SSE, NDJSON), when each event had
	// arrived, since the request was sent: replay with latency serves each
	// event at its time. go-vcr ignores the key.
	EventTimes []Duration `yaml:"event_times,omitempty"`
}

// ID returns "adapter/scenario", the cassette's identity in reports.
func (c *Cassette) ID() string { return c.Adapter + "/" + c.Scenario }

// UnsafeRequest is the first recorded request that may change the real
// service (any method but GET, HEAD and OPTIONS; an empty method is GET, as
// net/http reads it), as its method and URL path; ok is false when every
// request only reads. Refresh's dry run and cassette learn re-record only
// cassettes without one.
func (c *Cassette) UnsafeRequest() (method, path string, ok bool) {
	for _, it := range c.Interactions {
		switch strings.ToUpper(it.Request.Method) {
		case http.MethodGet, http.MethodHead, http.MethodOptions, "":
			continue
		}
		path = it.Request.URL
		if u, err := url.Parse(path); err == nil && u.Path != "" {
			path = u.Path
		}
		return it.Request.Method, path, true
	}
	return "", "", false
}
