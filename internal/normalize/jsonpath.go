package normalize

import (
	"fmt"
	"strconv"
	"strings"
)

// A JSONPath is a compiled RFC 9535 query. Supported: the root `$`, name
// selectors (`.name`, `['name']`, `["name"]`), wildcards (`.*`, `[*]`),
// indexes (`[0]`, `[-1]`), slices (`[1:3]`, `[::2]`), unions of those
// (`['a','b']`, `[0,2]`) and descendant segments (`..name`, `..*`, `..[0]`).
// Filter selectors (`[?...]`) are rejected with an error that says so.
type JSONPath struct {
	src  string
	segs []segment
}

type segment struct {
	descendant bool
	sels       []selector
}

type selector struct {
	kind             byte // 'n' name, '*' wildcard, 'i' index, 's' slice
	name             string
	index            int
	start, end, step int
	hasStart, hasEnd bool
}

// String returns the query as it was written.
func (p *JSONPath) String() string { return p.src }

// ParseJSONPath compiles an RFC 9535 JSONPath query.
func ParseJSONPath(s string) (*JSONPath, error) {
	q := &JSONPath{src: s}
	if !strings.HasPrefix(s, "$") {
		return nil, fmt.Errorf("JSONPath %q must start with $", s)
	}
	i := 1
	for i < len(s) {
		var seg segment
		switch {
		case strings.HasPrefix(s[i:], ".."):
			seg.descendant = true
			i += 2
			if i < len(s) && s[i] == '[' {
				sels, n, err := parseBracket(s, i)
				if err != nil {
					return nil, err
				}
				seg.sels, i = sels, n
			} else {
				sel, n, err := parseDotted(s, i)
				if err != nil {
					return nil, err
				}
				seg.sels, i = []selector{sel}, n
			}
		case s[i] == '.':
			sel, n, err := parseDotted(s, i+1)
			if err != nil {
				return nil, err
			}
			seg.sels, i = []selector{sel}, n
		case s[i] == '[':
			sels, n, err := parseBracket(s, i)
			if err != nil {
				return nil, err
			}
			seg.sels, i = sels, n
		default:
			return nil, fmt.Errorf("JSONPath %q: unexpected %q at offset %d (expected . or [)", s, s[i], i)
		}
		q.segs = append(q.segs, seg)
	}
	return q, nil
}

// parseDotted reads a member name or * after a dot.
func parseDotted(s string, i int) (selector, int, error) {
	if i < len(s) && s[i] == '*' {
		return selector{kind: '*'}, i + 1, nil
	}
	j := i
	for j < len(s) && s[j] != '.' && s[j] != '[' {
		c := s[j]
		if c == ' ' || c == '\'' || c == '"' || c == ']' || c == '?' || c == '(' {
			return selector{}, 0, fmt.Errorf("JSONPath %q: %q is not allowed in a dotted name at offset %d; use ['...']", s, c, j)
		}
		j++
	}
	if j == i {
		return selector{}, 0, fmt.Errorf("JSONPath %q: empty name at offset %d", s, i)
	}
	if c := s[i]; c >= '0' && c <= '9' {
		return selector{}, 0, fmt.Errorf("JSONPath %q: a dotted name cannot start with a digit at offset %d; use [%s] for an index", s, i, s[i:j])
	}
	return selector{kind: 'n', name: s[i:j]}, j, nil
}

// parseBracket reads a bracketed selector list starting at '['.
func parseBracket(s string, i int) ([]selector, int, error) {
	i++ // [
	var sels []selector
	for {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i >= len(s) {
			return nil, 0, fmt.Errorf("JSONPath %q: unterminated [", s)
		}
		switch c := s[i]; {
		case c == '?':
			return nil, 0, fmt.Errorf("JSONPath %q: filter selectors ([?...]) are not supported; select by name, index or wildcard", s)
		case c == '*':
			sels = append(sels, selector{kind: '*'})
			i++
		case c == '\'' || c == '"':
			name, n, err := parseQuoted(s, i)
			if err != nil {
				return nil, 0, err
			}
			sels = append(sels, selector{kind: 'n', name: name})
			i = n
		default:
			j := i
			for j < len(s) && s[j] != ',' && s[j] != ']' {
				j++
			}
			sel, err := parseIndexOrSlice(strings.TrimSpace(s[i:j]))
			if err != nil {
				return nil, 0, fmt.Errorf("JSONPath %q: %v", s, err)
			}
			sels = append(sels, sel)
			i = j
		}
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i >= len(s) {
			return nil, 0, fmt.Errorf("JSONPath %q: unterminated [", s)
		}
		if s[i] == ']' {
			return sels, i + 1, nil
		}
		if s[i] != ',' {
			return nil, 0, fmt.Errorf("JSONPath %q: expected , or ] at offset %d", s, i)
		}
		i++
	}
}

func parseQuoted(s string, i int) (string, int, error) {
	q := s[i]
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case q:
			return b.String(), j + 1, nil
		case '\\':
			if j+1 >= len(s) {
				break
			}
			j++
			switch s[j] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(s[j])
			}
		default:
			b.WriteByte(s[j])
		}
	}
	return "", 0, fmt.Errorf("JSONPath %q: unterminated quoted name", s)
}

func parseIndexOrSlice(t string) (selector, error) {
	if !strings.Contains(t, ":") {
		n, err := strconv.Atoi(t)
		if err != nil {
			return selector{}, fmt.Errorf("%q is not an index, a slice, a quoted name or *", t)
		}
		return selector{kind: 'i', index: n}, nil
	}
	parts := strings.Split(t, ":")
	if len(parts) > 3 {
		return selector{}, fmt.Errorf("slice %q has too many colons", t)
	}
	sel := selector{kind: 's', step: 1}
	for k, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		n, err := strconv.Atoi(p)
		if err != nil {
			return selector{}, fmt.Errorf("slice %q: %q is not an integer", t, p)
		}
		switch k {
		case 0:
			sel.start, sel.hasStart = n, true
		case 1:
			sel.end, sel.hasEnd = n, true
		case 2:
			sel.step = n
		}
	}
	return sel, nil
}

// selectNodes returns the nodes a query selects, in document order of the
// query's evaluation (RFC 9535 §2.3), each at most once.
func (p *JSONPath) selectNodes(root *jsonNode) []*jsonNode {
	if f := root.flat(); f != nil {
		return f.selected(root, p)
	}
	cur := []*jsonNode{root}
	for _, seg := range p.segs {
		var next []*jsonNode
		for _, n := range cur {
			if seg.descendant {
				n.walk(nil, func(d *jsonNode, _ []pathStep) bool {
					next = append(next, applySelectors(d, seg.sels)...)
					return true
				})
			} else {
				next = append(next, applySelectors(n, seg.sels)...)
			}
		}
		cur = next
	}
	seen := make(map[*jsonNode]bool, len(cur))
	out := cur[:0]
	for _, n := range cur {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

func applySelectors(n *jsonNode, sels []selector) []*jsonNode {
	var out []*jsonNode
	for _, s := range sels {
		switch s.kind {
		case '*':
			if n.kind == '{' || n.kind == '[' {
				out = append(out, n.kids()...)
			}
		case 'n':
			if n.kind == '{' {
				for i, k := range n.keys() {
					if k == s.name {
						out = append(out, n.kids()[i])
					}
				}
			}
		case 'i':
			if n.kind == '[' {
				i := s.index
				if i < 0 {
					i += len(n.kids())
				}
				if i >= 0 && i < len(n.kids()) {
					out = append(out, n.kids()[i])
				}
			}
		case 's':
			if n.kind == '[' && s.step != 0 {
				out = append(out, slice(n.kids(), s)...)
			}
		}
	}
	return out
}

// slice implements RFC 9535 §2.3.4.2.2.
func slice(kids []*jsonNode, s selector) []*jsonNode {
	l := len(kids)
	norm := func(i int) int {
		if i < 0 {
			return i + l
		}
		return i
	}
	var out []*jsonNode
	if s.step > 0 {
		lo, hi := 0, l
		if s.hasStart {
			lo = min(max(norm(s.start), 0), l)
		}
		if s.hasEnd {
			hi = min(max(norm(s.end), 0), l)
		}
		for i := lo; i < hi; i += s.step {
			out = append(out, kids[i])
		}
		return out
	}
	lo, hi := -1, l-1
	if s.hasStart {
		hi = min(max(norm(s.start), -1), l-1)
	}
	if s.hasEnd {
		lo = min(max(norm(s.end), -1), l-1)
	}
	for i := hi; i > lo; i += s.step {
		out = append(out, kids[i])
	}
	return out
}

// lastName is the last member name a query selects by, used to name the
// placeholders of a json.path normalizer: $.items[*].id → "id".
func (p *JSONPath) lastName() string {
	for i := len(p.segs) - 1; i >= 0; i-- {
		for _, s := range p.segs[i].sels {
			if s.kind == 'n' {
				return s.name
			}
		}
	}
	return "value"
}

// A PathStep is one step of a concrete location in a JSON document: a
// member name (Name, IsName) or an array index (Index of an array of Len
// items).
type PathStep struct {
	Name   string
	IsName bool
	Index  int
	Len    int
}

// Matches reports whether the query selects the value at the concrete
// location at (from the root): `$.items[*].id` matches items[3].id. It is
// how a list of JSONPaths (verify's `required:`) is held against the
// fields one document has, without evaluating every query on it.
func (p *JSONPath) Matches(at []PathStep) bool { return matchSegs(p.segs, at) }

func matchSegs(segs []segment, at []PathStep) bool {
	if len(segs) == 0 {
		return len(at) == 0
	}
	seg := segs[0]
	if seg.descendant {
		// ..sel: the selector applies at this step or any deeper one.
		for skip := 0; skip < len(at); skip++ {
			if matchStep(seg.sels, at[skip]) && matchSegs(segs[1:], at[skip+1:]) {
				return true
			}
		}
		return false
	}
	return len(at) > 0 && matchStep(seg.sels, at[0]) && matchSegs(segs[1:], at[1:])
}

func matchStep(sels []selector, st PathStep) bool {
	for _, s := range sels {
		switch s.kind {
		case '*':
			return true
		case 'n':
			if st.IsName && st.Name == s.name {
				return true
			}
		case 'i':
			i := s.index
			if i < 0 {
				i += st.Len
			}
			if !st.IsName && i == st.Index {
				return true
			}
		case 's':
			if !st.IsName && s.step != 0 {
				kids := make([]*jsonNode, st.Len)
				for k := range kids {
					kids[k] = &jsonNode{}
				}
				for _, n := range slice(kids, s) {
					if n == kids[st.Index] {
						return true
					}
				}
			}
		}
	}
	return false
}
