package gendocs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"net/http"
	"net/url"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
)

// SchemaBase is where the schemas are published (their $id); the files
// are committed under schema/ of the repository.
const SchemaBase = "https://raw.githubusercontent.com/cassette-dev/cassette/main/schema/"

// Schemas are the JSON Schemas the repository ships, by file name below
// schema/, generated from the Go types the loader decodes (cfgschema.Config
// and cassettes.Cassette) and the doc comments of their fields, read from
// the packages' source: src (the cassettes directory) and its sibling
// internal/cfgschema (cassette.yaml's schema).
func Schemas(src string) (map[string][]byte, error) {
	docs, err := fieldDocs(src)
	if err != nil {
		return nil, err
	}
	schemaDocs, err := fieldDocs(filepath.Join(filepath.Dir(src), "internal", "cfgschema"))
	if err != nil {
		return nil, err
	}
	maps.Copy(docs, schemaDocs)
	out := map[string][]byte{}
	for name, s := range map[string]struct {
		t           reflect.Type
		title, desc string
	}{
		"cassette.yaml.schema.json": {reflect.TypeFor[cfgschema.Config](), "cassette.yaml",
			"The project's configuration: its adapters (each a real service and its fake), normalizers, refresh, quarantine and redaction. Checked by `cassette validate`."},
		"cassette.schema.json": {reflect.TypeFor[cassettes.Cassette](), "a cassette",
			"One recorded scenario, cassettes/<adapter>/<scenario>.yaml: a superset of go-vcr's version 2 format. Checked by `cassette validate`."},
	} {
		g := &schemaGen{docs: docs, defs: map[string]any{}}
		root := g.object(s.t)
		root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
		root["$id"] = SchemaBase + name
		root["title"] = s.title
		root["description"] = s.desc
		root["$defs"] = g.defs
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(root); err != nil {
			return nil, err
		}
		out[name] = b.Bytes()
	}
	return out, nil
}

type schemaGen struct {
	docs map[string]string // "Type.Field" → its doc comment
	defs map[string]any
}

var (
	headerType = reflect.TypeFor[http.Header]()
	valuesType = reflect.TypeFor[url.Values]()
)

// value is the schema of one Go type as YAML holds it.
func (g *schemaGen) value(t reflect.Type) map[string]any {
	switch t {
	case reflect.TypeFor[cassettes.Body]():
		return map[string]any{"type": []string{"string", "null"}, "description": "bytes: a string (a literal block for text) or `!!binary` base64"}
	case reflect.TypeFor[cassettes.Duration]():
		return map[string]any{"type": []string{"string", "integer"}, "description": "a duration like 90s or 120ms (or an integer of nanoseconds)"}
	case reflect.TypeFor[cfgschema.Date]():
		return map[string]any{"type": "string", "pattern": `^[0-9]{4}-[0-9]{2}-[0-9]{2}`, "description": "a date, YYYY-MM-DD"}
	case reflect.TypeFor[time.Time]():
		return map[string]any{"type": "string", "description": "an RFC 3339 time"}
	case reflect.TypeFor[cfgschema.Kind]():
		return map[string]any{"enum": []string{"http", "cli"}}
	case headerType, valuesType:
		return map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.value(t.Elem())
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int64, reflect.Int32:
		return map[string]any{"type": "integer"}
	case reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": g.value(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.value(t.Elem())}
	case reflect.Struct:
		if _, ok := g.defs[t.Name()]; !ok {
			g.defs[t.Name()] = true // a placeholder: types may refer to themselves (Match.Scenarios)
			g.defs[t.Name()] = g.object(t)
		}
		return map[string]any{"$ref": "#/$defs/" + t.Name()}
	}
	panic(fmt.Sprintf("gendocs: no schema for %s", t))
}

var oneof = regexp.MustCompile(`oneof=([^,]+)`)

// object is the schema of a struct: its yaml fields, no others (the
// loader is strict), the ones `validate:"required"` names required.
func (g *schemaGen) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	var required []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		s := g.value(f.Type)
		if doc := g.docs[t.Name()+"."+f.Name]; doc != "" {
			s = withDescription(s, doc)
		}
		v := f.Tag.Get("validate")
		if m := oneof.FindStringSubmatch(v); m != nil && f.Type.Kind() == reflect.String {
			s["enum"] = strings.Fields(m[1])
		}
		own, _, _ := strings.Cut(v, "dive") // the rules after dive are the elements'
		for _, rule := range strings.Split(own, ",") {
			n, isMin := strings.CutPrefix(rule, "min=")
			m, isMax := strings.CutPrefix(rule, "max=")
			switch k := f.Type.Kind(); {
			case rule == "required":
				required = append(required, name)
			case isMin && (k == reflect.Map || k == reflect.Slice):
				s["min"+map[bool]string{true: "Properties", false: "Items"}[k == reflect.Map]], _ = strconv.Atoi(n)
			case isMin:
				s["minimum"], _ = strconv.Atoi(n)
			case isMax:
				s["maximum"], _ = strconv.Atoi(m)
			}
		}
		props[name] = s
	}
	o := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if doc := g.docs[t.Name()]; doc != "" {
		o["description"] = doc
	}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

// withDescription adds a description; a $ref gets it beside the $ref.
func withDescription(s map[string]any, doc string) map[string]any {
	out := map[string]any{}
	for k, v := range s {
		out[k] = v
	}
	if old, ok := out["description"].(string); ok {
		doc += " (" + old + ")"
	}
	out["description"] = doc
	return out
}

// fieldDocs reads the doc and line comments of the package's types and
// their fields: "Type" and "Type.Field".
func fieldDocs(src string) (map[string]string, error) {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(src, "*.go"))
	if err != nil {
		return nil, err
	}
	docs := map[string]string{}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, sp := range gd.Specs {
				ts := sp.(*ast.TypeSpec)
				doc := gd.Doc
				if ts.Doc != nil {
					doc = ts.Doc
				}
				docs[ts.Name.Name] = clean(doc)
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				for _, fl := range st.Fields.List {
					text := clean(fl.Doc)
					if text == "" {
						text = clean(fl.Comment)
					}
					for _, n := range fl.Names {
						docs[ts.Name.Name+"."+n.Name] = text
					}
				}
			}
		}
	}
	return docs, nil
}

func clean(c *ast.CommentGroup) string {
	if c == nil {
		return ""
	}
	return strings.Join(strings.Fields(c.Text()), " ")
}
