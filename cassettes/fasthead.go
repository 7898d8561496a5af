package cassettes

import (
	"bytes"
	"time"

	"github.com/cassette-dev/cassette/internal/cfgschema"
)

// A whole cassette file in the layout cassette's writer produces (Marshal)
// is decoded by the same reader as the interactions of a large one
// (fastdecode.go), its top-level keys, input and output included, straight
// into the struct: yaml.v3's node tree of a small file was most of what
// loading 10,000 of them cost (`cassette cases` and `check` each load every
// cassette of a project). The reader also takes a one-line flow list of
// plain words (`args: [hello, world]`), as hand-written cassettes have.
// It declines what it is not sure of, as the interactions' reader does,
// and also a key it does not know and a file without cassette's metadata
// (a plain go-vcr file, loaded laxly): yaml.v3 then decodes the file as
// before, with its messages. No node tree is kept: the file's bytes are,
// and the tree is parsed from them only when a line below the top level is
// asked for (a problem, a drift); the top-level keys' lines are noted as
// they are read (locate.go). FuzzFastCassetteAgreesWithYAML holds it to
// yaml.v3 on everything it accepts.

// keyLine is where a top-level key of a file stands.
type keyLine struct {
	key  string
	line int
}

// fastCassette decodes data, a whole file, or returns nil when it declines.
func fastCassette(path string, data []byte, share bool) *Cassette {
	if len(data) == 0 || !plainText(data) {
		return nil
	}
	d := &fastDecoder{text: data, intern: make(map[string]string, 16)}
	c := &Cassette{Path: path}
	loc := &locator{src: data, top: make([]keyLine, 0, 16)}
	meta := false
	at, atLine := 0, 1 // a byte offset and its line, for counting lines forward
	ok := d.mapping(0, false, func(key []byte, ki int, rest []byte) bool {
		end := d.pos - 1 // the key line's newline
		atLine += bytes.Count(data[at:end], []byte("\n"))
		at = end
		k, known := topKey(key)
		if !known {
			return false
		}
		meta = meta || isMetadata(k)
		loc.top = append(loc.top, keyLine{k, atLine})
		return d.top(c, k, ki, rest, share)
	})
	if !ok || !meta {
		return nil
	}
	d.skipBlank()
	if d.pos != len(data) {
		return nil
	}
	c.loc = loc
	return c
}

// topKeys are the top-level keys of a cassette (its yaml names).
var topKeys = []string{"cassette", "version", "adapter", "scenario", "kind", "normalizers", "recorded_at", "recorder", "replayable", "mutating",
	"compare", "required", "stream", "stream_text", "input", "output", "interactions"}

// topKey returns key as the static string of its name, and whether it is a
// top-level key.
func topKey(key []byte) (string, bool) {
	for _, k := range topKeys {
		if string(key) == k {
			return k, true
		}
	}
	return "", false
}

// isMetadata reports whether k is one of metadataKeys.
func isMetadata(k string) bool {
	for _, m := range metadataKeys {
		if k == m {
			return true
		}
	}
	return false
}

// top reads the value of a top-level key.
func (d *fastDecoder) top(c *Cassette, key string, ki int, rest []byte, share bool) bool {
	switch key {
	case "cassette":
		return intValue(rest, &c.Cassette)
	case "version":
		return intValue(rest, &c.Version)
	case "adapter":
		return d.str(rest, &c.Adapter)
	case "scenario":
		return d.str(rest, &c.Scenario)
	case "kind":
		var k string
		ok := d.str(rest, &k)
		c.Kind = cfgschema.Kind(k)
		return ok
	case "compare":
		return d.str(rest, &c.Compare)
	case "stream":
		return d.str(rest, &c.Stream)
	case "normalizers":
		return d.list(ki, rest, &c.Normalizers)
	case "required":
		return d.list(ki, rest, &c.Required)
	case "stream_text":
		return d.list(ki, rest, &c.StreamText)
	case "recorded_at":
		return timestampValue(rest, &c.RecordedAt)
	case "replayable":
		var b bool
		c.Replayable = &b
		return boolValue(rest, &b)
	case "mutating":
		return boolValue(rest, &c.Mutating)
	case "recorder":
		c.Recorder = &Recorder{}
		return rest == nil && d.nested(ki, func(key []byte, ki int, rest []byte) bool { return d.recorder(c.Recorder, key, rest) })
	case "input":
		c.Input = &Input{}
		return rest == nil && d.nested(ki, func(key []byte, ki int, rest []byte) bool { return d.input(c.Input, key, ki, rest) })
	case "output":
		c.Output = &Output{}
		return rest == nil && d.nested(ki, func(key []byte, ki int, rest []byte) bool { return d.output(c.Output, key, ki, rest) })
	case "interactions":
		return d.interactions(ki, rest, &c.Interactions, share)
	}
	return false
}

func (d *fastDecoder) recorder(r *Recorder, key, rest []byte) bool {
	switch string(key) {
	case "version":
		return d.str(rest, &r.Version)
	case "sha":
		return d.str(rest, &r.SHA)
	}
	return false
}

func (d *fastDecoder) input(in *Input, key []byte, ki int, rest []byte) bool {
	switch string(key) {
	case "command":
		return d.str(rest, &in.Command)
	case "args":
		return d.list(ki, rest, &in.Args)
	case "stdin":
		return d.body(ki, rest, &in.Stdin)
	case "env":
		return d.list(ki, rest, &in.Env)
	}
	return false
}

func (d *fastDecoder) output(out *Output, key []byte, ki int, rest []byte) bool {
	switch string(key) {
	case "stdout":
		return d.body(ki, rest, &out.Stdout)
	case "stderr":
		return d.body(ki, rest, &out.Stderr)
	case "exit_code":
		return intValue(rest, &out.ExitCode)
	}
	return false
}

// interactions reads `[]` or the block sequence of interactions below a
// top-level key, by the interactions' reader, which is given exactly as
// many items as there are lines starting "- " at the first item's column.
func (d *fastDecoder) interactions(ki int, rest []byte, out *[]Interaction, share bool) bool {
	if string(rest) == "[]" {
		*out = []Interaction{}
		return true
	}
	ind, ok := d.seqStart(ki, rest)
	if !ok {
		return false
	}
	start, n := d.pos, 0
	for d.pos < len(d.text) {
		l, next, ok := d.line()
		if !ok {
			return false
		}
		sp := d.indent()
		switch {
		case sp == len(l): // blank
		case sp > ind: // inside an item
		case sp == ind && d.at(ind, "- "):
			n++
		default:
			return d.interactionItems(start, n, out, share)
		}
		d.pos = next
	}
	return d.interactionItems(start, n, out, share)
}

// interactionItems decodes the n items of text[start:d.pos] into out.
func (d *fastDecoder) interactionItems(start, n int, out *[]Interaction, share bool) bool {
	*out = make([]Interaction, n)
	return fastItems(d.text[start:d.pos], *out, share)
}

// list reads a list of strings: `[]`, a block sequence, or a flow list on
// the key's line of plain words or quoted strings (`[hello, "a b"]`).
func (d *fastDecoder) list(ki int, rest []byte, out *[]string) bool {
	if len(rest) < 3 || rest[0] != '[' || rest[len(rest)-1] != ']' {
		return d.strs(ki, rest, out)
	}
	s := rest[1 : len(rest)-1]
	vs := make([]string, 0, 4)
	for {
		for len(s) > 0 && s[0] == ' ' {
			s = s[1:]
		}
		var v string
		var ok bool
		n := 0
		switch {
		case len(s) == 0:
			return false // `[a, ]`, `[ ]`
		case s[0] == '"':
			v, n, ok = doubleQuoted(s)
		case s[0] == '\'':
			if n = quotedEnd(s); n > 0 {
				v, ok = singleQuoted(s[:n])
			}
		default:
			for n < len(s) && flowWord(s[n]) {
				n++
			}
			if n > 0 && plainScalar(s[:n]) {
				v, ok = d.share(s[:n]), true
			}
		}
		if !ok {
			return false
		}
		vs = append(vs, d.shareString(v))
		s = s[n:]
		for len(s) > 0 && s[0] == ' ' {
			s = s[1:]
		}
		if len(s) == 0 {
			*out = vs
			return true
		}
		if s[0] != ',' {
			return false
		}
		s = s[1:]
	}
}

// flowWord reports whether c may be part of a plain word in a flow list:
// letters, digits and a few marks that are never YAML indicators inside a
// word (a leading one is refused by plainScalar).
func flowWord(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	switch c {
	case '-', '_', '.', '/', '+', '=', '@', '%', '$', '^', '(', ')', ';', '<', '>':
		return true
	}
	return false
}

// boolValue reads true or false (the other spellings YAML knows decline).
func boolValue(s []byte, out *bool) bool {
	switch string(s) {
	case "true":
		*out = true
		return true
	case "false":
		*out = false
		return true
	}
	return false
}

// timestampFormat is the first of the formats yaml.v3 tries on a plain
// scalar that starts with four digits and '-' (the writer's RFC 3339).
const timestampFormat = "2006-1-2T15:4:5.999999999Z07:00"

// timestampValue reads a plain timestamp as yaml.v3 does when the first
// of its formats parses it; anything else declines.
func timestampValue(s []byte, out **time.Time) bool {
	if len(s) < 5 || s[4] != '-' || !plainScalar(s) {
		return false
	}
	for _, c := range s[:4] {
		if c < '0' || c > '9' {
			return false
		}
	}
	t, err := time.Parse(timestampFormat, string(s))
	if err != nil {
		return false
	}
	*out = &t
	return true
}
