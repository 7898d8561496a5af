package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/normalize"
	"github.com/cassette-dev/cassette/report"
)

// pipeline builds the normalizer pipeline of a case: the adapter's
// normalizers, then the cassette's own that the adapter does not list.
func pipeline(c Case, opts Options) (*normalize.Pipeline, error) {
	var names []string
	seen := map[string]bool{}
	add := func(ns []string) {
		for _, n := range ns {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	if c.Adapter != nil {
		add(c.Adapter.Normalizers)
	}
	add(c.Cassette.Normalizers)
	reg := opts.Normalizers
	if reg == nil {
		reg = normalize.Builtins()
	}
	return reg.Pipeline(names, normalize.Options{Credentials: opts.Credentials, WorkDir: opts.Config.Dir})
}

// Compare normalizes the cassette (want) and the fake's output (got), each
// with its own identity state in interaction order, and returns the drifts
// and their human explanation. No drift means the normalized forms are
// byte-identical.
func Compare(c Case, got *cassettes.Cassette, opts Options) ([]report.Drift, string, error) {
	p, err := pipeline(c, opts)
	if err != nil {
		return nil, "", err
	}
	want := c.Cassette
	var drifts []report.Drift
	var explain strings.Builder
	add := func(class, field, msg, w, g string) {
		d := report.Drift{Class: class, Field: field, Line: want.Line(field), Message: msg}
		w, g = pretty(w), pretty(g)
		if w != g && (strings.Contains(w, "\n") || strings.Contains(g, "\n") || len(w)+len(g) > 80) {
			d.Diff = udiff.Unified("cassette", "fake", w, g)
		}
		drifts = append(drifts, d)
		fmt.Fprintf(&explain, "%s (%s:%d)\n", msg, want.Path, d.Line)
		if d.Diff != "" {
			explain.WriteString(d.Diff)
		}
	}
	if want.Kind == cassettes.KindCLI {
		ws, gs := normalize.NewState(), normalize.NewState()
		wo, gout := want.Output, got.Output
		if wo.ExitCode != gout.ExitCode {
			add("exit_code", "output.exit_code", fmt.Sprintf("exit code: want %d, got %d", wo.ExitCode, gout.ExitCode), "", "")
		}
		for _, s := range []struct {
			field string
			w, g  []byte
		}{{"output.stdout", []byte(wo.Stdout), []byte(gout.Stdout)}, {"output.stderr", []byte(wo.Stderr), []byte(gout.Stderr)}} {
			nw, ng := string(p.Output(ws, s.w)), string(p.Output(gs, s.g))
			if nw != ng {
				add(strings.TrimPrefix(s.field, "output."), s.field, strings.TrimPrefix(s.field, "output.")+" differs", nw, ng)
			}
		}
		return drifts, explain.String(), nil
	}
	ws, gs := normalize.NewState(), normalize.NewState()
	var contract []string
	if c.Adapter != nil {
		contract = c.Adapter.ContractHeaders
	}
	for i := range want.Interactions {
		wr, gr := want.Interactions[i].Response, got.Interactions[i].Response
		base := fmt.Sprintf("interactions[%d].response", i)
		if wr.Code != gr.Code {
			add("status", base+".code", fmt.Sprintf("%s %s: status want %d, got %d", want.Interactions[i].Request.Method, want.Interactions[i].Request.URL, wr.Code, gr.Code), "", "")
		}
		wh, gh := p.Headers(ws, pick(wr.Headers, contract)), p.Headers(gs, pick(gr.Headers, contract))
		for _, h := range contract {
			a, b := strings.Join(wh.Values(h), ", "), strings.Join(gh.Values(h), ", ")
			if a != b {
				add("headers", base+".headers."+http.CanonicalHeaderKey(h), fmt.Sprintf("header %s: want %q, got %q", h, a, b), a, b)
			}
		}
		nw := string(p.Body(ws, wr.Headers.Get("Content-Type"), []byte(wr.Body)))
		ng := string(p.Body(gs, gr.Headers.Get("Content-Type"), []byte(gr.Body)))
		if nw != ng {
			add("value", base+".body", fmt.Sprintf("%s %s: body differs", want.Interactions[i].Request.Method, want.Interactions[i].Request.URL), nw, ng)
		}
	}
	return drifts, explain.String(), nil
}

func pick(h http.Header, names []string) http.Header {
	out := http.Header{}
	for _, n := range names {
		if vs := h.Values(n); len(vs) > 0 {
			out[http.CanonicalHeaderKey(n)] = vs
		}
	}
	return out
}

// pretty indents a JSON document for display, so that a diff of canonical
// (one-line) JSON shows one field a line; other text is returned as is.
func pretty(s string) string {
	var b bytes.Buffer
	if json.Indent(&b, []byte(s), "", "  ") != nil {
		return s
	}
	b.WriteByte('\n')
	return b.String()
}
