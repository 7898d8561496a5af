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
	"github.com/cassette-dev/cassette/normalize"
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
}

// Compare normalizes want and got with want's pipeline (one identity state
// each) and compares, per HTTP interaction, the status, the contract headers
// and the body, and for a CLI cassette stdout, stderr and the exit code.
// Equal is decided by byte equality of those normalized parts; every part
// that differs yields at least one Drift.
func Compare(want, got *cassettes.Cassette, o Options) (*Result, error) {
	p, err := Pipeline(want, o)
	if err != nil {
		return nil, err
	}
	return ComparePipeline(want, got, p, o.Headers), nil
}

// ComparePipeline is Compare with a pipeline already built.
func ComparePipeline(want, got *cassettes.Cassette, p *normalize.Pipeline, headers []string) *Result {
	w, g := Normalize(want, p), Normalize(got, p)
	c := &comparer{want: want, file: want.Path, res: &Result{Cassette: want.ID(), File: want.Path, Drifts: []Drift{}, Want: w, Got: g}}
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
		c.headers(f+".response.headers", wr.Headers, gr.Headers, headers)
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
	return c.res
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
	want *cassettes.Cassette
	file string
	res  *Result
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
	canon := func(h http.Header) map[string]string {
		m := map[string]string{}
		for k, vs := range h {
			m[http.CanonicalHeaderKey(k)] = strings.Join(vs, ", ")
		}
		return m
	}
	wm, gm := canon(w), canon(g)
	var names []string
	if only != nil {
		for _, n := range only {
			names = append(names, http.CanonicalHeaderKey(n))
		}
	} else {
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
		wv, wok := wm[n]
		gv, gok := gm[n]
		f := field + "." + n
		d := Drift{Class: ClassHeaders, Field: f, Path: n, Want: wv, Got: gv, Line: c.headerLine(field, w, n)}
		switch {
		case wok && !gok:
			d.Change = Removed
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
		return
	}
	before := len(c.res.Drifts)
	wk, gk := normalize.DetectKind(ctype, w), normalize.DetectKind(ctype, g)
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
		c.jsonBody(field, src, w, g, lineIn(src))
	case (wk == normalize.KindJSONL || wk == normalize.KindSSE) && wk == gk:
		c.stream(field, wk, w, g, lineAt)
	}
	if len(c.res.Drifts) == before {
		// Text, binary, a change of kind, or JSON whose layout alone differs:
		// the bytes decide, and a unified diff shows where.
		first := firstDiffOffset(w, g)
		d := Drift{Class: ClassBody, Change: Changed, Field: field, Line: lineAt(first), Want: lineOf(w, first), Got: lineOf(g, first),
			Diff: textDiff(w, g)}
		if wk == normalize.KindJSON && gk == normalize.KindJSON && sameJSON(w, g) {
			d.Hint = LayoutHint
		}
		c.add(d)
	}
}

// sameJSON reports whether w and g decode to the same JSON value.
func sameJSON(w, g []byte) bool {
	wv, err1 := decodeJSON(w)
	gv, err2 := decodeJSON(g)
	return err1 == nil && err2 == nil && len(jsonChanges(nil, wv, gv)) == 0
}

func (c *comparer) jsonBody(field string, src, w, g []byte, lineAt func(int) int) {
	wv, err1 := decodeJSON(w)
	gv, err2 := decodeJSON(g)
	if err1 != nil || err2 != nil {
		return
	}
	for _, ch := range jsonChanges(nil, wv, gv) {
		c.add(ch.drift(field, lineAt(locate(src, ch.locateSteps()))))
	}
}

// stream compares JSONL or SSE record by record.
func (c *comparer) stream(field string, k normalize.Kind, w, g []byte, lineAt func(int) int) {
	wr, gr := records(k, w), records(k, g)
	if sameMultiset(wr, gr) {
		c.add(Drift{Class: ClassStream, Change: Reordered, Field: field, Path: "$", Line: lineAt(0),
			Want: fmt.Sprintf("%d records", len(wr)), Got: "the same records in another order", Diff: textDiff(w, g)})
		return
	}
	wv, gv := decodeRecords(wr), decodeRecords(gr)
	sim := func(i, j int) float64 {
		if wv[i] == nil || gv[j] == nil {
			return 0
		}
		return similarity(wv[i], gv[j])
	}
	for _, op := range align(len(wr), len(gr), func(i, j int) bool { return wr[i].text == gr[j].text }, sim) {
		switch {
		case op.i < 0:
			c.add(Drift{Class: ClassStream, Change: Added, Field: field, Path: fmt.Sprintf("$[%d]", op.j), Line: lineAt(wrEnd(wr, w)), Got: gr[op.j].text})
		case op.j < 0:
			c.add(Drift{Class: ClassStream, Change: Removed, Field: field, Path: fmt.Sprintf("$[%d]", op.i), Line: lineAt(wr[op.i].offset), Want: wr[op.i].text})
		case wr[op.i].text != gr[op.j].text:
			wv, e1 := decodeJSON([]byte(wr[op.i].json))
			gv, e2 := decodeJSON([]byte(gr[op.j].json))
			if wr[op.i].json == "" || gr[op.j].json == "" || e1 != nil || e2 != nil {
				c.add(Drift{Class: ClassStream, Change: Changed, Field: field, Path: fmt.Sprintf("$[%d]", op.i), Line: lineAt(wr[op.i].offset),
					Want: wr[op.i].text, Got: gr[op.j].text})
				continue
			}
			n := len(c.res.Drifts)
			for _, ch := range jsonChanges([]step{{index: op.i}}, wv, gv) {
				off := locate([]byte(wr[op.i].json), ch.locateSteps()[1:])
				line := lineAt(wr[op.i].offset)
				if off > 0 {
					line = lineAt(wr[op.i].offset + wr[op.i].jsonAt + off)
				}
				c.add(ch.drift(field, line))
			}
			if len(c.res.Drifts) == n { // same JSON, different framing (SSE event name, spacing)
				c.add(Drift{Class: ClassStream, Change: Changed, Field: field, Path: fmt.Sprintf("$[%d]", op.i), Line: lineAt(wr[op.i].offset),
					Want: wr[op.i].text, Got: gr[op.j].text})
			}
		}
	}
}

// decodeRecords decodes each record's JSON payload (nil where there is none).
func decodeRecords(rs []record) []any {
	out := make([]any, len(rs))
	for i, r := range rs {
		if r.json != "" {
			if v, err := decodeJSON([]byte(r.json)); err == nil {
				out[i] = v
			}
		}
	}
	return out
}

func wrEnd(rs []record, w []byte) int {
	if len(rs) == 0 {
		return 0
	}
	return rs[len(rs)-1].offset
}

// record is one JSONL line or SSE event of a stream.
type record struct {
	text   string // the record as written
	json   string // its JSON payload, if any
	jsonAt int    // offset of the payload within text
	offset int    // offset of the record within the body
}

func records(k normalize.Kind, body []byte) []record {
	var out []record
	s := string(body)
	if k == normalize.KindJSONL {
		off := 0
		for _, line := range strings.SplitAfter(s, "\n") {
			t := strings.TrimRight(line, "\r\n")
			if strings.TrimSpace(t) != "" {
				out = append(out, record{text: t, json: t, offset: off})
			}
			off += len(line)
		}
		return out
	}
	// SSE: events are separated by a blank line; the payload is the data lines.
	off := 0
	for _, ev := range strings.SplitAfter(strings.ReplaceAll(s, "\r\n", "\n"), "\n\n") {
		t := strings.TrimRight(ev, "\n")
		if strings.TrimSpace(t) != "" {
			r := record{text: t, offset: off}
			pos := 0
			for _, line := range strings.SplitAfter(t, "\n") {
				if rest, ok := strings.CutPrefix(line, "data:"); ok && r.json == "" {
					lead := len(rest) - len(strings.TrimLeft(rest, " "))
					r.json = strings.TrimRight(strings.TrimSpace(rest), "\n")
					r.jsonAt = pos + len("data:") + lead
				}
				pos += len(line)
			}
			out = append(out, r)
		}
		off += len(ev)
	}
	return out
}

func sameMultiset(a, b []record) bool {
	if len(a) != len(b) || len(a) < 2 {
		return false
	}
	count := map[string]int{}
	ordered := true
	for i := range a {
		count[a[i].text]++
		count[b[i].text]--
		ordered = ordered && a[i].text == b[i].text
	}
	if ordered {
		return false
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
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
