package normalize

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// A jsonNode is one value of a parsed JSON document. It keeps object members
// in document order and the byte span of the value in its source, so that a
// document whose values are rewritten can be written back with its original
// spacing and key order (only json.canonical changes those).
type jsonNode struct {
	str   string // decoded string, or the raw text of a number or literal
	start int    // span of the value in the source
	end   int
	// parent, in a streamed document, is the start of the object the
	// value is a member of (stream.go).
	parent int
	mem    *members // an object's or an array's members, or nil
	// doc, on the root of a document, is the document's own.
	doc   *jsonDoc
	feat  features // featuresOf(str) | fKnown, or 0 when not computed yet
	kind  byte     // '{' object, '[' array, '"' string, '0' number, 'l' literal (true/false/null)
	dirty bool     // rewritten since parsing: write str instead of the source span
	gone  bool     // was below a value rewritten to a string: no longer in the document
	// cred: the value sits under a credential-named key (set by the first
	// redaction, or by the scan of a streamed document).
	cred bool
}

// members are an object's names and values, in order, or an array's
// elements (keys nil).
type members struct {
	keys []string
	kids []*jsonNode
}

// A jsonDoc is what the root of a document knows of all of it.
type jsonDoc struct {
	// nodes are all its nodes in document order (parents first): a walk
	// over them is a walk over memory in order, not a chase of pointers.
	// In a streamed document, only the leaves something may rewrite.
	nodes [][]jsonNode
	// flat, on a streamed document, is the plan it was scanned with;
	// epochs are its leaves under time-like names, and selected those each
	// of the plan's paths selects, in document order.
	flat     *streamPlan
	epochs   []*jsonNode
	selected [maxStreamPaths][]*jsonNode
	// credKnown: which values are under credential-named keys is known
	// (their cred is set).
	credKnown bool
}

// keys returns an object's member names.
func (n *jsonNode) keys() []string {
	if n.mem == nil {
		return nil
	}
	return n.mem.keys
}

// kids returns an object's member values or an array's elements.
func (n *jsonNode) kids() []*jsonNode {
	if n.mem == nil {
		return nil
	}
	return n.mem.kids
}

// flat returns the plan a streamed document was scanned with, or nil.
func (n *jsonNode) flat() *streamPlan {
	if n.doc == nil {
		return nil
	}
	return n.doc.flat
}

var errJSON = errors.New("not JSON")

// parseJSON parses one JSON document (RFC 8259) with nothing but white space
// around it. Duplicate keys are kept as they are.
func parseJSON(src []byte) (*jsonNode, error) {
	// One copy of the source as a string: decoded strings without escapes
	// and number texts are slices of it, not an allocation each.
	p := jsonParser{src: src, s: string(src)}
	p.space()
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.src) {
		return nil, fmt.Errorf("%w: trailing data at byte %d", errJSON, p.i)
	}
	p.chunks[len(p.chunks)-1] = p.chunk
	n.doc = &jsonDoc{nodes: p.chunks}
	return n, nil
}

type jsonParser struct {
	src []byte
	s   string // src as a string
	i   int

	// Nodes are allocated in chunks, and the members of an object or array
	// gathered on stacks and copied once when it ends: not an allocation
	// per value and per growth.
	chunk  []jsonNode
	chunks [][]jsonNode // every chunk, in order
	keys   []string
	kids   []*jsonNode
}

// node returns a new node, from the current chunk.
func (p *jsonParser) node(kind byte, start int) *jsonNode {
	if len(p.chunk) == cap(p.chunk) {
		if len(p.chunks) > 0 {
			p.chunks[len(p.chunks)-1] = p.chunk
		}
		size := 512
		if len(p.chunks) == 0 { // a small document, a small chunk
			size = min(size, len(p.src)/16+16)
		}
		p.chunk = make([]jsonNode, 0, size)
		p.chunks = append(p.chunks, nil)
	}
	p.chunk = p.chunk[:len(p.chunk)+1]
	n := &p.chunk[len(p.chunk)-1]
	n.kind, n.start = kind, start
	return n
}

const maxJSONDepth = 512

func (p *jsonParser) space() {
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) fail(what string) error {
	return fmt.Errorf("%w: %s at byte %d", errJSON, what, p.i)
}

func (p *jsonParser) value(depth int) (*jsonNode, error) {
	if depth > maxJSONDepth {
		return nil, p.fail("nesting too deep")
	}
	if p.i >= len(p.src) {
		return nil, p.fail("unexpected end")
	}
	start := p.i
	switch c := p.src[p.i]; {
	case c == '{':
		n := p.node('{', start)
		base := len(p.kids)
		p.i++
		p.space()
		if p.i < len(p.src) && p.src[p.i] == '}' {
			p.i++
			n.end = p.i
			return n, nil
		}
		for {
			p.space()
			if p.i >= len(p.src) || p.src[p.i] != '"' {
				return nil, p.fail("expected a key")
			}
			k, err := p.string()
			if err != nil {
				return nil, err
			}
			p.space()
			if p.i >= len(p.src) || p.src[p.i] != ':' {
				return nil, p.fail("expected ':'")
			}
			p.i++
			p.space()
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			p.keys = append(p.keys, k)
			p.kids = append(p.kids, v)
			p.space()
			if p.i < len(p.src) && p.src[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.src) && p.src[p.i] == '}' {
				p.i++
				n.end = p.i
				n.mem = &members{append([]string(nil), p.keys[base:]...), append([]*jsonNode(nil), p.kids[base:]...)}
				p.keys, p.kids = p.keys[:base], p.kids[:base]
				return n, nil
			}
			return nil, p.fail("expected ',' or '}'")
		}
	case c == '[':
		n := p.node('[', start)
		base := len(p.kids)
		p.i++
		p.space()
		if p.i < len(p.src) && p.src[p.i] == ']' {
			p.i++
			n.end = p.i
			return n, nil
		}
		for {
			p.space()
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			p.kids = append(p.kids, v)
			p.keys = append(p.keys, "") // keeps the stacks level
			p.space()
			if p.i < len(p.src) && p.src[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.src) && p.src[p.i] == ']' {
				p.i++
				n.end = p.i
				n.mem = &members{kids: append([]*jsonNode(nil), p.kids[base:]...)}
				p.keys, p.kids = p.keys[:base], p.kids[:base]
				return n, nil
			}
			return nil, p.fail("expected ',' or ']'")
		}
	case c == '"':
		s, err := p.string()
		if err != nil {
			return nil, err
		}
		n := p.node('"', start)
		n.end, n.str = p.i, s
		return n, nil
	case c == '-' || (c >= '0' && c <= '9'):
		if err := p.number(); err != nil {
			return nil, err
		}
		n := p.node('0', start)
		n.end, n.str = p.i, p.s[start:p.i]
		return n, nil
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(p.src[p.i:], []byte(lit)) {
				p.i += len(lit)
				n := p.node('l', start)
				n.end, n.str = p.i, lit
				return n, nil
			}
		}
		return nil, p.fail("unexpected character")
	}
}

func (p *jsonParser) number() error {
	s := p.src
	if p.i < len(s) && s[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(s) && s[p.i] == '0':
		p.i++
	case p.i < len(s) && s[p.i] >= '1' && s[p.i] <= '9':
		for p.i < len(s) && s[p.i] >= '0' && s[p.i] <= '9' {
			p.i++
		}
	default:
		return p.fail("bad number")
	}
	if p.i < len(s) && s[p.i] == '.' {
		p.i++
		d := p.i
		for p.i < len(s) && s[p.i] >= '0' && s[p.i] <= '9' {
			p.i++
		}
		if p.i == d {
			return p.fail("bad fraction")
		}
	}
	if p.i < len(s) && (s[p.i] == 'e' || s[p.i] == 'E') {
		p.i++
		if p.i < len(s) && (s[p.i] == '+' || s[p.i] == '-') {
			p.i++
		}
		d := p.i
		for p.i < len(s) && s[p.i] >= '0' && s[p.i] <= '9' {
			p.i++
		}
		if p.i == d {
			return p.fail("bad exponent")
		}
	}
	return nil
}

// string reads a JSON string starting at its opening quote.
func (p *jsonParser) string() (string, error) {
	p.i++ // opening quote
	// Most strings have no escape: they are a slice of the source.
	start := p.i
	src := p.src
	for p.i < len(src) {
		for p.i < len(src) && plainStringByte[src[p.i]] {
			p.i++
		}
		if p.i >= len(src) {
			break
		}
		c := src[p.i]
		switch {
		case c == '"':
			p.i++
			return p.s[start : p.i-1], nil
		case c == '\\':
			return p.slowString(start)
		case c < 0x20:
			return "", p.fail("control character in string")
		case c < utf8.RuneSelf:
			p.i++
		default:
			r, size := utf8.DecodeRuneInString(p.s[p.i:])
			if r == utf8.RuneError && size == 1 {
				return "", p.fail("invalid UTF-8")
			}
			p.i += size
		}
	}
	return "", p.fail("unterminated string")
}

// plainStringByte tells the bytes a string holds as they are: ASCII but
// the quote, the backslash and control characters.
var plainStringByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// slowString decodes a string with escapes; start is the byte after its
// opening quote, p.i the first escape.
func (p *jsonParser) slowString(start int) (string, error) {
	var b strings.Builder
	b.WriteString(p.s[start:p.i])
	for {
		if p.i >= len(p.src) {
			return "", p.fail("unterminated string")
		}
		c := p.src[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), nil
		case c < 0x20:
			return "", p.fail("control character in string")
		case c == '\\':
			if p.i+1 >= len(p.src) {
				return "", p.fail("bad escape")
			}
			e := p.src[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return "", p.fail("bad \\u escape")
				}
				if utf16.IsSurrogate(r) {
					r2 := utf8.RuneError
					if p.i+1 < len(p.src) && p.src[p.i] == '\\' && p.src[p.i+1] == 'u' {
						save := p.i
						p.i += 2
						lo, ok := p.hex4()
						if ok && utf16.DecodeRune(r, lo) != utf8.RuneError {
							r2 = utf16.DecodeRune(r, lo)
						} else {
							p.i = save
						}
					}
					r = r2
				}
				b.WriteRune(r)
			default:
				return "", p.fail("bad escape")
			}
		default:
			r, size := utf8.DecodeRune(p.src[p.i:])
			if r == utf8.RuneError && size == 1 {
				return "", p.fail("invalid UTF-8")
			}
			b.Write(p.src[p.i : p.i+size])
			p.i += size
		}
	}
}

func (p *jsonParser) hex4() (rune, bool) {
	if p.i+4 > len(p.src) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(p.src[p.i:p.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(v), true
}

// setString rewrites a value to a JSON string.
func (n *jsonNode) setString(s string) {
	if n.kind == '"' && n.str == s && !n.dirty {
		return
	}
	for _, k := range n.kids() {
		k.eachNode(func(d *jsonNode) { d.gone = true })
	}
	n.kind, n.str, n.dirty, n.feat = '"', s, true, fTouched
	n.mem = nil
}

// setNumber rewrites a value to a JSON number given as text.
func (n *jsonNode) setNumber(raw string) {
	if n.kind == '0' && n.str == raw {
		return
	}
	n.kind, n.str, n.dirty, n.feat = '0', raw, true, fTouched
}

// write appends the document: the source bytes where nothing changed, the
// rewritten values where something did.
func (n *jsonNode) write(dst, src []byte) []byte {
	if n.doc != nil {
		return n.writeDoc(dst, src)
	}
	if !n.changed() {
		return append(dst, src[n.start:n.end]...)
	}
	switch n.kind {
	case '{', '[':
		// Copy the source between children, rewriting the children.
		pos := n.start
		for _, k := range n.kids() {
			dst = append(dst, src[pos:k.start]...)
			dst = k.write(dst, src)
			pos = k.end
		}
		return append(dst, src[pos:n.end]...)
	case '"':
		return appendJSONString(dst, n.str)
	}
	return append(dst, n.str...)
}

// changed reports whether n or anything below it was rewritten (or keys were).
func (n *jsonNode) changed() bool {
	if n.dirty {
		return true
	}
	for _, k := range n.kids() {
		if k.changed() {
			return true
		}
	}
	return false
}

// writeCanonical appends the document with object members sorted by key
// (RFC 8785 order: UTF-16 code units), no insignificant white space, and
// strings escaped as RFC 8785 does. Numbers keep their text, so 64-bit ids
// never lose precision (unlike a float64 round trip).
func (n *jsonNode) writeCanonical(dst []byte) []byte {
	switch n.kind {
	case '{':
		keys, kids := n.keys(), n.kids()
		idx := make([]int, len(keys))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return utf16Less(keys[idx[a]], keys[idx[b]]) })
		dst = append(dst, '{')
		for j, i := range idx {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, keys[i])
			dst = append(dst, ':')
			dst = kids[i].writeCanonical(dst)
		}
		return append(dst, '}')
	case '[':
		dst = append(dst, '[')
		for i, k := range n.kids() {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = k.writeCanonical(dst)
		}
		return append(dst, ']')
	case '"':
		return appendJSONString(dst, n.str)
	}
	return append(dst, n.str...)
}

func utf16Less(a, b string) bool {
	if isASCII(a) && isASCII(b) {
		return a < b // one code unit a byte
	}
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}

// appendJSONString writes s as RFC 8785 does: only ", \ and control
// characters are escaped, with the short forms where JSON has them.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	plain := 0 // the bytes before the first that needs an escape
	for plain < len(s) && s[plain] >= 0x20 && s[plain] != '"' && s[plain] != '\\' {
		plain++
	}
	dst = append(dst, s[:plain]...)
	s = s[plain:]
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\b':
			dst = append(dst, '\\', 'b')
		case c == '\f':
			dst = append(dst, '\\', 'f')
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}

// walk visits every value in document order with its location; it stops
// descending where fn returns false.
func (n *jsonNode) walk(path []pathStep, fn func(n *jsonNode, path []pathStep) bool) {
	if !fn(n, path) || len(n.kids()) == 0 {
		return
	}
	// One slot for the children's step, reused: not a slice per child.
	path = append(path, pathStep{})
	for i, k := range n.kids() {
		step := pathStep{index: i}
		if n.kind == '{' {
			step = pathStep{key: n.keys()[i], isKey: true}
		}
		path[len(path)-1] = step
		k.walk(path, fn)
	}
}

// pathStep is one step of a concrete location: an object member or an array index.
type pathStep struct {
	key   string
	index int
	isKey bool
}
