package diff

import (
	"bytes"
	"fmt"
	"net/http"
	"sort"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
	"go.yaml.in/yaml/v3"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/normalize"
)

// Class is what kind of drift a difference is; reports and refresh pull
// requests group by it.
type Class string

// The drift classes.
const (
	ClassStatus      Class = "status"      // HTTP status code or text
	ClassHeaders     Class = "headers"     // a contract header added, removed or changed
	ClassSchema      Class = "schema"      // JSON shape: a field added, removed or retyped
	ClassValue       Class = "value"       // a JSON value changed, array items added or removed
	ClassStream      Class = "stream"      // JSONL/SSE records added, removed or reordered
	ClassExitCode    Class = "exit_code"   // a CLI exit code
	ClassBody        Class = "body"        // a text (non-JSON) body, stdout or stderr
	ClassInteraction Class = "interaction" // an HTTP interaction added or removed
)

// The changes a Drift can describe.
const (
	Added        = "added"
	Removed      = "removed"
	TypeChanged  = "type_changed"
	ValueChanged = "value_changed"
	Reordered    = "reordered"
	Changed      = "changed" // text: see Diff
)

// Drift is one difference between the normalized want and got.
type Drift struct {
	Class  Class  `json:"class"`
	Change string `json:"change"`
	Field  string `json:"field"`          // cassette field path, yaml names: interactions[0].response.body
	Path   string `json:"path,omitempty"` // JSONPath inside a JSON body; $[3]… is record 3 of a stream
	File   string `json:"file,omitempty"` // the want cassette's file
	Line   int    `json:"line,omitempty"` // line of the differing field in File; 0 when unknown
	Want   string `json:"want,omitempty"` // bounded snippets of the normalized values
	Got    string `json:"got,omitempty"`
	Diff   string `json:"diff,omitempty"` // unified diff, for text
	// Hint says what would make the two equal when that is known: two
	// JSON documents that differ only in key order or spacing are equal
	// under json.canonical.
	Hint string `json:"hint,omitempty"`
}

// LayoutHint is the hint of a JSON body, stdout or stderr whose two sides
// hold the same JSON laid out differently.
const LayoutHint = "the JSON differs only in key order or spacing; add json.canonical to the adapter's normalizers in cassette.yaml to compare it as JSON"

// Result is the comparison of two cassettes.
type Result struct {
	Cassette string  `json:"cassette"` // adapter/scenario of want
	File     string  `json:"file,omitempty"`
	Equal    bool    `json:"equal"` // the normalized compared forms are byte-identical
	Drifts   []Drift `json:"drifts"`
	// Want and Got are the normalized forms that were compared, so that a
	// report shows both sides without normalizing them a second time.
	Want, Got *cassettes.Cassette `json:"-"`
	// Model is, in modelled mode, what the fake models of what reality
	// returned (nil in exact mode).
	Model *Model `json:"model,omitempty"`
}

// Compare normalizes want and got with want's pipeline (one identity state
// each) and compares, per HTTP interaction, the status, the contract headers
// and the body, and for a CLI cassette stdout, stderr and the exit code.
// Equal is decided by byte equality of those normalized parts; every part
// that differs yields at least one Drift. o.Contract, when set, holds got
// to a contract (CompareContract) instead.
func Compare(want, got *cassettes.Cassette, o Options) (*Result, error) {
	p, err := Pipeline(want, o)
	if err != nil {
		return nil, err
	}
	if o.Contract != nil {
		return CompareContract(want, got, p, o.Contract(want))
	}
	return ComparePipeline(want, got, p, o.Headers), nil
}

// ComparePipeline is Compare with a pipeline already built, in exact mode.
func ComparePipeline(want, got *cassettes.Cassette, p *normalize.Pipeline, headers []string) *Result {
	res, _ := CompareContract(want, got, p, Contract{Headers: headers})
	return res
}

// CompareContract is Compare with a pipeline already built, holding got to
// contract k: in modelled mode what got leaves out is not modelled (listed
// in Result.Model) instead of a drift. got's bodies are normalized with
// the framing of want's (its Content-Type) where got has none, so that a
// fake's stream without a type is read as the recorded stream; the
// missing header is then its own drift. A required JSONPath or a
// stream_text entry that does not parse is the error.
func CompareContract(want, got *cassettes.Cassette, p *normalize.Pipeline, k Contract) (*Result, error) {
	paths, reqHeaders, err := ParseRequired(k.Required)
	if err != nil {
		return nil, err
	}
	var text, drop []*normalize.JSONPath
	if k.Stream == Content {
		if text, drop, err = streamFields(k.StreamText); err != nil {
			return nil, err
		}
	}
	w, g := normalizePair(want, got, p)
	c := &comparer{want: want, file: want.Path, contract: k, required: paths, reqHeaders: reqHeaders,
		streamText: text, streamDrop: drop,
		res: &Result{Cassette: want.ID(), File: want.Path, Drifts: []Drift{}, Want: w, Got: g}}
	if k.Mode == Modelled {
		c.res.Model = &Model{}
	}
	for i := 0; i < max(len(w.Interactions), len(g.Interactions)); i++ {
		f := fmt.Sprintf("interactions[%d]", i)
		switch {
		case i >= len(g.Interactions):
			r := w.Interactions[i].Request
			c.add(Drift{Class: ClassInteraction, Change: Removed, Field: f, Want: r.Method + " " + r.URL})
			continue
		case i >= len(w.Interactions):
			r := g.Interactions[i].Request
			c.add(Drift{Class: ClassInteraction, Change: Added, Field: f, Got: r.Method + " " + r.URL})
			continue
		}
		wr, gr := w.Interactions[i].Response, g.Interactions[i].Response
		if wr.Code != gr.Code || !sameReason(statusText(wr), statusText(gr)) {
			c.add(Drift{Class: ClassStatus, Change: ValueChanged, Field: f + ".response.code",
				Want: strings.TrimSpace(fmt.Sprintf("%d %s", wr.Code, statusText(wr))), Got: strings.TrimSpace(fmt.Sprintf("%d %s", gr.Code, statusText(gr)))})
		}
		c.headers(f+".response.headers", wr.Headers, gr.Headers, k.Headers)
		c.body(f+".response.body", contentType(want.Interactions[i].Response.Headers), want.Interactions[i].Response.Body.Bytes(), wr.Body.Bytes(), gr.Body.Bytes())
		c.session(f, want.Interactions[i].WebSocket, w.Interactions[i].WebSocket, g.Interactions[i].WebSocket) // websocket.go
	}
	if w.Output != nil || g.Output != nil {
		var wo, gout cassettes.Output
		if w.Output != nil {
			wo = *w.Output
		}
		if g.Output != nil {
			gout = *g.Output
		}
		var raw cassettes.Output
		if want.Output != nil {
			raw = *want.Output
		}
		c.body("output.stdout", "", raw.Stdout.Bytes(), wo.Stdout.Bytes(), gout.Stdout.Bytes())
		c.body("output.stderr", "", raw.Stderr.Bytes(), wo.Stderr.Bytes(), gout.Stderr.Bytes())
		if wo.ExitCode != gout.ExitCode {
			c.add(Drift{Class: ClassExitCode, Change: ValueChanged, Field: "output.exit_code", Want: fmt.Sprint(wo.ExitCode), Got: fmt.Sprint(gout.ExitCode)})
		}
	}
	c.res.Equal = len(c.res.Drifts) == 0
	return c.res, nil
}

// sameReason compares reason phrases the way HTTP clients read them (RFC
// 9110 §15: informational only): case aside, and not at all when one side
// has none — go-vcr cassettes hold `status: 200` and `400 BAD REQUEST`
// (Python servers), which no Go fake can send over the wire.
func sameReason(a, b string) bool {
	return a == "" || b == "" || strings.EqualFold(a, b)
}

// statusText strips the code from "200 OK", as go-vcr records it.
func statusText(r cassettes.Response) string {
	return strings.TrimSpace(strings.TrimPrefix(r.Status, fmt.Sprint(r.Code)))
}

type comparer struct {
	want       *cassettes.Cassette
	file       string
	res        *Result
	contract   Contract
	required   []*normalize.JSONPath
	reqHeaders []string
	// streamText and streamDrop are the contract's stream_text, parsed
	// once (content mode).
	streamText, streamDrop []*normalize.JSONPath
}

func (c *comparer) modelled() bool { return c.contract.Mode == Modelled }

// leftOut is how many things the fake left out so far (modelled mode).
func (c *comparer) leftOut() int {
	if c.res.Model == nil {
		return 0
	}
	return len(c.res.Model.Unmodelled)
}

// scope is a new scope for one body, nil in exact mode; skip is the
// number of leading steps (a stream's record index) required paths skip.
func (c *comparer) scope(skip int) *scope {
	if !c.modelled() {
		return nil
	}
	return &scope{modelled: true, required: c.required, skip: skip}
}

// unmodelled takes in what a scope counted and found left out of field,
// each located with line.
func (c *comparer) unmodelled(field string, s *scope, line func(change) int) {
	if s == nil {
		return
	}
	for _, ch := range s.missing {
		n := 0
		fmt.Sscan(ch.got, &n)
		s.model.Unmodelled = append(s.model.Unmodelled, Unmodelled{Field: field, Path: jsonPath(ch.at), Line: line(ch), Want: snippet(ch.want), Fields: n})
	}
	c.res.Model.Add(&s.model)
}

// add locates a drift in the want file (the field's own line unless the
// caller found a more precise one) and records it.
func (c *comparer) add(d Drift) {
	d.File = c.file
	if d.Line == 0 {
		d.Line = c.want.Line(d.Field)
	}
	d.Want, d.Got = snippet(d.Want), snippet(d.Got)
	c.res.Drifts = append(c.res.Drifts, d)
}

func (c *comparer) headers(field string, w, g http.Header, only []string) {
	// With contract headers, only those are looked up; otherwise every
	// header of both sides, by its canonical name.
	wv1, gv1 := func(n string) (string, bool) { return headerValue(w, n) }, func(n string) (string, bool) { return headerValue(g, n) }
	var names []string
	required := map[string]bool{}
	if only != nil {
		for _, n := range append(append([]string(nil), only...), c.reqHeaders...) {
			n = http.CanonicalHeaderKey(n)
			if !required[n] {
				required[n] = true
				names = append(names, n)
			}
		}
		if _, ok := wv1("Content-Type"); ok && !required["Content-Type"] {
			// A body read with the other side's framing (normalizeLike)
			// is right only if the type itself is no secret: a missing
			// Content-Type is a drift of its own.
			if _, ok := gv1("Content-Type"); !ok {
				names = append(names, "Content-Type")
				required["Content-Type"] = true
			}
		}
	} else {
		canon := func(h http.Header) map[string]string {
			m := map[string]string{}
			for k, vs := range h {
				m[http.CanonicalHeaderKey(k)] = strings.Join(vs, ", ")
			}
			return m
		}
		wm, gm := canon(w), canon(g)
		wv1 = func(n string) (string, bool) { v, ok := wm[n]; return v, ok }
		gv1 = func(n string) (string, bool) { v, ok := gm[n]; return v, ok }
		for _, n := range c.reqHeaders {
			required[n] = true
		}
		seen := map[string]bool{}
		for k := range wm {
			seen[k] = true
		}
		for k := range gm {
			seen[k] = true
		}
		for k := range seen {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		wv, wok := wv1(n)
		gv, gok := gv1(n)
		if wok && gok && wv == gv || !wok && !gok {
			continue // equal, or on neither side: no line to find
		}
		f := field + "." + n
		d := Drift{Class: ClassHeaders, Field: f, Path: n, Want: wv, Got: gv, Line: c.headerLine(field, w, n)}
		switch {
		case wok && !gok && c.modelled() && !required[n]:
			c.res.Model.Unmodelled = append(c.res.Model.Unmodelled, Unmodelled{Field: f, Path: n, Line: d.Line, Want: snippet(wv)})
			continue
		case wok && !gok:
			d.Change = Removed
			if c.modelled() {
				d.Hint = RequiredHint
			}
		case !wok && gok:
			d.Change = Added
		case wv != gv:
			d.Change = ValueChanged
		default:
			continue
		}
		c.add(d)
	}
}

// headerValue is header canon of h (a canonical name), its values joined
// with ", ", under whatever spelling h holds it.
func headerValue(h http.Header, canon string) (string, bool) {
	vs, ok := h[canon]
	if !ok {
		for k, kvs := range h {
			// Canonical forms differ in the case of ASCII letters alone.
			if len(k) == len(canon) && strings.EqualFold(k, canon) && http.CanonicalHeaderKey(k) == canon {
				vs, ok = kvs, true
				break
			}
		}
	}
	if !ok {
		return "", false
	}
	return strings.Join(vs, ", "), true
}

// headerLine finds the line of a header under its recorded spelling.
func (c *comparer) headerLine(field string, h http.Header, canon string) int {
	for k := range h {
		if http.CanonicalHeaderKey(k) == canon {
			return c.want.Line(field + "." + k)
		}
	}
	return c.want.Line(field)
}

// body compares one normalized body (or stdout, stderr) by its kind. raw is
// the body as the cassette file holds it, where lines are counted.
func (c *comparer) body(field, ctype string, raw, w, g []byte) {
	if bytes.Equal(w, g) {
		if c.modelled() { // the kind is only for counting fields: parsing is not free
			c.countEqual(normalize.DetectKind(ctype, w), w)
		}
		return
	}
	wk, gk := normalize.DetectKind(ctype, w), normalize.DetectKind(ctype, g)
	before, left := len(c.res.Drifts), c.leftOut()
	base := c.want.Line(field)
	literal := isLiteral(raw)
	lineIn := func(src []byte) func(int) int {
		return func(offset int) int {
			if base == 0 || !literal || offset < 0 || offset > len(src) {
				return base
			}
			return base + 1 + bytes.Count(src[:offset], []byte("\n"))
		}
	}
	lineAt := lineIn(w)
	if !bytes.Equal(raw, w) && bytes.Count(raw, []byte("\n")) != bytes.Count(w, []byte("\n")) {
		lineAt = func(int) int { return base } // the layout changed (json.canonical): no line inside
	}
	switch {
	case wk == normalize.KindJSON && gk == normalize.KindJSON:
		// A JSON member is found by its path in the file's own text, which
		// a normalizer (json.canonical) may have laid out differently.
		src := w
		if _, err := decodeJSON(raw); err == nil {
			src = raw
		}
		if c.jsonBody(field, src, w, g, lineIn(src)) && c.modelled() {
			return // modelled: JSON is compared as values, its layout is no contract
		}
	case (wk == normalize.KindJSONL || wk == normalize.KindSSE) && wk == gk:
		wr, gr := records(wk, w), records(wk, g)
		if c.contract.Stream == Content {
			c.content(field, wr, gr, lineAt) // content.go: equal content is no drift, whatever the bytes
			return
		} else {
			c.stream(field, w, g, wr, gr, lineAt)
		}
	}
	if len(c.res.Drifts) == before && c.leftOut() == left {
		// Text, binary, a change of kind, or JSON whose layout alone differs:
		// the bytes decide, and a unified diff shows where.
		first := firstDiffOffset(w, g)
		d := Drift{Class: ClassBody, Change: Changed, Field: field, Line: lineAt(first), Want: lineOf(w, first), Got: lineOf(g, first),
			Diff: textDiff(w, g)}
		if wk == normalize.KindJSON && gk == normalize.KindJSON && sameJSON(w, g) {
			d.Hint = LayoutHint
		}
		c.add(d)
		if wk != gk {
			c.countAbsent(wk, w) // reality's fields, none of them given
		}
	}
}

// sameJSON reports whether w and g decode to the same JSON value.
func sameJSON(w, g []byte) bool {
	wv, err1 := decodeJSON(w)
	gv, err2 := decodeJSON(g)
	return err1 == nil && err2 == nil && len(jsonChanges(nil, nil, wv, gv)) == 0
}

// countEqual counts, in modelled mode, the fields of a body both sides
// hold the same.
func (c *comparer) countEqual(k normalize.Kind, b []byte) {
	if !c.modelled() {
		return
	}
	before := c.res.Model.Fields
	c.countAbsent(k, b)
	c.res.Model.Modelled += c.res.Model.Fields - before
}

// countAbsent counts, in modelled mode, the fields of a recorded body the
// fake did not give at all (it answered text, or nothing).
func (c *comparer) countAbsent(k normalize.Kind, b []byte) {
	if !c.modelled() {
		return
	}
	var s scope
	switch k {
	case normalize.KindJSON:
		if v, err := decodeJSON(b); err == nil {
			s.absent(v)
		}
	case normalize.KindJSONL, normalize.KindSSE:
		for _, v := range decodeRecords(records(k, b)) {
			s.absent(v)
		}
	}
	c.res.Model.Add(&s.model)
}

// jsonBody compares two JSON bodies structurally; it reports whether both
// decoded.
func (c *comparer) jsonBody(field string, src, w, g []byte, lineAt func(int) int) bool {
	wv, err1 := decodeJSON(w)
	gv, err2 := decodeJSON(g)
	if err1 != nil || err2 != nil {
		return false
	}
	s := c.scope(0)
	for _, ch := range jsonChanges(s, nil, wv, gv) {
		c.add(ch.drift(field, lineAt(locate(src, ch.locateSteps()))))
	}
	c.unmodelled(field, s, func(ch change) int { return lineAt(locate(src, ch.at)) })
	return true
}

// isLiteral reports whether a body is saved as a YAML literal block, so
// that its lines are lines of the file.
func isLiteral(b []byte) bool {
	v, err := cassettes.Body(b).MarshalYAML()
	n, ok := v.(*yaml.Node)
	return err == nil && ok && n.Style == yaml.LiteralStyle
}

func firstDiffOffset(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return bytes.LastIndexByte(a[:i], '\n') + 1
		}
	}
	return bytes.LastIndexByte(a[:n], '\n') + 1
}

// lineOf returns the line of b starting at offset.
func lineOf(b []byte, off int) string {
	if off > len(b) {
		return ""
	}
	line, _, _ := bytes.Cut(b[off:], []byte("\n"))
	return string(line)
}

// textDiff is a unified diff of two bodies; binary bodies are described
// instead of diffed.
func textDiff(w, g []byte) string {
	if normalize.DetectKind("", w) == normalize.KindBinary || normalize.DetectKind("", g) == normalize.KindBinary {
		return fmt.Sprintf("binary bodies differ (%d bytes want, %d bytes got)\n", len(w), len(g))
	}
	return udiff.Unified("want", "got", string(w), string(g))
}

const maxSnippet = 200

// snippet bounds a value shown in a drift, on one line.
func snippet(s string) string {
	if len(s) <= maxSnippet {
		return s
	}
	cut := maxSnippet
	for cut > 0 && s[cut]&0xC0 == 0x80 { // not inside a UTF-8 sequence
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes)", len(s))
}
