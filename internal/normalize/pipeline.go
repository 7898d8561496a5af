package normalize

import (
	"bytes"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"
)

// Pipeline applies a list of normalizers, in order, identically to whatever
// it is given. It is immutable and safe for concurrent use; the identity
// numbering lives in the State passed to each call.
//
// Every pipeline redacts credentials first and last, whether or not
// redact.credentials is listed: normalized forms end up in diffs and reports,
// and no credential may reach those.
type Pipeline struct {
	names     []string
	steps     []Normalizer
	stages    []stage // steps grouped for JSON documents (see plan)
	redact    Normalizer
	canonical bool
	stream    *streamPlan // nil: documents are parsed into trees
}

// Names returns the names the pipeline was built from.
func (p *Pipeline) Names() []string { return append([]string(nil), p.names...) }

// Kind is how a body is normalized and compared.
type Kind string

// The body kinds.
const (
	KindJSON   Kind = "json"   // one JSON document
	KindJSONL  Kind = "jsonl"  // JSON records, one a line (NDJSON, stream-json)
	KindSSE    Kind = "sse"    // text/event-stream
	KindText   Kind = "text"   // other UTF-8
	KindBinary Kind = "binary" // not UTF-8
	KindEmpty  Kind = "empty"
)

// DetectKind classifies a body by its Content-Type, falling back to its
// content when the type is missing or generic: a body that parses as one
// JSON document is JSON, one whose every non-blank line parses is JSONL.
// A body that claims JSON but does not parse is text.
func DetectKind(contentType string, body []byte) Kind {
	k := detect(contentType, body)
	if k == kindMaybeJSON {
		if _, err := parseJSON(body); err == nil {
			return KindJSON
		}
		return linesOrText(body)
	}
	return k
}

// kindMaybeJSON is detect's answer for a body that is JSON if it parses
// as one document, else JSONL or text (linesOrText).
const kindMaybeJSON Kind = "json?"

// detect classifies a body without parsing it as JSON: by its type, then
// its first bytes. A document is JSON when its type says so or it is an
// object or an array: a CLI's `1612651` or `true` is text (a short SHA of
// digits read as a number escaped every text rule).
func detect(contentType string, body []byte) Kind {
	if len(body) == 0 {
		return KindEmpty
	}
	if !utf8.Valid(body) {
		return KindBinary
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	switch {
	case mt == "text/event-stream":
		return KindSSE
	case jsonLinesType(mt):
		if isJSONL(body) {
			return KindJSONL
		}
		return KindText
	case jsonType(mt) || startsContainer(body):
		return kindMaybeJSON
	}
	return linesOrText(body)
}

// linesOrText is JSONL when every non-blank line of body is a JSON object
// or array, else text.
func linesOrText(body []byte) Kind {
	if isJSONL(body) {
		return KindJSONL
	}
	return KindText
}

// jsonType reports whether a media type is JSON's (application/json, or a
// +json suffix such as application/vnd.github+json).
func jsonType(mt string) bool {
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// startsContainer reports whether body's first non-blank byte opens a JSON
// object or array.
func startsContainer(body []byte) bool {
	t := bytes.TrimLeft(body, " \t\r\n")
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

// jsonLinesType reports whether a media type is one of JSON records a line.
func jsonLinesType(mt string) bool {
	switch mt {
	case "application/x-ndjson", "application/jsonl", "application/x-jsonlines",
		"application/jsonlines", "application/stream+json", "application/json-seq":
		return true
	}
	return false
}

// isJSONL reports whether body has at least one line and every non-blank
// line is a JSON object or array.
func isJSONL(body []byte) bool {
	n := 0
	for _, line := range bytes.Split(body, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if line[0] != '{' && line[0] != '[' {
			return false
		}
		if _, err := parseJSON(line); err != nil {
			return false
		}
		n++
	}
	return n > 0
}

// Body normalizes an HTTP body of the given Content-Type: JSON as JSON
// (values by path), JSONL and SSE record by record, other UTF-8 as text, and
// binary only with byte-safe normalizers.
func (p *Pipeline) Body(st *State, contentType string, body []byte) []byte {
	k := detect(contentType, body)
	if k == kindMaybeJSON {
		if out, ok := p.JSON(st, body); ok { // parsed once, for detection and normalizing
			return out
		}
		k = linesOrText(body)
	}
	return p.kind(st, k, body)
}

// Output normalizes a CLI stdout or stderr: a JSON document or JSONL stream
// as JSON record by record, anything else as text.
func (p *Pipeline) Output(st *State, out []byte) []byte {
	return p.Body(st, "", out)
}

// kind normalizes a body already classified as k.
func (p *Pipeline) kind(st *State, k Kind, body []byte) []byte {
	switch k {
	case KindEmpty:
		return body
	case KindBinary:
		return p.binary(st, body)
	case KindJSON:
		if out, ok := p.JSON(st, body); ok {
			return out
		}
	case KindJSONL:
		return p.lines(st, body, func(line string) string {
			if out, ok := p.JSON(st, []byte(line)); ok {
				return string(out)
			}
			return p.Text(st, line)
		})
	case KindSSE:
		return p.lines(st, body, func(line string) string {
			if rest, ok := strings.CutPrefix(line, "data:"); ok {
				sp := ""
				if strings.HasPrefix(rest, " ") {
					sp, rest = " ", rest[1:]
				}
				if out, ok := p.JSON(st, []byte(rest)); ok {
					return "data:" + sp + string(out)
				}
				return "data:" + sp + p.Text(st, rest)
			}
			return p.Text(st, line)
		})
	}
	return []byte(p.Text(st, string(body)))
}

// lines applies fn to every line (without its "\n" or "\r\n") and keeps the
// line ends, so that record boundaries survive normalization.
func (p *Pipeline) lines(st *State, body []byte, fn func(string) string) []byte {
	var out bytes.Buffer
	out.Grow(len(body))
	s := string(body)
	for s != "" {
		line, rest, nl := strings.Cut(s, "\n")
		cr := strings.HasSuffix(line, "\r")
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) != "" {
			line = fn(line)
		}
		out.WriteString(line)
		if cr {
			out.WriteByte('\r')
		}
		if nl {
			out.WriteByte('\n')
		}
		s = rest
	}
	return out.Bytes()
}

// maxPasses bounds the passes of a pipeline. A pass can expose a new match
// (a rule that removes "+0000" lets another see a date it could not before),
// so a pipeline runs until a pass changes nothing; real text settles in two.
const maxPasses = 4

// Text normalizes text with every text normalizer in order: credentials
// are redacted, the normalizers run until a pass changes nothing, and
// credentials are redacted again (a rewritten neighbour can expose a key).
// The second redaction is skipped when it would read the very text the
// first one read and left as it was (no normalizer changed it): redaction
// gives the same answer for the same text. Most header values and short
// texts are such, and each redaction is a scan for every key format.
func (p *Pipeline) Text(st *State, s string) string {
	r := p.redact.Text(s, st)
	same := r == s // the text the first redaction read, unchanged
	s = r
	for range maxPasses {
		t := p.textPass(st, s)
		if t == s {
			break
		}
		s, same = t, false
	}
	if same {
		return s
	}
	return p.redact.Text(s, st)
}

func (p *Pipeline) textPass(st *State, s string) string {
	for _, n := range p.steps {
		if n.Text != nil {
			s = n.Text(s, st)
		}
	}
	return s
}

func (p *Pipeline) binary(st *State, b []byte) []byte {
	s := p.redact.Text(string(b), st)
	for _, n := range p.steps {
		if n.ByteSafe && n.Text != nil {
			s = n.Text(s, st)
		}
	}
	return []byte(p.redact.Text(s, st))
}

// JSON normalizes one JSON document: each normalizer in order rewrites it by
// path and then rewrites its string values as text. The document keeps its
// key order and spacing unless json.canonical is in the pipeline. It reports
// false, and does nothing, when data is not JSON.
func (p *Pipeline) JSON(st *State, data []byte) ([]byte, bool) {
	if p.stream != nil {
		if root, err := p.stream.scan(data); err == nil {
			out := p.json(st, root, data) // a copy: nothing of root is kept
			p.stream.release(root)
			return out, true
		} else if err != errBail {
			return nil, false
		}
	}
	root, err := parseJSON(data)
	if err != nil {
		return nil, false
	}
	return p.json(st, root, data), true
}

// json normalizes the document root parsed from data. Passes run until
// one changes no value (settle): the document is written once, at the end.
func (p *Pipeline) json(st *State, root *jsonNode, data []byte) []byte {
	p.jsonStep(root, st, p.redact)
	for range maxPasses {
		for _, s := range p.stages {
			s.run(root, st)
		}
		if !root.settle() {
			break // no value changed: nothing more will
		}
	}
	p.jsonStep(root, st, p.redact)
	if p.canonical {
		return root.writeCanonical(make([]byte, 0, len(data)))
	}
	// Keep the white space around the document (a trailing newline is part
	// of the body's bytes).
	out := append(make([]byte, 0, len(data)+len(data)/8), data[:root.start]...)
	out = root.write(out, data)
	return append(out, data[root.end:]...)
}

func (p *Pipeline) jsonStep(root *jsonNode, st *State, n Normalizer) {
	if n.json != nil {
		n.json(root, st)
	}
	if n.redactor != nil {
		n.redactor.strings(root)
	} else if n.Text != nil {
		root.eachString(func(v *jsonNode) {
			if s := n.Text(v.str, st); s != v.str {
				v.setString(s)
			}
		})
	}
}

// Headers returns a normalized copy of h: header normalizers first, then
// the text normalizers on every value (as Text does). Header names are kept as given.
func (p *Pipeline) Headers(st *State, h http.Header) http.Header {
	if h == nil {
		return nil
	}
	// The copy's values share one array, each slice capped at its own
	// length (a normalizer that appends gets an array of its own).
	out, all := make(http.Header, len(h)), 0
	for _, vs := range h {
		all += len(vs)
	}
	vals := make([]string, all)
	for k, vs := range h {
		if len(vs) == 0 {
			out[k] = nil
			continue
		}
		out[k] = vals[:len(vs):len(vs)]
		copy(out[k], vs)
		vals = vals[len(vs):]
	}
	if p.redact.Headers != nil {
		p.redact.Headers(out, st)
	}
	for _, n := range p.steps {
		if n.Headers != nil {
			n.Headers(out, st)
		}
	}
	for _, k := range sortedHeaderKeys(out) {
		for i, v := range out[k] {
			out[k][i] = p.Text(st, v)
		}
	}
	return out
}
