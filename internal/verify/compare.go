package verify

import (
	"bytes"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/diff"
	"github.com/cassette-dev/cassette/internal/normalize"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// NormalizerNames are the normalizers applied to a cassette: its adapter's,
// then the cassette's own that the adapter does not list.
func NormalizerNames(c *cassettes.Cassette, a *cfgschema.Adapter) []string {
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
	if a != nil {
		add(a.Normalizers)
	}
	add(c.Normalizers)
	return names
}

// pipeline is the normalizer pipeline of a case: built once per set of
// names when opts carry a cache (ProjectOptions' and Run's do), as a case
// needs it up to three times and most cases of a run share their names.
func pipeline(c Case, opts Options) (*normalize.Pipeline, error) {
	names := NormalizerNames(c.Cassette, c.Adapter)
	if opts.pipes == nil {
		return buildPipeline(names, opts)
	}
	return opts.pipes.get(names, opts)
}

func buildPipeline(names []string, opts Options) (*normalize.Pipeline, error) {
	reg := opts.Normalizers
	if reg == nil {
		reg = normalize.Builtins()
	}
	return reg.Pipeline(names, normalize.Options{Credentials: opts.Credentials, Rules: opts.Config.Redaction(), WorkDir: opts.Config.Dir})
}

// pipelines caches built pipelines. A Pipeline is safe for concurrent use
// (each use has its own State). The key holds what a pipeline is built
// from, so that options changed after they were copied build their own.
type pipelines struct {
	mu    sync.Mutex
	built map[pipelineKey]*normalize.Pipeline
}

type pipelineKey struct {
	reg   *normalize.Registry
	cfg   *cfgschema.Config
	creds uintptr // the credentials map's identity
	names string
}

func newPipelines() *pipelines { return &pipelines{built: map[pipelineKey]*normalize.Pipeline{}} }

func (ps *pipelines) get(names []string, opts Options) (*normalize.Pipeline, error) {
	k := pipelineKey{reg: opts.Normalizers, cfg: opts.Config, creds: reflect.ValueOf(opts.Credentials).Pointer(), names: strings.Join(names, "\x00")}
	ps.mu.Lock()
	p := ps.built[k]
	ps.mu.Unlock()
	if p != nil {
		return p, nil
	}
	p, err := buildPipeline(names, opts)
	if err != nil {
		return nil, err // an unknown name: the case errors, nothing to keep
	}
	ps.mu.Lock()
	ps.built[k] = p
	ps.mu.Unlock()
	return p, nil
}

// Comparison is one case compared: its drifts, their human explanation,
// and both sides as they were compared (normalized, each with its own
// identity state), in the report's shape, so that a report shows them
// without normalizing anything again.
type Comparison struct {
	Drifts  []verdict.Drift
	Explain string // the diff package's rendering of the drifts; "" when none
	// Recorded is the cassette's side: one "http" action per interaction
	// (ID "interactions[i]": method, URL, status, headers, body) or one
	// "proc" action (ID "output": argv, stdout, stderr, exit code).
	Recorded []verdict.Action
	// Observed is the other side (the fake's, or the real service's when
	// refresh compares a re-recording) in the same shape.
	Observed []verdict.Action
	// Modelled is, in modelled mode, what the fake models of what the
	// recording holds (nil in exact mode).
	Modelled *verdict.Modelled
}

// CompareSides normalizes the cassette (want) and the fake's output (got),
// each with its own identity state in interaction order, and returns the
// drifts, their human explanation (the diff package's structural diff for
// JSON, a unified diff for text) and both sides as compared. No drift means
// the normalized forms are byte-identical. Only the adapter's
// contract_headers are compared. Any producer of a run (verify, refresh, a
// check of outputs another test runner captured) compares through it, so
// that every report shows what the comparison saw.
func CompareSides(c Case, got *cassettes.Cassette, opts Options) (*Comparison, error) {
	return compareSides(c, got, opts, true)
}

// compareSides is CompareSides; without recordedIfEqual, a comparison
// without drifts holds no Recorded side (a case that passed keeps none).
func compareSides(c Case, got *cassettes.Cassette, opts Options, recordedIfEqual bool) (*Comparison, error) {
	p, err := pipeline(c, opts)
	if err != nil {
		return nil, &outcome.Error{Reason: outcome.ECassetteInvalid, Message: err.Error(), NextStep: outcome.Command("cassette", "validate", c.Cassette.Path)}
	}
	contract := []string{}
	if c.Adapter != nil && c.Adapter.ContractHeaders != nil {
		contract = c.Adapter.ContractHeaders
	}
	kd, ok := opts.Kinds.Lookup(c.Cassette.Kind)
	if !ok {
		return nil, unknownKind(c, opts)
	}
	want, got := kd.Compared(c.Cassette, got) // what of each the kind's contract holds
	k := cassettes.ContractFor(c.Adapter, c.Cassette)
	if opts.Exact {
		k.Compare = cfgschema.CompareExact
	}
	res, err := diff.CompareContract(want, got, p, contractOf(k, contract))
	if err != nil {
		return nil, contractError(c, err)
	}
	suggestNormalizers(res.Drifts, c.Cassette)
	out := &Comparison{Observed: kd.Actions(res.Got), Modelled: modelledOf(res.Model)}
	if res.Equal {
		if recordedIfEqual {
			out.Recorded = kd.Actions(res.Want)
		}
		return out, nil
	}
	out.Recorded = kd.Actions(res.Want)
	var explain bytes.Buffer
	_ = diff.Render(&explain, res, false)
	out.Explain = explain.String()
	out.Drifts = make([]verdict.Drift, 0, len(res.Drifts))
	for _, d := range res.Drifts {
		out.Drifts = append(out.Drifts, verdict.Drift{Class: string(d.Class), Field: d.Field, JSONPath: d.Path, Line: d.Line,
			Message: driftMessage(d), Diff: d.Diff})
	}
	return out, nil
}

// contractOf is contract k as diff applies it, comparing the contract
// headers headers.
func contractOf(k cfgschema.Contract, headers []string) diff.Contract {
	return diff.Contract{Mode: diff.Mode(k.Compare), Headers: headers, Required: k.Required, Stream: diff.StreamMode(k.Stream), StreamText: k.StreamText}
}

// contractError is a contract that cannot be applied (a required JSONPath
// or stream_text entry that validate would refuse): a user error at the
// cassette, with validate as the next step.
func contractError(c Case, err error) *outcome.Error {
	return &outcome.Error{Reason: outcome.ECassetteInvalid, Message: "the contract of " + c.ID() + " cannot be applied: " + err.Error(),
		NextStep: outcome.Command("cassette", "validate", c.Cassette.Path), Err: err}
}

// modelledOf is diff's figure in the report's shape (nil for nil).
func modelledOf(m *diff.Model) *verdict.Modelled {
	if m == nil {
		return nil
	}
	out := &verdict.Modelled{Fields: m.Fields, Modelled: m.Modelled, RequiredMissing: m.RequiredMissing}
	for _, u := range m.Unmodelled {
		out.Unmodelled = append(out.Unmodelled, verdict.UnmodelledField{Field: u.Field, JSONPath: u.Path, Line: u.Line, Fields: u.Fields})
	}
	return out
}

// WithObserved returns actions (what a case did against the side under
// test, as its producer logged it) with each body and output replaced by
// the one of the same ID in c.Observed, so that what a report previews is
// what was compared. An action that failed keeps what it has.
func (c *Comparison) WithObserved(actions []verdict.Action) []verdict.Action {
	byID := map[string]*verdict.Action{}
	for i := range c.Observed {
		byID[c.Observed[i].ID] = &c.Observed[i]
	}
	for i := range actions {
		a := &actions[i]
		if s := byID[a.ID]; s != nil && a.Err == "" {
			a.Body, a.Stdout, a.Stderr = s.Body, s.Stdout, s.Stderr
		}
	}
	return actions
}

// driftMessage is the one-line account of a drift.
func driftMessage(d diff.Drift) string {
	where := d.Field
	if d.Path != "" {
		where += " " + d.Path
	}
	switch {
	case d.Hint != "":
		return string(d.Class) + " drift at " + where + ": " + d.Hint
	case d.Diff == "" && (d.Want != "" || d.Got != "") && !strings.Contains(d.Want+d.Got, "\n") && len(d.Want)+len(d.Got) < 120:
		return string(d.Class) + " drift at " + where + ": " + strings.ReplaceAll(d.Change, "_", " ") + " (want " + quote(d.Want) + ", got " + quote(d.Got) + ")"
	case strings.HasPrefix(d.Diff, "binary "):
		return string(d.Class) + " drift at " + where + ": " + strings.TrimSpace(d.Diff)
	case d.Change == diff.Changed && d.Want+d.Got != "" && d.Class != diff.ClassStream:
		// a text body, stdout or stderr: say what the first differing line became
		return string(d.Class) + " drift at " + where + ": line " + lineText(d.Want) + " became " + lineText(d.Got)
	default:
		return string(d.Class) + " drift at " + where + ": " + strings.ReplaceAll(d.Change, "_", " ")
	}
}

// lineText quotes one line of a text drift, cut to a readable length.
func lineText(s string) string {
	if s == "" {
		return "(empty)"
	}
	const n = 80
	if len(s) > n {
		cut := n
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return strconv.Quote(s)
}

func quote(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}
