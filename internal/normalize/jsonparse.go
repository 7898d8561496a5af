package normalize

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The parser of the tree engine: a JSON document into a tree of every
// value (jsonNode), with the byte span of each.

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
	// pool, when set, holds full chunks of documents written already
	// (cleared): a streamed pipeline reuses them (nodePool).
	pool *nodePool
}

// nodeChunk is the length of a full chunk of nodes.
const nodeChunk = 512

// node returns a new node, from the current chunk.
func (p *jsonParser) node(kind byte, start int) *jsonNode {
	if len(p.chunk) == cap(p.chunk) {
		if len(p.chunks) > 0 {
			p.chunks[len(p.chunks)-1] = p.chunk
		}
		size := nodeChunk
		if len(p.chunks) == 0 { // a small document, a small chunk
			if size = min(size, len(p.src)/16+16); size < nodeChunk {
				// A value is the root or follows a ':', a ',' or a '[':
				// a document of a few values gets a chunk of a few nodes.
				size = min(size, 1+bytes.Count(p.src, []byte{':'})+bytes.Count(p.src, []byte{','})+bytes.Count(p.src, []byte{'['}))
			}
		}
		if size == nodeChunk && p.pool != nil {
			p.chunk = p.pool.get()
		} else {
			p.chunk = make([]jsonNode, 0, size)
		}
		p.chunks = append(p.chunks, nil)
	}
	p.chunk = p.chunk[:len(p.chunk)+1]
	n := &p.chunk[len(p.chunk)-1]
	n.kind, n.start = kind, start
	return n
}

const maxJSONDepth = 512

func (p *jsonParser) space() {
	for p.i < len(p.src) && spaceByte[p.src[p.i]] {
		p.i++
	}
}

// spaceByte tells JSON's white space: ' ', '\t', '\n' and '\r'.
var spaceByte = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

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
	case c == '{' || c == '[':
		return p.container(depth, start)
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

// container parses an object or an array from its opening byte at start;
// its members are gathered on the parser's stacks (an array's keys are
// "", which keeps the stacks level) and copied once at its end.
func (p *jsonParser) container(depth, start int) (*jsonNode, error) {
	obj := p.src[start] == '{'
	closer := byte(']')
	if obj {
		closer = '}'
	}
	n := p.node(p.src[start], start)
	base := len(p.kids)
	p.i++
	p.space()
	if p.i < len(p.src) && p.src[p.i] == closer {
		p.i++
		n.end = p.i
		return n, nil
	}
	for {
		p.space()
		var k string
		if obj {
			var err error
			if k, err = p.key(); err != nil {
				return nil, err
			}
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.keys = append(p.keys, k)
		p.kids = append(p.kids, v)
		if more, err := p.sep(closer); err != nil {
			return nil, err
		} else if more {
			continue
		}
		n.end = p.i
		n.mem = &members{kids: append([]*jsonNode(nil), p.kids[base:]...)}
		if obj {
			n.mem.keys = append([]string(nil), p.keys[base:]...)
		}
		p.keys, p.kids = p.keys[:base], p.kids[:base]
		return n, nil
	}
}

// key reads an object member's name and the ':' after it.
func (p *jsonParser) key() (string, error) {
	if p.i >= len(p.src) || p.src[p.i] != '"' {
		return "", p.fail("expected a key")
	}
	k, err := p.string()
	if err != nil {
		return "", err
	}
	return k, p.colon()
}

// colon reads the ':' after a member's name, and the white space around it.
func (p *jsonParser) colon() error {
	p.space()
	if p.i >= len(p.src) || p.src[p.i] != ':' {
		return p.fail("expected ':'")
	}
	p.i++
	p.space()
	return nil
}

// sep reads what follows a member of a container: a ',' (more follow) or
// the container's closer.
func (p *jsonParser) sep(closer byte) (more bool, err error) {
	p.space()
	if p.i < len(p.src) && p.src[p.i] == ',' {
		p.i++
		return true, nil
	}
	if p.i < len(p.src) && p.src[p.i] == closer {
		p.i++
		return false, nil
	}
	return false, p.fail("expected ',' or '" + string(closer) + "'")
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
		p.i = skipPlain(src, p.i)
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

// skipPlain returns the offset of the first byte of src from i that is
// not plain (plainStringByte), or of the last 8 bytes or fewer: it tests
// eight bytes at a time, as one word, for a quote, a backslash, a control
// character or a byte of 0x80 or more. (x-0x01…)&^x&0x80… flags each byte
// of x that is 0, and may flag a byte above a flagged one (the borrow), so
// that its lowest flag is the first such byte; likewise below 0x20.
func skipPlain(src []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(src); i += 8 {
		w := binary.LittleEndian.Uint64(src[i:])
		m := ((w-0x20*ones)|((w^'"'*ones)-ones)|((w^'\\'*ones)-ones))&^w | w
		if m &= highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	return i
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
