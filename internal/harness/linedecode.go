package harness

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// lineDecoder decodes a check line of the shape the bindings write
// without reflection: encoding/json's Decoder with DisallowUnknownFields
// was 29% of a line's cost in check. It takes one flat object of the keys
// protocol, type, id, file, adapter, error, duration_ms, replay, test and
// cli {stdout, stderr, exit_code}, each spelled as Line spells it and given
// once, with JSON strings and numbers as values. Anything else (http, a
// *_base64 field, an unknown, differently cased or repeated key, a null, a
// number Unmarshal would refuse or that needs care) it declines, and the
// line is decoded by encoding/json as before, with its messages: where
// decode accepts a line, encoding/json accepts it and gives the same Line
// (FuzzFastLineAgreesWithJSON holds the two to it).
//
// buf is kept between lines for the strings that hold escapes.
type lineDecoder struct {
	s   []byte
	i   int
	buf []byte
}

// The keys of a line and of its cli object, a bit each, to refuse a
// repeated one (encoding/json merges or overwrites: its to decide).
const (
	keyProtocol = 1 << iota
	keyType
	keyID
	keyFile
	keyAdapter
	keyError
	keyDuration
	keyReplay
	keyTest
	keyCLI
	keyStdout
	keyStderr
	keyExitCode
)

// decode decodes data into l, which must be zero, and returns the offset
// just after the object (Decoder.InputOffset's). ok false: l is left for
// the caller to reset and decode with encoding/json.
func (d *lineDecoder) decode(data []byte, l *Line) (end int, ok bool) {
	d.s, d.i = data, 0
	defer func() {
		d.s = nil
		if cap(d.buf) > 1<<20 {
			d.buf = nil // a long output's: not kept for the lines after it
		}
	}()
	seen := 0
	ok = d.object(func(key []byte) bool {
		var bit int
		var ok bool
		switch string(key) {
		case "protocol":
			bit, ok = keyProtocol, d.int(&l.Protocol)
		case "type":
			bit, ok = keyType, d.str(&l.Type)
		case "id":
			bit, ok = keyID, d.str(&l.ID)
		case "file":
			bit, ok = keyFile, d.str(&l.File)
		case "adapter":
			bit, ok = keyAdapter, d.str(&l.Adapter)
		case "error":
			bit, ok = keyError, d.str(&l.Error)
		case "duration_ms":
			bit, ok = keyDuration, d.float(&l.DurationMS)
		case "replay":
			bit, ok = keyReplay, d.str(&l.Replay)
		case "test":
			bit, ok = keyTest, d.str(&l.Test)
		case "cli":
			c := new(cliOutput)
			l.CLI = &c.CLIOutput
			bit, ok = keyCLI, d.cli(c)
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		return true
	})
	return d.i, ok
}

// cliOutput is a CLIOutput with room for its two strings: one allocation
// for the three.
type cliOutput struct {
	CLIOutput
	stdout, stderr string
}

func (d *lineDecoder) cli(c *cliOutput) bool {
	o, seen := &c.CLIOutput, 0
	return d.object(func(key []byte) bool {
		var bit int
		var ok bool
		switch string(key) {
		case "stdout":
			o.Stdout = &c.stdout
			bit, ok = keyStdout, d.str(o.Stdout)
		case "stderr":
			o.Stderr = &c.stderr
			bit, ok = keyStderr, d.str(o.Stderr)
		case "exit_code":
			bit, ok = keyExitCode, d.int(&o.ExitCode)
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		return true
	})
}

// space skips JSON's blank space.
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

// text reads a string: its bytes in s when it is plain ASCII, else as
// encoding/json unquotes it, in buf; only valid until the next string.
func (d *lineDecoder) text() ([]byte, bool) {
	if !d.next('"') {
		return nil, false
	}
	s, start := d.s, d.i
	i := start
	for i < len(s) && plain[s[i]] {
		i++
	}
	d.i = i
	if i < len(s) && s[i] == '"' {
		d.i++
		return s[start:i], true
	}
	return d.unquote(start)
}

// plain: the bytes that stand for themselves in a JSON string and are
// ASCII (neither a quote, a backslash nor a control character).
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// unquote reads the rest of a string from start, as encoding/json's
// unquote: an escape as the character it stands for, a surrogate pair as
// its rune, a lone surrogate and each byte that is not UTF-8 as U+FFFD.
func (d *lineDecoder) unquote(start int) ([]byte, bool) {
	s := d.s
	b := append(d.buf[:0], s[start:d.i]...)
	defer func() { d.buf = b[:0] }()
	for d.i < len(s) {
		switch c := s[d.i]; {
		case c == '"':
			d.i++
			return b, true
		case c < 0x20:
			return nil, false // a control character: Decoder's message
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(s[d.i:])
			if r == utf8.RuneError && n == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, s[d.i:d.i+n]...)
			}
			d.i += n
			continue
		case c != '\\':
			j := d.i + 1
			for j < len(s) && plain[s[j]] {
				j++
			}
			b = append(b, s[d.i:j]...)
			d.i = j
			continue
		}
		if d.i+1 >= len(s) {
			return nil, false
		}
		e := s[d.i+1]
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
			r := hex4(s[d.i:])
			if r < 0 {
				return nil, false
			}
			d.i += 4
			if utf16.IsSurrogate(r) {
				hi := r
				r = utf8.RuneError
				if d.i+1 < len(s) && s[d.i] == '\\' && s[d.i+1] == 'u' {
					if pair := utf16.DecodeRune(hi, hex4(s[d.i+2:])); pair != utf8.RuneError {
						r = pair
						d.i += 6
					}
				}
			}
			b = utf8.AppendRune(b, r)
		default:
			return nil, false
		}
	}
	return nil, false
}

// hex4 is the rune of four hex digits at the start of s, or -1.
func hex4(s []byte) rune {
	if len(s) < 4 {
		return -1
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return -1
		}
	}
	return r
}

// number reads a JSON number's text.
func (d *lineDecoder) number() ([]byte, bool) {
	d.space()
	s, start := d.s, d.i
	i := start
	digits := func() bool {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case !digits():
		return nil, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			return nil, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return nil, false
		}
	}
	d.i = i
	return s[start:i], true
}

// int reads an integer of at most 18 digits (no fraction, no exponent:
// Unmarshal refuses those for an int).
func (d *lineDecoder) int(v *int) bool {
	b, ok := d.number()
	if !ok {
		return false
	}
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) > 18 {
		return false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	*v = n
	return true
}

// float reads a number as Unmarshal does for a float64.
func (d *lineDecoder) float(v *float64) bool {
	b, ok := d.number()
	if !ok {
		return false
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return false
	}
	*v = f
	return true
}
