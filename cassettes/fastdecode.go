package cassettes

import (
	"bytes"
	"hash/maphash"
	"net/http"
	"unicode/utf8"
)

// The interactions of a large cassette are decoded by a reader of the
// layout cassette's own writer produces (Marshal): block mappings and
// sequences, scalars plain, single- or double-quoted on one line, bodies
// as literal blocks or !!binary, `{}` and `[]` for empty collections. It
// decodes straight into the structs: yaml.v3 builds a node tree of every
// item first (a dozen nodes a header), and was most of the time a large
// cassette took to load. Anything else it meets (a comment, an anchor, a
// tag but !!binary on a body, a flow collection that is not empty, a
// scalar over several lines, a null, an unknown or repeated key, a value
// of the wrong type, CR line ends, a character YAML reads as a line break)
// makes it decline the whole batch, which yaml.v3 then decodes as before,
// with its messages, lines and suggestions. FuzzFastDecodeAgreesWithYAML
// holds it to yaml.v3 on everything it accepts.

// fastDecoder reads the items of one batch.
type fastDecoder struct {
	text []byte
	pos  int // start of the current line
	// intern shares one copy of each short string of the batch (header
	// names and values, methods, statuses): they repeat from one
	// interaction to the next.
	intern map[string]string
	// shared, when set, holds each block of request or response headers
	// read so far, by a hash of its text: the same text again is given the
	// same map (LoadOptions.ShareHeaders).
	shared map[uint64]sharedHeader
}

// sharedHeader is a block of headers the batch read: its text is
// text[start:end], below a key at column ki.
type sharedHeader struct {
	start, end, ki int
	h              map[string][]string
}

// fastItems decodes text, a block sequence of exactly len(out) mappings
// (interactions), into out; false when it declines (out is then decoded
// again from scratch). With share, interactions whose headers have the
// same text get the same http.Header (LoadOptions.ShareHeaders).
func fastItems(text []byte, out []Interaction, share bool) bool {
	if len(out) == 0 || !plainText(text) {
		return false
	}
	d := &fastDecoder{text: text, intern: make(map[string]string, 64)}
	if share {
		d.shared = make(map[uint64]sharedHeader, 2*len(out))
	}
	d.skipBlank()
	ind := d.indent()
	for i := range out {
		if d.pos >= len(d.text) || d.indent() != ind || !d.at(ind, "- ") {
			return false
		}
		it := &out[i]
		*it = Interaction{}
		if !d.mapping(ind+2, true, func(key []byte, ki int, rest []byte) bool { return d.interaction(it, key, ki, rest) }) {
			return false
		}
	}
	d.skipBlank()
	return d.pos == len(d.text)
}

// plainText reports whether text is valid UTF-8 without what this reader
// leaves to yaml.v3: CR, control characters but tab and LF, DEL, a BOM,
// and NEL, LS and PS (which YAML may read as line breaks).
func plainText(text []byte) bool {
	if !utf8.Valid(text) {
		return false
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c < 0x20 && c != '\t' && c != '\n', c == 0x7f:
			return false
		case c == 0xc2 && i+1 < len(text) && text[i+1] == 0x85: // NEL
			return false
		case c == 0xe2 && i+2 < len(text) && text[i+1] == 0x80 && (text[i+2] == 0xa8 || text[i+2] == 0xa9): // LS, PS
			return false
		case c == 0xef && i+2 < len(text) && text[i+1] == 0xbb && text[i+2] == 0xbf: // BOM
			return false
		}
	}
	return true
}

// line returns the current line without its newline, and where the next
// starts; ok is false when the line has no newline (the text must end
// with one).
func (d *fastDecoder) line() (l []byte, next int, ok bool) {
	end := bytes.IndexByte(d.text[d.pos:], '\n')
	if end < 0 {
		return d.text[d.pos:], len(d.text), false
	}
	return d.text[d.pos : d.pos+end], d.pos + end + 1, true
}

// indent is the number of spaces the current line starts with.
func (d *fastDecoder) indent() int {
	n := 0
	for d.pos+n < len(d.text) && d.text[d.pos+n] == ' ' {
		n++
	}
	return n
}

// at reports whether the current line holds s at column col.
func (d *fastDecoder) at(col int, s string) bool {
	return d.pos+col <= len(d.text) && bytes.HasPrefix(d.text[d.pos+col:], []byte(s))
}

// blank reports whether the current line holds nothing but spaces.
func (d *fastDecoder) blank() bool {
	l, _, _ := d.line()
	return len(bytes.TrimLeft(l, " ")) == 0
}

func (d *fastDecoder) skipBlank() {
	for d.pos < len(d.text) && d.blank() {
		_, d.pos, _ = d.line()
	}
}

// more reports whether, after blank lines, a line at exactly indentation
// ind follows; false, with ok false, when one more indented follows.
func (d *fastDecoder) more(ind int) (more, ok bool) {
	d.skipBlank()
	if d.pos >= len(d.text) {
		return false, true
	}
	n := d.indent()
	return n == ind, n <= ind
}

// mapping reads a block mapping whose keys are at column ind: the first on
// the current line (after "- " when item is set), the others each on a
// line of its own indented by ind. fn gets each key, its column and what
// follows "key:" on its line (nothing, or the value after one space), with
// pos already on the next line; it reads the value. A repeated key
// declines.
func (d *fastDecoder) mapping(ind int, item bool, fn func(key []byte, ki int, rest []byte) bool) bool {
	var buf [24][]byte
	seen := buf[:0]
	for first := true; ; first = false {
		if !first || !item {
			if d.indent() != ind || d.at(ind, "- ") {
				return false
			}
		}
		l, next, ok := d.line()
		if !ok {
			return false
		}
		key, rest, ok := splitKey(l[ind:])
		if !ok {
			return false
		}
		for _, k := range seen {
			if bytes.Equal(k, key) {
				return false
			}
		}
		seen = append(seen, key)
		d.pos = next
		if !fn(key, ind, rest) {
			return false
		}
		more, ok := d.more(ind)
		if !ok || !more {
			return ok
		}
	}
}

// splitKey splits "key: rest" or "key:"; a key is plain or quoted.
func splitKey(l []byte) (key, rest []byte, ok bool) {
	var after []byte
	switch {
	case len(l) > 0 && l[0] == '"':
		k, n, ok := doubleQuoted(l)
		if !ok {
			return nil, nil, false
		}
		key, after = []byte(k), l[n:] // a copy: only for names that need quotes
	case len(l) > 0 && l[0] == '\'':
		n := quotedEnd(l)
		if n < 0 {
			return nil, nil, false
		}
		k, _ := singleQuoted(l[:n])
		key, after = []byte(k), l[n:]
	default:
		i := bytes.IndexByte(l, ':')
		if i <= 0 || !plainKey(l[:i]) {
			return nil, nil, false
		}
		key, after = l[:i], l[i:]
	}
	switch {
	case len(after) == 1 && after[0] == ':':
		return key, nil, true
	case len(after) > 2 && after[0] == ':' && after[1] == ' ' && after[2] != ' ' && after[2] != '\t':
		return key, after[2:], true
	}
	return nil, nil, false
}

// plainKey reports whether k is a plain key YAML reads as the string k
// (the merge key "<<" is not).
func plainKey(k []byte) bool {
	return plainScalar(k) && string(k) != "<<"
}

// isNull reports whether a plain scalar is YAML's null.
func isNull(s []byte) bool {
	switch string(s) {
	case "", "~", "null", "Null", "NULL":
		return true
	}
	return false
}

// The fields of an interaction, a request and a response.

func (d *fastDecoder) interaction(it *Interaction, key []byte, ki int, rest []byte) bool {
	switch string(key) {
	case "id":
		return intValue(rest, &it.ID)
	case "request":
		return rest == nil && d.nested(ki, func(key []byte, ki int, rest []byte) bool { return d.request(&it.Request, key, ki, rest) })
	case "response":
		return rest == nil && d.nested(ki, func(key []byte, ki int, rest []byte) bool { return d.response(&it.Response, key, ki, rest) })
	case "websocket":
		return d.session(ki, rest, &it.WebSocket) // fastdecode_websocket.go
	}
	return false
}

// message points at the fields a request and a response share.
type message struct {
	proto            *string
	major, minor     *int
	length           *int64
	transfer         *[]string
	trailer, headers *http.Header
	body             *Body
	bodyFile         *string
}

// field reads key into m when it is one of the shared fields; handled is
// false when it is not.
func (d *fastDecoder) field(m message, key []byte, ki int, rest []byte) (handled, ok bool) {
	switch string(key) {
	case "proto":
		return true, d.str(rest, m.proto)
	case "proto_major":
		return true, intValue(rest, m.major)
	case "proto_minor":
		return true, intValue(rest, m.minor)
	case "content_length":
		return true, int64Value(rest, m.length)
	case "transfer_encoding":
		return true, d.strs(ki, rest, m.transfer)
	case "trailer":
		return true, d.header(ki, rest, (*map[string][]string)(m.trailer))
	case "headers":
		return true, d.sharedHeader(ki, rest, (*map[string][]string)(m.headers))
	case "body":
		return true, d.body(ki, rest, m.body)
	case "body_file":
		return true, d.str(rest, m.bodyFile)
	}
	return false, false
}

func (d *fastDecoder) request(r *Request, key []byte, ki int, rest []byte) bool {
	m := message{&r.Proto, &r.ProtoMajor, &r.ProtoMinor, &r.ContentLength, &r.TransferEncoding, &r.Trailer, &r.Headers, &r.Body, &r.BodyFile}
	if handled, ok := d.field(m, key, ki, rest); handled {
		return ok
	}
	switch string(key) {
	case "host":
		return d.str(rest, &r.Host)
	case "remote_addr":
		return d.str(rest, &r.RemoteAddr)
	case "request_uri":
		return d.str(rest, &r.RequestURI)
	case "form":
		return d.header(ki, rest, (*map[string][]string)(&r.Form))
	case "url":
		return d.str(rest, &r.URL)
	case "method":
		return d.str(rest, &r.Method)
	}
	return false
}

func (d *fastDecoder) response(r *Response, key []byte, ki int, rest []byte) bool {
	m := message{&r.Proto, &r.ProtoMajor, &r.ProtoMinor, &r.ContentLength, &r.TransferEncoding, &r.Trailer, &r.Headers, &r.Body, &r.BodyFile}
	if handled, ok := d.field(m, key, ki, rest); handled {
		return ok
	}
	switch string(key) {
	case "uncompressed":
		switch string(rest) {
		case "true":
			r.Uncompressed = true
			return true
		case "false":
			return true
		}
		return false
	case "status":
		return d.str(rest, &r.Status)
	case "code":
		return intValue(rest, &r.Code)
	case "duration":
		return durationValue(rest, &r.Duration)
	case "event_times":
		return d.durations(ki, rest, &r.EventTimes)
	}
	return false
}

// nested reads a block mapping below a key at column ki: its keys are on
// the next line, more indented.
func (d *fastDecoder) nested(ki int, fn func(key []byte, ki int, rest []byte) bool) bool {
	d.skipBlank()
	if d.pos >= len(d.text) {
		return false
	}
	ind := d.indent()
	return ind > ki && d.mapping(ind, false, fn)
}

// header reads a mapping of names to lists of strings (http.Header,
// url.Values): `{}`, or a block mapping whose values are block sequences
// or `[]`.
func (d *fastDecoder) header(ki int, rest []byte, h *map[string][]string) bool {
	if string(rest) == "{}" {
		*h = map[string][]string{}
		return true
	}
	if rest != nil {
		return false
	}
	m := map[string][]string{}
	*h = m
	return d.nested(ki, func(key []byte, ki int, rest []byte) bool {
		var vs []string
		if !d.strs(ki, rest, &vs) {
			return false
		}
		m[d.share(key)] = vs
		return true
	})
}

// sharedHeader is header for the headers of a request or a response: when
// the batch shares them, a block whose text (and key column) it read
// before is given that block's map without reading it again. The text
// decides what the block decodes to: the reader looks at nothing past it
// but the next line's indentation, which is the key's or less.
func (d *fastDecoder) sharedHeader(ki int, rest []byte, h *map[string][]string) bool {
	if d.shared == nil || rest != nil {
		return d.header(ki, rest, h)
	}
	start, end := d.pos, d.blockEnd(ki)
	sum := maphash.Bytes(headerSeed, d.text[start:end])
	if s, ok := d.shared[sum]; ok && s.ki == ki && bytes.Equal(d.text[s.start:s.end], d.text[start:end]) {
		*h, d.pos = s.h, end
		return true
	}
	if !d.header(ki, rest, h) {
		return false
	}
	if _, ok := d.shared[sum]; !ok && d.pos == end {
		d.shared[sum] = sharedHeader{start: start, end: end, ki: ki, h: *h}
	}
	return true
}

var headerSeed = maphash.MakeSeed()

// blockEnd is where the block below a key at column ki ends: the start of
// the first line after it that is not blank and not indented deeper than
// ki, or the end of the text.
func (d *fastDecoder) blockEnd(ki int) int {
	pos := d.pos
	for pos < len(d.text) {
		end := bytes.IndexByte(d.text[pos:], '\n')
		if end < 0 {
			return len(d.text)
		}
		n := 0
		for n < end && d.text[pos+n] == ' ' {
			n++
		}
		if n < end && n <= ki {
			return pos
		}
		pos += end + 1
	}
	return len(d.text)
}

// seq reads a block sequence of scalars below a key at column ki (its
// items at the key's column or deeper), calling fn with each.
func (d *fastDecoder) seq(ki int, rest []byte, fn func(s []byte) bool) bool {
	return d.items(ki, rest, func(ind int) bool {
		l, next, ok := d.line()
		if !ok || len(l) < ind+3 || l[ind+2] == ' ' || l[ind+2] == '\t' {
			return false
		}
		d.pos = next
		return fn(l[ind+2:])
	})
}

// seqStart moves past blank lines to the first item of a block sequence
// below a key at column ki and returns its column: ok is false when
// something follows the key on its line (rest), the text ends, or the next
// line is not a `- ` at the key's column or deeper.
func (d *fastDecoder) seqStart(ki int, rest []byte) (ind int, ok bool) {
	if rest != nil {
		return 0, false
	}
	d.skipBlank()
	if d.pos >= len(d.text) {
		return 0, false
	}
	ind = d.indent()
	if ind < ki || !d.at(ind, "- ") {
		return 0, false
	}
	return ind, true
}

// items reads a block sequence below a key at column ki: item is called at
// the start of each `- ` (its column ind) and reads it; items says whether
// the sequence ended where the mapping goes on or the text ends.
func (d *fastDecoder) items(ki int, rest []byte, item func(ind int) bool) bool {
	ind, ok := d.seqStart(ki, rest)
	if !ok {
		return false
	}
	for {
		if !item(ind) {
			return false
		}
		d.skipBlank()
		if d.pos >= len(d.text) {
			return true
		}
		switch n := d.indent(); {
		case n == ind && d.at(ind, "- "):
		case n < ind || n == ind && ind == ki: // the next key of the mapping
			return true
		default:
			return false
		}
	}
}

// strs reads a list of strings: `[]` or a block sequence.
func (d *fastDecoder) strs(ki int, rest []byte, out *[]string) bool {
	if string(rest) == "[]" {
		*out = []string{}
		return true
	}
	return d.seq(ki, rest, func(s []byte) bool {
		v, ok := d.scalar(s)
		*out = append(*out, v)
		return ok
	})
}

func (d *fastDecoder) durations(ki int, rest []byte, out *[]Duration) bool {
	if string(rest) == "[]" {
		*out = []Duration{}
		return true
	}
	return d.seq(ki, rest, func(s []byte) bool {
		var v Duration
		ok := durationValue(s, &v)
		*out = append(*out, v)
		return ok
	})
}
