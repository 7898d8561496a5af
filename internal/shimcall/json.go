package shimcall

import (
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends the call as one JSON object, the fields and their
// omissions those of its json tags (encoding/json decodes it, in
// observe), written without reflection: the shim links no encoding/json.
func (r *Request) AppendJSON(b []byte) []byte {
	b = append(b, `{"adapter":`...)
	b = appendJSONString(b, r.Adapter)
	b = append(b, `,"argv":`...)
	b = appendJSONList(b, r.Argv)
	if r.Stdin {
		b = append(b, `,"stdin":true`...)
	}
	if r.Input != "" {
		b = append(b, `,"input":`...)
		b = appendJSONString(b, r.Input)
	}
	if r.Caller != "" {
		b = append(b, `,"caller":`...)
		b = appendJSONString(b, r.Caller)
	}
	if len(r.Env) > 0 {
		b = append(b, `,"env":`...)
		b = appendJSONList(b, r.Env)
	}
	return append(b, '}')
}

func appendJSONList(b []byte, vs []string) []byte {
	if vs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, v := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, v)
	}
	return append(b, ']')
}

// appendJSONString appends s as a JSON string, as encoding/json writes it
// for a decoder: a byte that is not UTF-8 becomes U+FFFD, a control
// character an escape.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == 0x7f:
				b = append(b, `\u00`...)
				b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029': // valid JSON, but not in a JavaScript string
			b = append(b, `\u`...)
			b = strconv.AppendInt(b, int64(r), 16)
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
