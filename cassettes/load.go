package cassettes

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"go.yaml.in/yaml/v3"
)

// NameSet is a registry of names (the normalize registry satisfies it), so
// that this package validates normalizer names without importing normalize.
type NameSet interface {
	Has(name string) bool
	Names() []string
}

// LoadOptions are the registries a load validates against. A nil field
// skips that check.
type LoadOptions struct {
	Config      *cfgschema.Config // declared adapters and project-defined normalizers
	Normalizers NameSet           // built-in normalizer names
	Credentials map[string]string // declared credential values (name → value) to scan for
	// KeepBytes keeps each file's bytes in Cassette.Source (a forensic
	// bundle copies them); its size and digest are always kept.
	KeepBytes bool
	// Root is the directory a symlinked cassette must resolve inside;
	// "" means the config's directory, or without a config the cassette's
	// own directory.
	Root string
	// SkipLeakScan loads files that may hold credentials without refusing
	// them: another tool's recordings that the caller redacts and scans
	// before anything is written (import). Nothing else may set it.
	SkipLeakScan bool
	// ShareHeaders lets the interactions of a large file whose request or
	// response headers are the same text share one http.Header (a client
	// sends the same headers again and again): less memory, for a caller
	// that never changes a loaded header in place (the replay proxy, which
	// serves copies). Nothing that edits or saves cassettes may set it.
	ShareHeaders bool
	// Kinds are the kinds a cassette may be of; nil is http and cli
	// (kinds.go).
	Kinds cfgschema.Kinds
}

func (o LoadOptions) root(path string) string {
	switch {
	case o.Root != "":
		return o.Root
	case o.Config != nil && o.Config.Dir != "":
		return o.Config.Dir
	}
	return filepath.Dir(path)
}

// Load reads, decodes and validates one cassette file. A file carrying
// cassette's metadata (`cassette:`) is loaded strictly; a plain go-vcr
// cassette is loaded as go-vcr loads it, with adapter and scenario taken from
// its path (cassettes/<adapter>/<scenario>.yaml). Every problem found is
// returned in one *Error (reason E_CASSETTE_INVALID or E_SECRET_LEAK).
func Load(path string, opts LoadOptions) (*Cassette, error) {
	return load(path, opts, nil)
}

// load is Load; a large file is parsed holding big, when given (loadAll).
func load(path string, opts LoadOptions, big *sync.Mutex) (*Cassette, error) {
	data, prob, err := readRegular(path, opts.root(path), MaxFileBytes)
	if prob != nil {
		return nil, &outcome.Error{Reason: outcome.ECassetteInvalid, Message: "cassette " + path + " is not read: " + prob.Message,
			Problems: []outcome.Problem{*prob}, NextStep: outcome.Command("ls", "-l", path)}
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &outcome.Error{Reason: outcome.ECassetteNotFound, Message: fmt.Sprintf("cassette %s does not exist", path),
				NextStep: outcome.Command("cassette", "validate"), Err: err}
		}
		return nil, &outcome.Error{Reason: outcome.EIO, Message: "cannot read cassette " + path, Err: err, NextStep: outcome.Command("ls", "-l", path)}
	}
	if big != nil && len(data) >= splitBytes {
		big.Lock()
		defer big.Unlock()
	}
	return Parse(path, data, opts)
}

// Parse is Load for bytes already read; path names them in messages and
// resolves sidecar bodies. In a project, a file whose name breaks the name
// rule is refused whatever it holds (filenames.go).
func Parse(path string, data []byte, opts LoadOptions) (*Cassette, error) {
	c, err := parse(path, data, opts)
	return opts.withFileName(path, c, err)
}

func parse(path string, data []byte, opts LoadOptions) (*Cassette, error) {
	next := outcome.Command("cassette", "validate", path)
	// Credentials are looked for first, in the raw bytes, whatever else is
	// wrong with the file: a leak is reported even when the schema is not met.
	// (The scan runs beside the parse: on a large file each takes a core.)
	scanned := make(chan []outcome.Problem, 1)
	go func() { scanned <- opts.leakProblems(path, data) }()
	c, probs := decodeCassette(path, data, opts.ShareHeaders)
	leaks := <-scanned
	fail := func(msg string, probs []outcome.Problem) (*Cassette, error) {
		if len(leaks) > 0 {
			return nil, &outcome.Error{Reason: outcome.ESecretLeak, Message: "cassette " + path + " contains credentials: remove each value (or re-record the cassette) and rotate the credential", Problems: append(leaks, probs...),
				NextStep: next}
		}
		return nil, &outcome.Error{Reason: outcome.ECassetteInvalid, Message: msg, Problems: probs, NextStep: next}
	}
	if c == nil {
		return fail("cassette "+path+" is not valid YAML", probs)
	}
	c.loc.data = data
	defer func() { c.loc.data = nil }() // from now on Line re-reads the file
	if len(probs) > 0 {
		return fail("cassette "+path+" does not fit the cassette schema", probs)
	}
	if c.Plain {
		upgradePlain(c, opts)
	} else if c.Cassette < 1 && c.hasTopKey("cassette") { // absent: implied by the other metadata
		probs = append(probs, outcome.Problem{File: path, Line: c.Line("cassette"), Field: "cassette", Message: "the cassette schema version is missing",
			Expected: fmt.Sprintf("%d", SchemaVersion)})
	}
	probs = append(probs, validateCassette(c, opts)...)
	probs = append(probs, loadSidecars(c)...)
	probs = append(probs, webSocketProblems(c)...)
	leaks = append(leaks, opts.encodedLeaks(c)...)
	if len(probs) > 0 || len(leaks) > 0 {
		return fail("cassette "+path+" is invalid", probs)
	}
	c.Source = newSource(data, opts.KeepBytes)
	return c, nil
}

// decodeCassette parses data once into a cassette: a large file split into
// its interactions (split.go), else whole. A nil cassette means the file is
// not one YAML mapping; the problems say why.
func decodeCassette(path string, data []byte, shareHeaders bool) (*Cassette, []outcome.Problem) {
	const expected = "a cassette: `version: 2` and `interactions:` (see docs/concepts/cassettes.md)"
	if len(data) >= splitBytes {
		if s := findSection(data); s != nil {
			c := &Cassette{Path: path}
			probs, err := parseSplit(path, data, s, c, expected, shareHeaders)
			if err == nil {
				c.loc.path = path
				return c, probs
			}
		}
	}
	if c := fastCassette(path, data, shareHeaders); c != nil { // the writer's own layout (fasthead.go)
		return c, nil
	}
	return decodeWhole(path, data)
}

// decodeWhole is decodeCassette's yaml.v3 parse of a whole file.
func decodeWhole(path string, data []byte) (*Cassette, []outcome.Problem) {
	const expected = "a cassette: `version: 2` and `interactions:` (see docs/concepts/cassettes.md)"
	doc, probs := parseDocument(path, data, expected)
	if len(probs) > 0 {
		return nil, probs
	}
	root := doc.Content[0]
	c := &Cassette{Path: path, loc: &locator{head: doc}}
	strict := carriesMetadata(root)
	c.Plain = !strict
	probs = append(probs, checkKnown(path, root, reflect.TypeOf(Cassette{}), "", strict, &c.Warnings)...)
	if err := doc.Decode(c); err != nil {
		probs = append(probs, yamlProblems(path, doc, err)...)
	}
	return c, probs
}

// parseDocument decodes exactly one YAML document into a node tree, refusing
// empty input, binary data and a second document.
func parseDocument(path string, data []byte, expected string) (*yaml.Node, []outcome.Problem) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, []outcome.Problem{{File: path, Line: 1, Message: "the file is empty", Expected: expected}}
	}
	if i := bytes.IndexByte(data, 0); i >= 0 || !utf8.Valid(data) {
		line := 1
		if i >= 0 {
			line += bytes.Count(data[:i], []byte("\n"))
		}
		return nil, []outcome.Problem{{File: path, Line: line, Message: "the file is binary data, not YAML text", Expected: expected}}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		return nil, yamlProblems(path, nil, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		line := extra.Line
		if len(extra.Content) > 0 {
			line = extra.Content[0].Line
		}
		return nil, []outcome.Problem{{File: path, Line: line, Message: "a second YAML document starts here; a file holds exactly one", Suggestion: "remove the `---` separator and what follows, or split it into its own file"}}
	} else if !errors.Is(err, io.EOF) {
		return nil, yamlProblems(path, nil, err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		line := 1
		if len(doc.Content) > 0 {
			line = doc.Content[0].Line
		}
		return nil, []outcome.Problem{{File: path, Line: line, Message: "the top level is not a mapping of keys", Expected: expected}}
	}
	return &doc, nil
}

func decodeStrict(data []byte, v any, strict bool) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(strict)
	return dec.Decode(v)
}

var lineRe = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// yamlProblems turns the YAML library's errors into problems with a line
// and, where the node tree is known, a field path. Unknown-field errors are
// left out: checkKnown reports them with their full path and a suggestion.
func yamlProblems(path string, doc *yaml.Node, err error) []outcome.Problem {
	return yamlProblemsIn(path, doc, "", 0, err)
}

// yamlProblemsIn is yamlProblems for a part of a file: root is the node at
// field path field, and its lines are offset lines before the file's.
func yamlProblemsIn(path string, root *yaml.Node, field string, offset int, err error) []outcome.Problem {
	var msgs []string
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	} else {
		msgs = []string{err.Error()}
	}
	var out []outcome.Problem
	for _, m := range msgs {
		if strings.Contains(m, " not found in type ") {
			continue
		}
		p := outcome.Problem{File: path, Message: strings.TrimPrefix(m, "yaml: ")}
		if sm := lineRe.FindStringSubmatch(m); sm != nil {
			p.Line, _ = strconv.Atoi(sm[1])
			p.Message = sm[2]
			if root != nil {
				p.Field = fieldAtLine(root, p.Line, unmarshalTag(sm[2]), field)
			}
			p.Line += offset
		}

		p.Message = friendlyYAML(p.Message, &p)
		out = append(out, p)
	}
	return out
}

var unmarshalRe = regexp.MustCompile("cannot unmarshal !!(\\w+)(?: `(.*?)`)? into (.*)$")

// friendlyYAML rewrites the YAML library's wording into the user's terms.
func friendlyYAML(msg string, p *outcome.Problem) string {
	if m := unmarshalRe.FindStringSubmatch(msg); m != nil {
		p.Expected = goTypeName(m[3])
		got := map[string]string{"str": "a string", "int": "a number", "float": "a number", "bool": "a boolean", "map": "a mapping", "seq": "a list", "null": "nothing", "timestamp": "a timestamp", "binary": "binary data"}[m[1]]
		if got == "" {
			got = m[1]
		}
		if m[2] != "" && len(m[2]) < 60 {
			return fmt.Sprintf("wrong type: got %s (%s)", got, m[2])
		}
		return "wrong type: got " + got
	}
	if strings.Contains(msg, "already defined") {
		p.Suggestion = "remove one of the duplicate keys"
	}
	return msg
}

func goTypeName(t string) string {
	switch {
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["), strings.HasPrefix(t, "http.Header"), strings.HasPrefix(t, "url.Values"):
		return "a mapping"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"), t == "float64":
		return "a whole number"
	case t == "bool":
		return "true or false"
	case t == "string", strings.HasSuffix(t, "Body"), strings.HasSuffix(t, "Kind"):
		return "a string"
	}
	return "a mapping"
}

// unmarshalTag is the YAML tag a "cannot unmarshal !!seq ..." error is
// about ("!!seq"), or "".
func unmarshalTag(msg string) string {
	if m := unmarshalRe.FindStringSubmatch(msg); m != nil {
		return "!!" + m[1]
	}
	return ""
}

// fieldAtLine finds the yaml field path of the value on line that an error
// is about: the one whose tag is tag when tag is given (several keys can
// share a line in flow style), else the first value starting on the line.
func fieldAtLine(doc *yaml.Node, line int, tag string, field string) string {
	first, best := "", ""
	var walk func(n *yaml.Node, path string)
	visit := func(v *yaml.Node, keyLine int, p string) {
		if keyLine == line || v.Line == line {
			if first == "" {
				first = p
			}
			if tag != "" && v.ShortTag() == tag { // the deepest such value wins
				best = p
			}
		}
		walk(v, p)
	}
	walk = func(n *yaml.Node, path string) {
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, path)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				visit(n.Content[i+1], n.Content[i].Line, joinField(path, n.Content[i].Value))
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				visit(c, 0, fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
	walk(doc, field)
	if best != "" {
		return best
	}
	if first == "" && doc.Line == line {
		return field
	}
	return first
}

func joinField(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func mappingKey(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// checkKnown walks a mapping against a struct type and reports keys the type
// does not have, with their full path, line and the closest known key. When
// strict is false (plain go-vcr cassettes) they become warnings.
func checkKnown(path string, n *yaml.Node, t reflect.Type, field string, strict bool, warnings *[]outcome.Problem) []outcome.Problem {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []outcome.Problem
	switch {
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Struct:
		info := typeInfoOf(t)
		if info.custom {
			return nil
		}
		fields := info.fields
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			ft, ok := fields[k.Value]
			p := joinField(field, k.Value)
			if !ok {
				prob := outcome.Problem{File: path, Line: k.Line, Column: k.Column, Field: p, Message: fmt.Sprintf("unknown field `%s`", k.Value)}
				if s := outcome.Closest(k.Value, keysOf(fields)); s != "" {
					prob.Suggestion = fmt.Sprintf("did you mean `%s`?", s)
				} else {
					prob.Expected = "one of " + strings.Join(sortedKeys(keysOf(fields)), ", ")
				}
				if strict {
					out = append(out, prob)
				} else if warnings != nil {
					prob.Message += " (kept by go-vcr compatibility, ignored by cassette)"
					*warnings = append(*warnings, prob)
				}
				continue
			}
			out = append(out, checkKnown(path, v, ft, p, strict, warnings)...)
		}
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Map && t.Elem().Kind() != reflect.String:
		for i := 0; i+1 < len(n.Content); i += 2 {
			out = append(out, checkKnown(path, n.Content[i+1], t.Elem(), joinField(field, n.Content[i].Value), strict, warnings)...)
		}
	case n.Kind == yaml.SequenceNode && t.Kind() == reflect.Slice:
		for i, c := range n.Content {
			out = append(out, checkKnown(path, c, t.Elem(), fmt.Sprintf("%s[%d]", field, i), strict, warnings)...)
		}
	}
	return out
}

// allKnown is checkKnown's question without its answer: whether every key
// under n is a field of t. It allocates nothing, so a large cassette pays
// for field paths and suggestions only where a key is unknown.
func allKnown(n *yaml.Node, t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Struct:
		info := typeInfoOf(t)
		if info.custom {
			return true
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			ft, ok := info.fields[n.Content[i].Value]
			if !ok || !allKnown(n.Content[i+1], ft) {
				return false
			}
		}
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Map && t.Elem().Kind() != reflect.String:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if !allKnown(n.Content[i+1], t.Elem()) {
				return false
			}
		}
	case n.Kind == yaml.SequenceNode && t.Kind() == reflect.Slice:
		for _, c := range n.Content {
			if !allKnown(c, t.Elem()) {
				return false
			}
		}
	}
	return true
}

// typeInfo is what checkKnown needs of a struct type, computed once.
type typeInfo struct {
	custom bool // it decodes itself (UnmarshalYAML)
	fields map[string]reflect.Type
}

var typeInfos sync.Map // reflect.Type → *typeInfo

func typeInfoOf(t reflect.Type) *typeInfo {
	if v, ok := typeInfos.Load(t); ok {
		return v.(*typeInfo)
	}
	_, custom := reflect.PointerTo(t).MethodByName("UnmarshalYAML")
	info := &typeInfo{custom: custom, fields: yamlFields(t)}
	typeInfos.Store(t, info)
	return info
}

func yamlFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := strings.Split(f.Tag.Get("yaml"), ",")[0]
		if name == "-" {
			continue
		}
		if name == "" {
			if f.Anonymous {
				for k, v := range yamlFields(f.Type) {
					out[k] = v
				}
				continue
			}
			name = strings.ToLower(f.Name)
		}
		out[name] = f.Type
	}
	return out
}

func keysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func sortedKeys(ks []string) []string { sort.Strings(ks); return ks }

// upgradePlain fills what a plain go-vcr cassette lacks from its path and
// brings a go-vcr version 1 cassette to version 2 (same fields, no ids).
func upgradePlain(c *Cassette, opts LoadOptions) {
	root := ""
	if opts.Config != nil {
		root = opts.Config.CassetteDir()
	}
	c.Adapter, c.Scenario = namesFromPath(c.Path, root)
	if c.Kind == "" {
		c.Kind = cfgschema.KindHTTP
	}
	if c.Version == 1 {
		c.Warnings = append(c.Warnings, outcome.Problem{File: c.Path, Line: c.Line("version"), Field: "version",
			Message: "go-vcr format version 1 was upgraded to version 2 in memory", Suggestion: "save it again with cassette to write version 2"})
		c.Version = GoVCRVersion
		for i := range c.Interactions {
			c.Interactions[i].ID = i
		}
	}
}

// loadSidecars reads bodies kept in sidecar files and checks their hashes.
func loadSidecars(c *Cassette) []outcome.Problem {
	var out []outcome.Problem
	load := func(ref string, body *Body, fieldOf func() string) {
		if ref == "" {
			return
		}
		field := fieldOf()
		data, msg := readSidecar(c.Path, ref, maxBodyFileBytes)
		if msg != "" {
			out = append(out, outcome.Problem{File: c.Path, Line: c.Line(field), Field: field, Message: msg,
				Expected: sidecarDir + "/sha256-<hex>.bin, a regular file next to the cassette", Suggestion: "restore it from version control or re-record the cassette"})
			return
		}
		sum := sha256.Sum256(data)
		if want := sidecarName(hex.EncodeToString(sum[:])); filepath.Base(ref) != filepath.Base(want) {
			out = append(out, outcome.Problem{File: c.Path, Line: c.Line(field), Field: field, Message: "sidecar body " + ref + " does not match its content hash", Expected: want, Suggestion: "the sidecar was edited; re-record the cassette"})
			return
		}
		*body = Body(data)
	}
	for i := range c.Interactions {
		in := &c.Interactions[i]
		load(in.Request.BodyFile, &in.Request.Body, func() string { return fmt.Sprintf("interactions[%d].request.body_file", i) })
		load(in.Response.BodyFile, &in.Response.Body, func() string { return fmt.Sprintf("interactions[%d].response.body_file", i) })
	}
	return out
}

// Discover lists the cassette files under dir (*.yaml, *.yml), sorted by
// path, skipping sidecar directories and dot-directories.
func Discover(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && (strings.HasPrefix(d.Name(), ".") || d.Name() == sidecarDir) {
				return filepath.SkipDir
			}
			return nil
		}
		if ext := filepath.Ext(p); ext == ".yaml" || ext == ".yml" {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &outcome.Error{Reason: outcome.ECassetteNotFound, Message: "cassette directory " + dir + " does not exist", Err: err,
				NextStep: outcome.Command("mkdir", "-p", dir)}
		}
		return nil, &outcome.Error{Reason: outcome.EIO, Message: "cannot list cassettes in " + dir, Err: err, NextStep: outcome.Command("ls", "-la", dir)}
	}
	sort.Strings(out)
	return out, nil
}
