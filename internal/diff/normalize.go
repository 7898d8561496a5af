package diff

import (
	"errors"
	"fmt"
	"io"
	"net/http"

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
	return normalizeFramed(got, p, func(i int) string {
		if i < len(want.Interactions) {
			return contentType(want.Interactions[i].Response.Headers)
		}
		return ""
	})
}

// normalizeFramed is Normalize with, for responses that carry no
// Content-Type, the type to read them as (nil: none).
func normalizeFramed(c *cassettes.Cassette, p *normalize.Pipeline, framing func(int) string) *cassettes.Cassette {
	st := normalize.NewState()
	n := *c
	n.RecordedAt, n.Recorder, n.Warnings = nil, nil, nil
	if c.Input != nil {
		in := *c.Input
		in.Args = make([]string, len(c.Input.Args))
		for i, a := range c.Input.Args {
			in.Args[i] = p.Text(st, a)
		}
		in.Stdin = cassettes.Body(p.Output(st, c.Input.Stdin.Bytes()))
		n.Input = &in
	}
	n.Interactions = make([]cassettes.Interaction, len(c.Interactions))
	for i, it := range c.Interactions {
		req, resp := it.Request, it.Response
		req.URL = p.Text(st, req.URL)
		req.RemoteAddr = ""
		req.Headers = p.Headers(st, req.Headers)
		req.Body = cassettes.Body(p.Body(st, contentType(it.Request.Headers), req.Body.Bytes()))
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
		if http.CanonicalHeaderKey(k) == "Content-Type" && len(vs) > 0 {
			return vs[0]
		}
	}
	return ""
}
