package cassettes

import (
	"bytes"
	"encoding/base64"
	"strconv"
	"strings"
	"time"
)

// The scalars of the fast reader (fastdecode.go): plain, quoted, literal
// blocks, !!binary bodies, integers and durations, each accepted only in
// the forms yaml.v3 reads as this reader does.

// str reads a string scalar on its key's line.
func (d *fastDecoder) str(rest []byte, out *string) bool {
	if rest == nil {
		return false // null, or a block below
	}
	v, ok := d.scalar(rest)
	*out = v
	return ok
}

// scalar decodes a one-line scalar that is all of s: plain (not null, no
// indicator, no comment), single- or double-quoted.
func (d *fastDecoder) scalar(s []byte) (string, bool) {
	switch s[0] {
	case '"':
		v, n, ok := doubleQuoted(s)
		return d.shareString(v), ok && n == len(s)
	case '\'':
		v, ok := singleQuoted(s)
		return d.shareString(v), ok
	}
	if !plainScalar(s) {
		return "", false
	}
	return d.share(s), true
}

// plainScalar reports whether s, all of a line's value, is a plain scalar
// YAML reads as the string s: no leading indicator, no ": " or " #", no
// trailing blank, not null.
func plainScalar(s []byte) bool {
	if len(s) == 0 || isNull(s) {
		return false
	}
	switch s[0] {
	case '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', ',':
		return false
	case '-', '?', ':':
		if len(s) == 1 || s[1] == ' ' || s[1] == '\t' {
			return false
		}
	}
	if last := s[len(s)-1]; last == ' ' || last == '\t' || last == ':' {
		return false
	}
	return !bytes.Contains(s, []byte(": ")) && !bytes.Contains(s, []byte(" #")) &&
		!bytes.Contains(s, []byte(":\t")) && !bytes.Contains(s, []byte("\t#"))
}

// body reads a body: a scalar on the key's line, a literal block below it
// (`|`, `|-`, `|+`), or either after !!binary (base64).
func (d *fastDecoder) body(ki int, rest []byte, out *Body) bool {
	if rest == nil {
		return false
	}
	binary := false
	if b, ok := bytes.CutPrefix(rest, []byte("!!binary ")); ok {
		binary, rest = true, b
	}
	if len(rest) == 0 { // "!!binary " and nothing on the line
		return false
	}
	var v string
	var ok bool
	if rest[0] == '|' {
		v, ok = d.literal(ki, rest)
	} else {
		switch rest[0] {
		case '"':
			var n int
			v, n, ok = doubleQuoted(rest)
			ok = ok && n == len(rest)
		case '\'':
			v, ok = singleQuoted(rest)
		default:
			v, ok = string(rest), plainScalar(rest)
		}
	}
	if !ok {
		return false
	}
	if binary {
		raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(v), ""))
		if err != nil {
			return false
		}
		v = string(raw)
	}
	*out = Body(v)
	return true
}

// literal reads a literal block scalar whose header is h, below a key at
// column ki: its lines are indented as its first one (more than the key),
// with clip, strip (-) or keep (+) chomping. An indentation indicator, a
// comment, a first line that is blank or a blank line longer than the
// indentation declines (the writer makes none).
func (d *fastDecoder) literal(ki int, h []byte) (string, bool) {
	chomp := byte(0)
	switch string(h) {
	case "|":
	case "|-", "|+":
		chomp = h[1]
	default:
		return "", false
	}
	if d.pos >= len(d.text) || d.blank() {
		return "", false
	}
	ind := d.indent()
	if ind <= ki || d.text[d.pos+ind] == '\t' { // yaml.v3 refuses a tab where it finds the indentation
		return "", false
	}
	start := d.pos
	var b strings.Builder
	b.Grow(d.blockSize(ind))
	blanks := 0 // blank lines held back: content only if more follows
	for d.pos < len(d.text) {
		l, next, ok := d.line()
		if !ok {
			return "", false
		}
		n := d.indent()
		if n == len(l) { // a blank line
			if n > ind {
				return "", false
			}
			blanks++
			d.pos = next
			continue
		}
		if n < ind {
			break
		}
		if d.pos > start {
			b.WriteByte('\n')
		}
		for ; blanks > 0; blanks-- {
			b.WriteByte('\n')
		}
		b.Write(l[ind:])
		d.pos = next
	}
	switch chomp {
	case 0:
		b.WriteByte('\n')
	case '+':
		b.WriteByte('\n')
		for ; blanks > 0; blanks-- {
			b.WriteByte('\n')
		}
	}
	return b.String(), true
}

// blockSize is about the size of the literal block at the current line.
func (d *fastDecoder) blockSize(ind int) int {
	n, pos := 0, d.pos
	for pos < len(d.text) {
		end := bytes.IndexByte(d.text[pos:], '\n')
		if end < 0 {
			break
		}
		l := d.text[pos : pos+end]
		sp := 0
		for sp < len(l) && l[sp] == ' ' {
			sp++
		}
		if sp < len(l) && sp < ind {
			break
		}
		n += max(0, len(l)-ind) + 1
		pos += end + 1
	}
	return n
}

// share returns s as a string, one copy per batch when it is short.
func (d *fastDecoder) share(s []byte) string {
	if len(s) > 128 {
		return string(s)
	}
	if v, ok := d.intern[string(s)]; ok {
		return v
	}
	v := string(s)
	d.intern[v] = v
	return v
}

func (d *fastDecoder) shareString(s string) string {
	if len(s) > 128 {
		return s
	}
	if v, ok := d.intern[s]; ok {
		return v
	}
	d.intern[s] = s
	return s
}

// intValue reads a decimal integer without a sign but '-' and without
// leading zeros: what yaml.v3 reads as the same int in every schema.
func intValue(s []byte, out *int) bool {
	v, ok := decimal(s)
	*out = int(v)
	return ok
}

func int64Value(s []byte, out *int64) bool {
	v, ok := decimal(s)
	*out = v
	return ok
}

func decimal(s []byte) (int64, bool) {
	t := s
	if len(t) > 0 && t[0] == '-' {
		t = t[1:]
	}
	if len(t) == 0 || len(t) > 1 && t[0] == '0' {
		return 0, false
	}
	for _, c := range t {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	v, err := strconv.ParseInt(string(s), 10, 64)
	return v, err == nil
}

// durationValue reads a duration as Duration.UnmarshalYAML does: an
// integer is nanoseconds, a plain or quoted text is Go's duration syntax,
// "" is 0.
func durationValue(s []byte, out *Duration) bool {
	if s == nil {
		return false
	}
	if v, ok := decimal(s); ok {
		*out = Duration(v)
		return true
	}
	var text string
	switch s[0] {
	case '"':
		v, n, ok := doubleQuoted(s)
		if !ok || n != len(s) {
			return false
		}
		text = v
	case '\'':
		v, ok := singleQuoted(s)
		if !ok {
			return false
		}
		text = v
	default:
		if !plainScalar(s) {
			return false
		}
		text = string(s)
	}
	text = strings.TrimSpace(text)
	if text == "" {
		*out = 0
		return s[0] == '"' || s[0] == '\''
	}
	v, err := time.ParseDuration(text)
	*out = Duration(v)
	return err == nil
}

// quotedEnd is the length of the single-quoted scalar at the start of s,
// or -1 when it does not end on this line.
func quotedEnd(s []byte) int {
	for i := 1; i < len(s); i++ {
		if s[i] == '\'' {
			if i+1 < len(s) && s[i+1] == '\'' {
				i++
				continue
			}
			return i + 1
		}
	}
	return -1
}

// singleQuoted decodes a single-quoted scalar that is all of s.
func singleQuoted(s []byte) (string, bool) {
	if len(s) < 2 || s[0] != '\'' || s[len(s)-1] != '\'' {
		return "", false
	}
	in := s[1 : len(s)-1]
	if !bytes.Contains(in, []byte("'")) {
		return string(in), true
	}
	var b strings.Builder
	for i := 0; i < len(in); i++ {
		if in[i] == '\'' {
			if i+1 >= len(in) || in[i+1] != '\'' {
				return "", false
			}
			i++
		}
		b.WriteByte(in[i])
	}
	return b.String(), true
}

// doubleQuoted decodes the double-quoted scalar at the start of s, which
// must end on this line; n is the length it took.
func doubleQuoted(s []byte) (v string, n int, ok bool) {
	i := 1
	start := i
	for i < len(s) && s[i] != '"' && s[i] != '\\' {
		i++
	}
	if i < len(s) && s[i] == '"' {
		return string(s[start:i]), i + 1, true
	}
	var b strings.Builder
	b.Write(s[start:i])
	for i < len(s) {
		c := s[i]
		switch c {
		case '"':
			return b.String(), i + 1, true
		case '\\':
			if i+1 >= len(s) {
				return "", 0, false // an escaped line break
			}
			e := s[i+1]
			i += 2
			if r, ok := simpleEscapes[e]; ok {
				b.WriteRune(r)
				continue
			}
			size := 0
			switch e {
			case 'x':
				size = 2
			case 'u':
				size = 4
			case 'U':
				size = 8
			}
			if size == 0 || i+size > len(s) {
				return "", 0, false
			}
			code, err := strconv.ParseUint(string(s[i:i+size]), 16, 32)
			if err != nil || code >= 0xd800 && code <= 0xdfff || code > 0x10ffff {
				return "", 0, false
			}
			b.WriteRune(rune(code))
			i += size
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", 0, false
}

// simpleEscapes are YAML's one-character escapes.
var simpleEscapes = map[byte]rune{
	'0': 0, 'a': '\a', 'b': '\b', 't': '\t', '\t': '\t', 'n': '\n', 'v': '\v', 'f': '\f', 'r': '\r', 'e': 0x1b,
	' ': ' ', '"': '"', '\\': '\\', 'N': 0x85, '_': 0xa0, 'L': 0x2028, 'P': 0x2029,
	// not YAML 1.2's '/': yaml.v3 refuses it
}
