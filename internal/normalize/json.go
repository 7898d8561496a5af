package normalize

import (
	"sort"
	"unicode/utf16"
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
