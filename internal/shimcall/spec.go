package shimcall

import (
	"errors"
	"strconv"
	"strings"
)

// specHeader is the first line of a spec file: what wrote it, in a form
// the shim checks before it reads a field.
const specHeader = "# cassette-shim spec 1: written by cassette observe, read by each call of its shim"

// Encode is the spec file: its header, then one field a line, `name
// "value"` (the value quoted as Go quotes it, so that a value holding a
// newline or a byte that is not UTF-8 stays one line), a list one line an
// element; the coverage settings last, as the JSON they are (one line). It is precomputed by observe so that the shim reads it with
// one read and decodes it with no reflection: no encoding/json in the
// shim (its type tables cost the shim half of its own instructions).
func (s *Spec) Encode() []byte {
	b := []byte(specHeader + "\n")
	each := func(name string, vs ...string) {
		for _, v := range vs {
			b = append(b, name...)
			b = append(b, ' ')
			b = strconv.AppendQuote(b, v)
			b = append(b, '\n')
		}
	}
	one := func(name, v string) {
		if v != "" {
			each(name, v)
		}
	}
	one("adapter", s.Adapter)
	one("command", s.Command)
	each("fake", s.Fake...)
	each("env", s.Env...)
	one("dir", s.Dir)
	one("bin", s.Bin)
	one("observed", s.Observed)
	one("project", s.Project)
	each("credential", s.Credentials...)
	each("redact", s.Redact...)
	each("withhold", s.Withhold...)
	one("socket", s.Socket)
	one("self", s.Self)
	if s.CoverageJSON != "" { // JSON is one line already, and the shim never decodes it
		b = append(append(append(b, "coverage "...), strings.ReplaceAll(s.CoverageJSON, "\n", " ")...), '\n') // a newline of JSON's is blank space
	}
	return b
}

// Parse decodes a spec file (Encode's), path naming it in an error with
// its line and field.
func Parse(path string, data []byte) (*Spec, error) {
	text := string(data)
	first, rest, _ := strings.Cut(text, "\n")
	if first != specHeader {
		return nil, errors.New(path + ":1: not a shim spec written by this cassette observe (its first line is not " + strconv.Quote(specHeader) + "): run cassette observe again")
	}
	var s Spec
	for n := 2; rest != ""; n++ {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if line == "" {
			continue
		}
		name, quoted, _ := strings.Cut(line, " ")
		if name == "coverage" {
			s.CoverageJSON = quoted
			continue
		}
		v, err := strconv.Unquote(quoted)
		if err != nil {
			return nil, errors.New(path + ":" + strconv.Itoa(n) + ": field " + name + ": the value is not a quoted string: run cassette observe again")
		}
		if !s.set(name, v) {
			return nil, errors.New(path + ":" + strconv.Itoa(n) + ": unknown field " + strconv.Quote(name) + ": run cassette observe again")
		}
	}
	if err := s.Check(path); err != nil {
		return nil, err
	}
	return &s, nil
}

// set gives the field name its value v (or adds v to the list name), and
// says whether the spec has that field.
func (s *Spec) set(name, v string) bool {
	var list *[]string
	switch name {
	case "adapter":
		s.Adapter = v
	case "command":
		s.Command = v
	case "dir":
		s.Dir = v
	case "bin":
		s.Bin = v
	case "observed":
		s.Observed = v
	case "project":
		s.Project = v
	case "socket":
		s.Socket = v
	case "self":
		s.Self = v
	case "fake":
		list = &s.Fake
	case "env":
		list = &s.Env
	case "credential":
		list = &s.Credentials
	case "redact":
		list = &s.Redact
	case "withhold":
		list = &s.Withhold
	default:
		return false
	}
	if list != nil {
		*list = append(*list, v)
	}
	return true
}
