package cassettes

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cassette-dev/cassette/internal/outcome"
	"go.yaml.in/yaml/v3"
)

// A large cassette is parsed one interaction at a time rather than as one
// YAML document: a node tree of the whole file is about eight times the
// file's size (1 GB for 100,000 interactions), and it was built twice (once
// for lines, once for the structs). A line scanner finds where each item of
// the top-level `interactions:` block sequence starts; the rest of the file
// (the head) is parsed as its own document with the interactions' lines
// left blank, so every line number stays what it is in the file; the items
// are parsed in batches, in parallel, each batch's node tree decoded into
// its structs and dropped. Only where each item starts is kept: Line finds
// a field inside an interaction by parsing that one item again (locate.go).
//
// Anything the scanner is not sure of (a flow sequence, tabs, a key of that
// name inside a multi-line string, anchors shared between items, a second
// document) makes the split fail, and the file is parsed whole as before:
// the split path only ever accepts what the whole parse reads the same way.

// section is where the items of `interactions:` are in a file.
type section struct {
	keyLine    int    // line of the `interactions:` key
	start, end int    // byte range of the item lines
	lines      int    // newlines in data[start:end]
	items      []item // where each item starts
}

// item is where one interaction starts: its "- " line, its bytes
// [off, next item's off), and their checksum, so that Line re-reads it from
// the file only when the file still holds it.
type item struct {
	off  int64
	line int32
	sum  uint32
}

// splitBytes is the size under which a file is parsed whole: a small file
// gains nothing from the split. (A variable for the tests, which run every
// malformed input through both paths.)
var splitBytes = 256 << 10

// findSection scans for a top-level `interactions:` key followed by a block
// sequence and returns where its items are, or nil.
func findSection(data []byte) *section {
	var s *section
	indent := -1 // the items' indentation, once known
	line := 0
	for off := 0; off < len(data); {
		line++
		end := bytes.IndexByte(data[off:], '\n')
		next := len(data)
		if end >= 0 {
			next = off + end + 1
		} else {
			end = len(data) - off
		}
		text := bytes.TrimRight(data[off:off+end], "\r")
		if s == nil {
			if bytes.Equal(bytes.TrimRight(text, " "), []byte("interactions:")) {
				s = &section{keyLine: line, start: next}
			}
			off = next
			continue
		}
		body := bytes.TrimLeft(text, " ")
		ind := len(text) - len(body)
		switch {
		case len(body) > 0 && body[0] == '\t':
			return nil // a tab in the indentation: leave it to the parser
		case len(body) == 0 || body[0] == '#':
			// blank or comment: part of the section so far
		case ind > indent && indent >= 0:
			// inside the current item
		case (indent < 0 || ind == indent) && isItemStart(body):
			indent = ind
			s.items = append(s.items, item{off: int64(off), line: int32(line)})
		default:
			if indent < 0 {
				return nil // not a block sequence of items
			}
			s.end = off
			return s.finish(data)
		}
		off = next
	}
	if s == nil || indent < 0 {
		return nil
	}
	s.end = len(data)
	return s.finish(data)
}

func isItemStart(b []byte) bool {
	return b[0] == '-' && (len(b) == 1 || b[1] == ' ')
}

func (s *section) finish(data []byte) *section {
	s.lines = bytes.Count(data[s.start:s.end], []byte("\n"))
	for i := range s.items {
		s.items[i].sum = crc32.ChecksumIEEE(s.itemBytes(data, i))
	}
	return s
}

// itemEnd is the end offset of item i.
func (s *section) itemEnd(i int) int {
	if i+1 < len(s.items) {
		return int(s.items[i+1].off)
	}
	return s.end
}

func (s *section) itemBytes(data []byte, i int) []byte {
	return data[s.items[i].off:s.itemEnd(i)]
}

// head is the file without the item lines, which are left as blank lines.
func (s *section) head(data []byte) []byte {
	out := make([]byte, 0, s.start+s.lines+len(data)-s.end)
	out = append(out, data[:s.start]...)
	out = append(out, bytes.Repeat([]byte("\n"), s.lines)...)
	return append(out, data[s.end:]...)
}

// errNoSplit says the split parse declined the file; it is parsed whole.
var errNoSplit = errors.New("cannot split")

// parseSplit is Parse's path for a large cassette; errNoSplit means the
// caller parses the file whole instead.
func parseSplit(path string, data []byte, s *section, c *Cassette, expected string, shareHeaders bool) ([]outcome.Problem, error) {
	doc, probs := parseDocument(path, s.head(data), expected)
	if len(probs) > 0 {
		return nil, errNoSplit // reported as the whole parse reports it
	}
	root := doc.Content[0]
	var key, val *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "interactions" {
			key, val = root.Content[i], root.Content[i+1]
			break
		}
	}
	if key == nil || key.Line != s.keyLine || val.Kind != yaml.ScalarNode || val.Tag != "!!null" || val.Value != "" {
		return nil, errNoSplit // the scanner's key is not the document's key
	}
	strict := carriesMetadata(root)
	c.Plain = !strict
	c.loc = &locator{head: doc, items: s.items, end: int64(s.end)}
	// The problems come in the whole parse's order: unknown keys, then
	// what decoding found, each in file order (keys before the items, the
	// items, keys after them).
	var headWarns []outcome.Problem
	known := checkKnown(path, root, reflect.TypeOf(Cassette{}), "", strict, &headWarns)
	var decoded []outcome.Problem
	if err := doc.Decode(c); err != nil {
		if !keepsDecoding(err) {
			return nil, errNoSplit // the whole parse says what it skipped
		}
		decoded = yamlProblems(path, doc, err)
	}
	c.Interactions = make([]Interaction, len(s.items))
	r, ok := parseItems(path, data, s, c.Interactions, strict, shareHeaders)
	if !ok {
		return nil, errNoSplit
	}
	around := func(head, items []outcome.Problem) []outcome.Problem {
		i := 0
		for i < len(head) && head[i].Line <= s.keyLine {
			i++
		}
		return append(append(append([]outcome.Problem(nil), head[:i]...), items...), head[i:]...)
	}
	c.Warnings = around(headWarns, r.warns)
	return append(around(known, r.known), around(decoded, r.decoded)...), nil
}

// batchItems is how many interactions one parse reads: enough to make the
// parser's setup negligible, few enough to keep each node tree small.
const batchItems = 64

// itemProblems are what parsing items found, each kind in file order.
type itemProblems struct{ known, decoded, warns []outcome.Problem }

// parseItems decodes the items of s into out, batches in parallel. It
// returns false when a batch is not what the split expected.
func parseItems(path string, data []byte, s *section, out []Interaction, strict, shareHeaders bool) (itemProblems, bool) {
	n := (len(s.items) + batchItems - 1) / batchItems
	results := make([]itemProblems, n)
	var (
		next   atomic.Int64
		failed atomic.Bool
		wg     sync.WaitGroup
	)
	workers := min(runtime.GOMAXPROCS(0), n)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() {
				b := int(next.Add(1) - 1)
				if b >= n {
					return
				}
				lo, hi := b*batchItems, min((b+1)*batchItems, len(s.items))
				text := data[s.items[lo].off:s.itemEnd(hi-1)]
				if !parseBatch(path, text, int(s.items[lo].line)-1, lo, out[lo:hi], strict, shareHeaders, &results[b]) {
					failed.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	var all itemProblems
	if failed.Load() {
		return all, false
	}
	for _, r := range results {
		all.known = append(all.known, r.known...)
		all.decoded = append(all.decoded, r.decoded...)
		all.warns = append(all.warns, r.warns...)
	}
	return all, true
}

// parseBatch decodes a run of items that starts after line offset of the
// file, the first of them interaction first: by the reader of cassette's
// own layout, or when that declines, by yaml.v3. It returns false when the text
// is not exactly len(out) mappings on its own (the split was wrong, or the
// file is not valid YAML: the whole parse then says where), or when
// decoding stops at an error.
func parseBatch(path string, text []byte, offset, first int, out []Interaction, strict, shareHeaders bool, r *itemProblems) bool {
	if fastItems(text, out, shareHeaders) { // the writer's own layout (fastdecode.go)
		return true
	}
	for i := range out {
		out[i] = Interaction{}
	}
	dec := yaml.NewDecoder(bytes.NewReader(text))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		return false
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return false
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.SequenceNode || len(doc.Content[0].Content) != len(out) {
		return false
	}
	for _, n := range doc.Content[0].Content {
		if n.Kind != yaml.MappingNode {
			return false // the whole parse drops such an item (null) or reports it alone
		}
	}
	t := reflect.TypeOf(Interaction{})
	for j, n := range doc.Content[0].Content {
		field := func() string { return fmt.Sprintf("interactions[%d]", first+j) }
		known := len(r.known)
		warns := len(r.warns)
		if !allKnown(n, t) {
			r.known = append(r.known, checkKnown(path, n, t, field(), strict, &r.warns)...)
		}
		for i := range r.known[known:] {
			r.known[known+i].Line += offset
		}
		for i := range r.warns[warns:] {
			r.warns[warns+i].Line += offset
		}
		if err := n.Decode(&out[j]); err != nil {
			if !keepsDecoding(err) {
				return false
			}
			r.decoded = append(r.decoded, yamlProblemsIn(path, n, field(), offset, err)...)
		}
	}
	shareStrings(out)
	return true
}

// shareStrings makes the interactions of a batch share one copy of each
// header value and of the short request and response fields:
// they repeat from one interaction to the next, and the decoder allocates
// every one (about a tenth of a loaded cassette's memory).
func shareStrings(out []Interaction) {
	seen := map[string]string{}
	share := func(s *string) {
		if v, ok := seen[*s]; ok {
			*s = v
		} else if len(*s) <= 128 {
			seen[*s] = *s
		}
	}
	headers := func(h http.Header) {
		for _, vs := range h {
			for i := range vs {
				share(&vs[i])
			}
		}
	}
	for i := range out {
		rq, rs := &out[i].Request, &out[i].Response
		share(&rq.Method)
		share(&rq.Host)
		share(&rq.Proto)
		share(&rs.Proto)
		share(&rs.Status)
		headers(rq.Headers)
		headers(rs.Headers)
	}
}

// keepsDecoding reports whether err leaves the rest of a document decoded
// as the whole parse decodes it: type errors do. A duplicate key makes the
// decoder skip its whole mapping (an item's: the item is dropped from the
// list), and any other error stops decoding.
func keepsDecoding(err error) bool {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return false
	}
	for _, m := range te.Errors {
		if strings.Contains(m, "already defined") {
			return false
		}
	}
	return true
}
