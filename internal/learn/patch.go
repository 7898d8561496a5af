package learn

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/aymanbagabas/go-udiff"
	"go.yaml.in/yaml/v3"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/normalize"
)

// Patch returns cassette.yaml (data, read from path) with the adapter's
// normalizers set to r.Names and r's definitions added under
// `normalizers:`, each with a comment saying what it covers. Lines are
// inserted or replaced where yaml.v3 places the nodes, so that the rest of
// the file (comments, alignment, quoting) is byte for byte as it was; the
// result is loaded again, strictly, before it is returned.
func Patch(path string, data []byte, adapter string, r *Result) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s is not a YAML mapping: %v", path, err)
	}
	root := doc.Content[0]
	adapters := value(root, "adapters")
	if adapters == nil || value(adapters, adapter) == nil || value(adapters, adapter).Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s declares no adapter %q under adapters", path, adapter)
	}
	text := string(data)
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n" // what is added after the last line starts a line of its own
	}
	lines := strings.SplitAfter(text, "\n")
	ed := &editor{lines: lines}
	if err := ed.setList(key(adapters, adapter), value(adapters, adapter), r.Names); err != nil {
		return nil, fmt.Errorf("%s: adapters.%s.normalizers: %v", path, adapter, err)
	}
	if defs := r.Defs(); len(defs) > 0 {
		if err := ed.addDefs(root, r, defs); err != nil {
			return nil, fmt.Errorf("%s: normalizers: %v", path, err)
		}
	}
	out := []byte(ed.text())
	reg := normalize.Builtins()
	_, err := cassettes.ParseConfig(path, out, cassettes.ConfigOptions{Normalizers: reg, DefineNormalizer: func(name string, d cfgschema.NormalizerDef) error {
		return reg.Define(name, normalize.Definition{Regex: d.Regex, Replace: d.Replace, JSONPaths: d.JSONPaths, Headers: d.Headers})
	}})
	if err != nil {
		return nil, fmt.Errorf("the learned cassette.yaml does not load (a bug of cassette learn; the file was not changed): %w", err)
	}
	return out, nil
}

// Diff is the unified diff of cassette.yaml from old to new.
func Diff(path string, old, new []byte) string {
	return udiff.Unified(path, path+" (learned)", string(old), string(new))
}

// value returns the value of key k in mapping m, or nil.
func value(m *yaml.Node, k string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == k {
			return m.Content[i+1]
		}
	}
	return nil
}

func key(m *yaml.Node, k string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == k {
			return m.Content[i]
		}
	}
	return nil
}

// editor edits lines; insertions are kept apart, by the line they follow,
// so that node positions stay those of the file as read.
type editor struct {
	lines  []string
	after  map[int][]string // 0-based line index → lines inserted after it
	before map[int][]string // … inserted before it
}

func (e *editor) insertAfter(line int, text ...string) {
	if e.after == nil {
		e.after = map[int][]string{}
	}
	e.after[line-1] = append(e.after[line-1], text...)
}

func (e *editor) insertBefore(line int, text ...string) {
	if e.before == nil {
		e.before = map[int][]string{}
	}
	e.before[line-1] = append(e.before[line-1], text...)
}

func (e *editor) text() string {
	var b strings.Builder
	for i, l := range e.lines {
		for _, t := range e.before[i] {
			b.WriteString(t + "\n")
		}
		b.WriteString(l)
		if len(e.after[i]) > 0 && !strings.HasSuffix(l, "\n") {
			b.WriteString("\n")
		}
		for _, t := range e.after[i] {
			b.WriteString(t + "\n")
		}
	}
	return b.String()
}

// setList makes the adapter's normalizers names: the flow list replaced
// in place, a block list extended, or a flow list added as the adapter's
// first key.
func (e *editor) setList(adapterKey, adapter *yaml.Node, names []string) error {
	k, v := key(adapter, "normalizers"), value(adapter, "normalizers")
	flow := "[" + strings.Join(quoteNames(names), ", ") + "]"
	switch {
	case v == nil:
		indent := strings.Repeat(" ", adapter.Content[0].Column-1)
		e.insertAfter(adapterKey.Line, indent+"normalizers: "+flow+"   # learned by cassette learn")
	case v.Kind == yaml.SequenceNode && v.Style&yaml.FlowStyle != 0:
		line := e.lines[v.Line-1]
		end := closing(line, v.Column-1)
		if end < 0 {
			return fmt.Errorf("a flow list over several lines; write it on one line or as a block list and run cassette learn again")
		}
		e.lines[v.Line-1] = line[:v.Column-1] + flow + line[end+1:]
	case v.Kind == yaml.SequenceNode:
		have := map[string]bool{}
		for _, it := range v.Content {
			have[it.Value] = true
		}
		indent := strings.Repeat(" ", k.Column+1)
		last := k.Line
		if len(v.Content) > 0 {
			indent = strings.Repeat(" ", v.Content[0].Column-3)
			last = v.Content[len(v.Content)-1].Line
		}
		for _, n := range names {
			if !have[n] {
				e.insertAfter(last, indent+"- "+quoteNames([]string{n})[0])
			}
		}
	default:
		return fmt.Errorf("is not a list")
	}
	return nil
}

// closing is the index of the ']' that closes the '[' at i, or -1.
func closing(line string, i int) int {
	depth, quote := 0, byte(0)
	for j := i; j < len(line); j++ {
		c := line[j]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[':
			depth++
		case c == ']':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// addDefs writes the new definitions at the end of the top-level
// `normalizers:` mapping, or in a new one after `adapters:`.
func (e *editor) addDefs(root *yaml.Node, r *Result, defs map[string]normalize.Definition) error {
	m := value(root, "normalizers")
	indent := "  "
	if m != nil && m.Kind == yaml.MappingNode && len(m.Content) > 0 {
		if m.Style&yaml.FlowStyle != 0 {
			return fmt.Errorf("a flow mapping; write it as a block mapping and run cassette learn again")
		}
		indent = strings.Repeat(" ", m.Content[0].Column-1)
	}
	var text []string
	if m == nil || len(m.Content) == 0 {
		text = append(text, "normalizers:")
	}
	for _, p := range r.Proposals {
		d, ok := defs[p.Name]
		if !ok {
			continue
		}
		text = append(text, indent+"# learned by cassette learn: "+coverage(p))
		text = append(text, indent+p.Name+": "+flowDef(d))
	}
	switch {
	case m != nil && len(m.Content) == 0: // normalizers: {} or an empty value
		k := key(root, "normalizers")
		e.lines[k.Line-1] = "normalizers:\n" // the empty value goes
		e.insertAfter(k.Line, text[1:]...)
	case m != nil:
		e.insertBefore(e.endOf(root, "normalizers"), text...)
	default:
		e.insertBefore(e.endOf(root, "adapters"), text...)
	}
	return nil
}

// endOf is the line before which a new entry of root's key k goes: the
// next top-level key's line, above the comments that lead into it; past
// the last line when k is the last key.
func (e *editor) endOf(root *yaml.Node, k string) int {
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == k && i+2 < len(root.Content) {
			line := root.Content[i+2].Line
			for line > 1 && strings.HasPrefix(strings.TrimSpace(e.lines[line-2]), "#") {
				line--
			}
			for line > 1 && strings.TrimSpace(e.lines[line-2]) == "" {
				line--
			}
			return line
		}
	}
	if len(e.lines) > 0 && e.lines[len(e.lines)-1] == "" {
		return len(e.lines)
	}
	e.lines = append(e.lines, "")
	return len(e.lines)
}

// coverage says in a line what a proposal covers.
func coverage(p Proposal) string {
	classes, wheres := map[string]bool{}, map[string]bool{}
	for _, pl := range p.Places {
		for _, c := range pl.Classes {
			classes[c] = true
		}
		wheres[pl.Scenario] = true
	}
	return fmt.Sprintf("%s in %d place(s) of %s", strings.Join(sortedKeys(classes), ", "), len(p.Places), strings.Join(sortedKeys(wheres), ", "))
}

// flowDef writes a definition as a YAML flow mapping.
func flowDef(d normalize.Definition) string {
	var parts []string
	if d.Regex != "" {
		parts = append(parts, "regex: "+sq(d.Regex))
	}
	if len(d.JSONPaths) > 0 {
		ps := append([]string(nil), d.JSONPaths...)
		sort.Strings(ps)
		parts = append(parts, "json_paths: ["+strings.Join(mapQuote(ps), ", ")+"]")
	}
	if len(d.Headers) > 0 {
		parts = append(parts, "headers: ["+strings.Join(mapQuote(d.Headers), ", ")+"]")
	}
	if d.Replace != "" {
		parts = append(parts, "replace: "+sq(d.Replace))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func mapQuote(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = sq(v)
	}
	return out
}

// sq is s as a YAML single-quoted scalar.
func sq(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// quoteNames quotes the names a plain scalar cannot hold.
func quoteNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		var node yaml.Node
		if yaml.Unmarshal([]byte("["+n+"]"), &node) != nil || len(node.Content) == 0 || len(node.Content[0].Content) != 1 ||
			node.Content[0].Content[0].Value != n || bytes.ContainsAny([]byte(n), "#,[]{}") {
			out[i] = sq(n)
			continue
		}
		out[i] = n
	}
	return out
}
