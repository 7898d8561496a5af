package diff

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/normalize"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// Options say how cassettes are normalized and what is compared.
type Options struct {
	// Registry resolves normalizer names; nil means normalize.Builtins().
	Registry *normalize.Registry
	// Normalize is handed to every pipeline (credentials, working and temp dirs).
	Normalize normalize.Options
	// Normalizers returns the names to apply to a cassette (and to what it is
	// compared with); nil means the cassette's own `normalizers:` list.
	Normalizers func(c *cassettes.Cassette) []string
	// Headers are the contract headers compared; nil compares all headers.
	Headers []string
	// Contract, when set, is the contract Compare holds got to for want
	// (`cassette diff --compare modelled`); nil is exact mode with Headers.
	Contract func(want *cassettes.Cassette) Contract
}

// Pipeline builds the pipeline for cassette c. An unknown normalizer name is a
// *outcome.Error naming the file, line and field, with a suggestion.
func Pipeline(c *cassettes.Cassette, o Options) (*normalize.Pipeline, error) {
	reg := o.Registry
	if reg == nil {
		reg = normalize.Builtins()
	}
	names := c.Normalizers
	if o.Normalizers != nil {
		names = o.Normalizers(c)
	}
	p, err := reg.Pipeline(names, o.Normalize)
	if err == nil {
		return p, nil
	}
	var ue *normalize.UnknownError
	if !errors.As(err, &ue) {
		return nil, err
	}
	field := "normalizers"
	for i, n := range c.Normalizers {
		if n == ue.Name {
			field = fmt.Sprintf("normalizers[%d]", i)
			break
		}
	}
	msg := fmt.Sprintf("unknown normalizer %q", ue.Name)
	if ue.Err != nil {
		msg = fmt.Sprintf("invalid normalizer %q: %v", ue.Name, ue.Err)
	}
	return nil, &outcome.Error{
		Reason:  outcome.ECassetteInvalid,
		Message: "cassette " + c.Path + " names a normalizer that does not exist",
		Problems: []outcome.Problem{{File: c.Path, Line: c.Line(field), Field: field, Message: msg,
			Expected: "a built-in or a name defined under `normalizers:` in cassette.yaml", Suggestion: ue.Suggestion}},
		NextStep: outcome.Command("cassette", "validate", c.Path),
		Err:      err,
	}
}

// Normalize returns a normalized copy of c: every request and response
// (URL, headers, body) and the CLI input and output, in interaction order
// with one identity state, so that <uuid:1> means the same value throughout.
// Values that change on every recording and are never compared (recorded_at,
// recorder, durations, remote addresses) are cleared.
func Normalize(c *cassettes.Cassette, p *normalize.Pipeline) *cassettes.Cassette {
	return normalizeFramed(c, p, nil)
}

// normalizeLike normalizes got as Normalize does, except that a response
// without a Content-Type is framed as the recorded response of the same
// interaction in want is: a fake's SSE or NDJSON stream sent without its
// type gets the normalizers of each record, as the recording does, and
// the missing header is compared as a header (comparer.headers).
func normalizeLike(got, want *cassettes.Cassette, p *normalize.Pipeline) *cassettes.Cassette {
	return normalizeFramed(got, p, framingOf(want))
}

// framingOf is the framing normalizeLike reads a response without a
// Content-Type with: the type of want's response of the same interaction.
func framingOf(want *cassettes.Cassette) func(int) string {
	return func(i int) string {
		if i < len(want.Interactions) {
			return contentType(want.Interactions[i].Response.Headers)
		}
		return ""
	}
}

// normalizePair is Normalize(want) and normalizeLike(got, want). What both
// start with alike (the input and the first request: a fake is sent the
// recorded request) is normalized once, for want, and got's identity state
// starts as want's is after it: the numbers are the ones got's own pass
// would give. The two results share that part (neither is written to).
func normalizePair(want, got *cassettes.Cassette, p *normalize.Pipeline) (w, g *cassettes.Cassette) {
	if len(want.Interactions) == 0 || len(got.Interactions) == 0 || !reflect.DeepEqual(want.Input, got.Input) ||
		!reflect.DeepEqual(want.Interactions[0].Request, got.Interactions[0].Request) {
		return Normalize(want, p), normalizeLike(got, want, p)
	}
	st := normalize.NewState()
	pre := &prefix{input: normalizeInput(st, p, want.Input), req: normalizeRequest(st, p, want.Interactions[0].Request)}
	gst := st.Clone()
	return normalizeWith(want, p, nil, st, pre), normalizeWith(got, p, framingOf(want), gst, pre)
}

// prefix is the normalized input and first request of a cassette.
type prefix struct {
	input *cassettes.Input
	req   cassettes.Request
}

// normalizeFramed is Normalize with, for responses that carry no
// Content-Type, the type to read them as (nil: none).
func normalizeFramed(c *cassettes.Cassette, p *normalize.Pipeline, framing func(int) string) *cassettes.Cassette {
	return normalizeWith(c, p, framing, normalize.NewState(), nil)
}

// normalizeWith is normalizeFramed with identity state st; pre, when set,
// is c's input and first request normalized already (st has numbered them).
func normalizeWith(c *cassettes.Cassette, p *normalize.Pipeline, framing func(int) string, st *normalize.State, pre *prefix) *cassettes.Cassette {
	n := *c
	n.RecordedAt, n.Recorder, n.Warnings = nil, nil, nil
	if pre != nil {
		n.Input = pre.input
	} else {
		n.Input = normalizeInput(st, p, c.Input)
	}
	n.Interactions = make([]cassettes.Interaction, len(c.Interactions))
	for i, it := range c.Interactions {
		var req cassettes.Request
		if i == 0 && pre != nil {
			req = pre.req
		} else {
			req = normalizeRequest(st, p, it.Request)
		}
		resp := it.Response
		resp.Headers = p.Headers(st, resp.Headers)
		ctype := contentType(it.Response.Headers)
		if ctype == "" && framing != nil {
			ctype = framing(i)
		}
		resp.Body = cassettes.Body(p.Body(st, ctype, resp.Body.Bytes()))
		resp.Duration = 0
		n.Interactions[i] = cassettes.Interaction{ID: it.ID, Request: req, Response: resp, WebSocket: normalizeSession(st, p, it.WebSocket)}
	}
	if c.Output != nil {
		out := *c.Output
		out.Stdout = cassettes.Body(p.Output(st, c.Output.Stdout.Bytes()))
		out.Stderr = cassettes.Body(p.Output(st, c.Output.Stderr.Bytes()))
		n.Output = &out
	}
	return &n
}

// normalizeInput is a CLI cassette's input normalized (nil for none).
func normalizeInput(st *normalize.State, p *normalize.Pipeline, input *cassettes.Input) *cassettes.Input {
	if input == nil {
		return nil
	}
	in := *input
	in.Args = make([]string, len(input.Args))
	for i, a := range input.Args {
		in.Args[i] = p.Text(st, a)
	}
	in.Stdin = cassettes.Body(p.Output(st, input.Stdin.Bytes()))
	return &in
}

// normalizeRequest is an HTTP request normalized: its URL, headers and body.
func normalizeRequest(st *normalize.State, p *normalize.Pipeline, r cassettes.Request) cassettes.Request {
	req := r
	req.URL = p.Text(st, req.URL)
	req.RemoteAddr = ""
	req.Headers = p.Headers(st, req.Headers)
	req.Body = cassettes.Body(p.Body(st, contentType(r.Headers), req.Body.Bytes()))
	return req
}

// WriteNormalized writes the normalized form of c as YAML: what
// `cassette normalize FILE` prints, and the form verify compares.
func WriteNormalized(w io.Writer, c *cassettes.Cassette, p *normalize.Pipeline) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(Normalize(c, p)); err != nil {
		return err
	}
	return enc.Close()
}

func contentType(h http.Header) string {
	if vs := h["Content-Type"]; len(vs) > 0 { // the spelling Go and cassette write
		return vs[0]
	}
	for k, vs := range h {
		if strings.EqualFold(k, "Content-Type") && len(vs) > 0 { // CanonicalHeaderKey's match: "content-type" folds only in ASCII
			return vs[0]
		}
	}
	return ""
}
