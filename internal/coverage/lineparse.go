package coverage

import (
	"strings"
	"unicode/utf8"

	"github.com/cassette-dev/cassette/internal/cfgschema"
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
	d := lineDecoder{s: string(line)}
	ok := d.object(func(key string) bool {
		switch key {
		case "v":
			return d.int(&o.V)
		case "adapter":
			return d.str(&o.Adapter)
		case "kind":
			var k string
			ok := d.str(&k)
			o.Kind = cfgschema.Kind(k)
			return ok
		case "shape":
			var s string
			ok := d.str(&s)
			o.Shape = Shape(s)
			return ok
		case "test":
			return d.str(&o.Test)
		case "source":
			return d.str(&o.Source)
		case "call":
			return d.call(&o.Call)
		}
		return false
	})
	d.space()
	return ok && d.i == len(d.s)
}

// lineDecoder reads a JSON text s from i.
type lineDecoder struct {
	s string
	i int
}

func (d *lineDecoder) call(c *Call) bool {
	return d.object(func(key string) bool {
		switch key {
		case "argv":
			return d.strs(&c.Argv)
		case "stdin":
			return d.bool(&c.Stdin)
		case "input":
			return d.str(&c.Input)
		case "method":
			return d.str(&c.Method)
		case "url":
			return d.str(&c.URL)
		case "content_type":
			return d.str(&c.ContentType)
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

// object reads an object, each member's value by field(key).
func (d *lineDecoder) object(field func(key string) bool) bool {
	if !d.next('{') {
		return false
	}
	if d.next('}') {
		return true
	}
	for {
		var key string
		if !d.str(&key) || !d.next(':') || !field(key) {
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
	if !d.next('"') {
		return false
	}
	start := d.i
	for d.i < len(d.s) {
		switch c := d.s[d.i]; {
		case c == '"':
			*v = d.s[start:d.i]
			d.i++
			return utf8.ValidString(*v)
		case c == '\\':
			return d.escaped(start, v)
		case c < 0x20:
			return false
		}
		d.i++
	}
	return false
}

// escaped reads the rest of a string that holds an escape, from start.
func (d *lineDecoder) escaped(start int, v *string) bool {
	var b strings.Builder
	b.WriteString(d.s[start:d.i])
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			*v = b.String()
			return utf8.ValidString(*v)
		case c < 0x20:
			return false
		case c != '\\':
			b.WriteByte(c)
			d.i++
			continue
		}
		if d.i+1 >= len(d.s) {
			return false
		}
		e := d.s[d.i+1]
		d.i += 2
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
			r, ok := d.hex4()
			if !ok || (r >= 0xd800 && r < 0xe000) { // a surrogate: Unmarshal pairs or replaces them
				return false
			}
			b.WriteRune(r)
		default:
			return false
		}
	}
	return false
}

func (d *lineDecoder) hex4() (rune, bool) {
	if d.i+4 > len(d.s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(d.s[d.i : d.i+4]) {
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
		if strings.HasPrefix(d.s[d.i:], lit) {
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
