package coverage

import (
	"unicode/utf8"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// decodeLine decodes one observation line of the form the writers of this
// repository write (Writer: the format's keys as they are spelled, strings,
// small integers, booleans) into o without reflection: encoding/json's
// Unmarshal was two thirds of reading 100,000 observations. It returns
// false, o left for the caller to reset, for anything else (an unknown or
// differently cased key, a null, a number that is not a small integer, a
// \u escape of a surrogate, bytes that are not UTF-8, data after the
// object), which json.Unmarshal then decodes or refuses as it always did:
// where decodeLine accepts a line, it decodes it as Unmarshal does
// (FuzzDecodeLine holds the two to it).
func decodeLine(line []byte, o *Observation) bool {
	var d lineDecoder
	return d.decode(line, o)
}

// lineDecoder reads a JSON text s from i. The strings it keeps are
// copies: s may be reused for the next line. names, when set, holds the
// strings that come back line after line (the adapter, the kind, the
// test, the method …), so that each is one string however many calls
// carry it; last is each such field's string in the line before, the
// same most often.
type lineDecoder struct {
	s     []byte
	i     int
	buf   []byte // an escaped string's text, being unescaped
	names map[string]string
	tests map[string]string // a test's name as written → as shown (shown)
	test  [2]string         // the last of them
	last  [nameFields]string
}

// The fields lineDecoder.last keeps.
const (
	fieldAdapter = iota
	fieldKind
	fieldShape
	fieldTest
	fieldSource
	fieldMethod
	fieldContentType
	nameFields
)

// maxNames bounds a decoder's names: a file of as many distinct test
// names as calls keeps no more than this many.
const maxNames = 4096

// decode decodes line into o (decodeLine).
func (d *lineDecoder) decode(line []byte, o *Observation) bool {
	// Every string of a line that is UTF-8 is UTF-8 (its quotes are
	// ASCII; an escape is written as a rune, a surrogate refused): one
	// check for all of them.
	if !utf8.Valid(line) {
		return false
	}
	d.s, d.i = line, 0
	ok := d.object(func(key []byte) bool {
		switch string(key) {
		case "v":
			return d.int(&o.V)
		case "adapter":
			return d.name(&o.Adapter, fieldAdapter)
		case "kind":
			var k string
			ok := d.name(&k, fieldKind)
			o.Kind = cfgschema.Kind(k)
			return ok
		case "shape":
			var s string
			ok := d.name(&s, fieldShape)
			o.Shape = Shape(s)
			return ok
		case "test":
			return d.name(&o.Test, fieldTest)
		case "source":
			return d.name(&o.Source, fieldSource)
		case "call":
			return d.call(&o.Call)
		}
		return false
	})
	d.space()
	return ok && d.i == len(d.s)
}

func (d *lineDecoder) call(c *Call) bool {
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "argv":
			return d.strs(&c.Argv)
		case "stdin":
			return d.bool(&c.Stdin)
		case "input":
			return d.str(&c.Input)
		case "method":
			return d.name(&c.Method, fieldMethod)
		case "url":
			return d.str(&c.URL)
		case "content_type":
			return d.name(&c.ContentType, fieldContentType)
		case "body":
			return d.str(&c.Body)
		case "body_bytes":
			return d.int(&c.BodyBytes)
		}
		return false
	})
}

func (d *lineDecoder) space() {
	for d.i < len(d.s) && (d.s[d.i] == ' ' || d.s[d.i] == '\t' || d.s[d.i] == '\n' || d.s[d.i] == '\r') {
		d.i++
	}
}

// next skips blank space and reads c.
func (d *lineDecoder) next(c byte) bool {
	d.space()
	if d.i < len(d.s) && d.s[d.i] == c {
		d.i++
		return true
	}
	return false
}

// object reads an object, each member's value by field(key); key is only
// valid during the call.
func (d *lineDecoder) object(field func(key []byte) bool) bool {
	if !d.next('{') {
		return false
	}
	if d.next('}') {
		return true
	}
	for {
		key, ok := d.text()
		if !ok || !d.next(':') || !field(key) {
			return false
		}
		if d.next(',') {
			continue
		}
		return d.next('}')
	}
}

// str reads a string into *v.
func (d *lineDecoder) str(v *string) bool {
	b, ok := d.text()
	if ok {
		*v = string(b)
	}
	return ok
}

// name reads the string of a field into *v: the one copy of it the
// decoder keeps when it keeps one.
func (d *lineDecoder) name(v *string, field int) bool {
	b, ok := d.text()
	if !ok {
		return false
	}
	last := &d.last[field]
	if string(b) == *last {
		*v = *last
		return true
	}
	raw, ok := d.names[string(b)]
	if !ok {
		raw = string(b)
		if d.names != nil && len(d.names) < maxNames {
			d.names[raw] = raw
		}
	}
	*v = raw
	if d.names != nil {
		*last = raw
	}
	return true
}

// text reads a string: its bytes in s, or unescaped in buf; only valid
// until the next string is read.
func (d *lineDecoder) text() ([]byte, bool) {
	if !d.next('"') {
		return nil, false
	}
	s, start := d.s, d.i
	i := start
	for i < len(s) && inString[s[i]] {
		i++
	}
	d.i = i
	switch {
	case i == len(s):
		return nil, false
	case s[i] == '"':
		d.i++
		return s[start:i], true
	case s[i] == '\\':
		return d.escaped(start)
	}
	return nil, false // a control character
}

// inString: the bytes that stand for themselves in a JSON string (neither
// a quote, a backslash nor a control character).
var inString = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// escaped reads the rest of a string that holds an escape, from start.
func (d *lineDecoder) escaped(start int) ([]byte, bool) {
	b := append(d.buf[:0], d.s[start:d.i]...)
	defer func() { d.buf = b[:0] }()
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			return b, true
		case c < 0x20:
			return nil, false
		case c != '\\':
			b = append(b, c)
			d.i++
			continue
		}
		if d.i+1 >= len(d.s) {
			return nil, false
		}
		e := d.s[d.i+1]
		d.i += 2
		switch e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := d.hex4()
			if !ok || (r >= 0xd800 && r < 0xe000) { // a surrogate: Unmarshal pairs or replaces them
				return nil, false
			}
			b = utf8.AppendRune(b, r)
		default:
			return nil, false
		}
	}
	return nil, false
}

func (d *lineDecoder) hex4() (rune, bool) {
	if d.i+4 > len(d.s) {
		return 0, false
	}
	var r rune
	for _, c := range d.s[d.i : d.i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	d.i += 4
	return r, true
}

// strs reads an array of strings.
func (d *lineDecoder) strs(v *[]string) bool {
	if !d.next('[') {
		return false
	}
	out := []string{}
	if !d.next(']') {
		for {
			var s string
			if !d.str(&s) {
				return false
			}
			out = append(out, s)
			if d.next(',') {
				continue
			}
			if !d.next(']') {
				return false
			}
			break
		}
	}
	*v = out
	return true
}

// int reads an integer of at most 15 digits.
func (d *lineDecoder) int(v *int) bool {
	d.space()
	neg := d.i < len(d.s) && d.s[d.i] == '-'
	if neg {
		d.i++
	}
	start, n := d.i, 0
	for d.i < len(d.s) && d.s[d.i] >= '0' && d.s[d.i] <= '9' {
		n = n*10 + int(d.s[d.i]-'0')
		d.i++
	}
	digits := d.i - start
	if digits == 0 || digits > 15 || (digits > 1 && d.s[start] == '0') || !d.delimited() {
		return false
	}
	if neg {
		n = -n
	}
	*v = n
	return true
}

func (d *lineDecoder) bool(v *bool) bool {
	d.space()
	for _, lit := range []string{"true", "false"} {
		if len(d.s)-d.i >= len(lit) && string(d.s[d.i:d.i+len(lit)]) == lit {
			d.i += len(lit)
			*v = lit == "true"
			return d.delimited()
		}
	}
	return false
}

// delimited: what was just read ends there (blank space, a comma, the end
// of an object or array, or of the text).
func (d *lineDecoder) delimited() bool {
	if d.i == len(d.s) {
		return true
	}
	switch d.s[d.i] {
	case ' ', '\t', '\n', '\r', ',', '}', ']':
		return true
	}
	return false
}

// shown is a test's name as coverage shows it (outcome.Printable), worked
// out once a name.
func (d *lineDecoder) shown(test string) string {
	if test == d.test[0] {
		return d.test[1]
	}
	shown, ok := d.tests[test]
	if !ok {
		shown = outcome.Printable(test)
		if d.tests != nil && len(d.tests) < maxNames {
			d.tests[test] = shown
		}
	}
	d.test = [2]string{test, shown}
	return shown
}
