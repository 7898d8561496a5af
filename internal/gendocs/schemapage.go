package gendocs

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// SchemaPage renders a schema of Schemas as a reference page: one row per
// key, by its path (adapters.*.real.base_url), with its type, whether it
// is required, its values and its description.
func SchemaPage(file string, data []byte) ([]byte, error) {
	var root map[string]any
	if err := json.Unmarshal(data, &root); err != nil {
		return nil, err
	}
	defs, _ := root["$defs"].(map[string]any)
	var b strings.Builder
	b.WriteString(generated("cassette gendocs", "schema/"+file+", itself generated from the Go types the loader decodes"))
	fmt.Fprintf(&b, "# Reference: %s\n\n%s\n\n", root["title"], cell(fmt.Sprint(root["description"])))
	fmt.Fprintf(&b, "The JSON Schema is [`schema/%s`](../../../schema/%s) (`$id` %s): editors validate against it with a first line\n`# yaml-language-server: $schema=%s`, which `cassette init` writes. ", file, file, root["$id"], root["$id"])
	b.WriteString("`cassette validate` checks more than the schema can say (names that must exist, secrets, `${VAR}` use).\n\n")
	b.WriteString("| key | type | description |\n|---|---|---|\n")
	rows(&b, "", root, defs, map[string]bool{})
	return []byte(b.String()), nil
}

func rows(b *strings.Builder, prefix string, s map[string]any, defs map[string]any, seen map[string]bool) {
	props, _ := s["properties"].(map[string]any)
	req, _ := s["required"].([]any)
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		p := props[n].(map[string]any)
		key := prefix + n
		t, sub := typeOf(p, defs)
		if slices.Contains(req, any(n)) {
			t += ", required"
		}
		desc, _ := p["description"].(string)
		if desc == "" && sub != nil {
			desc, _ = sub["description"].(string)
		}
		fmt.Fprintf(b, "| `%s` | %s | %s |\n", key, t, cell(desc))
		if sub != nil {
			ref, _ := p["$ref"].(string)
			if ref == "" {
				if it, ok := p["items"].(map[string]any); ok {
					ref, _ = it["$ref"].(string)
				}
				if ap, ok := p["additionalProperties"].(map[string]any); ok {
					ref, _ = ap["$ref"].(string)
				}
			}
			if seen[ref] {
				continue // a type within itself (match.scenarios.*): its keys are listed above
			}
			seen[ref] = true
			rows(b, key+suffix(p), sub, defs, seen)
			delete(seen, ref)
		}
	}
}

// suffix is how a key's children are named: .x for an object, [].x for
// a list's items, .*.x for a map's values.
func suffix(p map[string]any) string {
	switch {
	case p["items"] != nil:
		return "[]."
	case p["additionalProperties"] != nil && p["additionalProperties"] != false:
		return ".*."
	}
	return "."
}

// typeOf names a property's type, and returns the object schema its
// children are keys of, if any.
func typeOf(p map[string]any, defs map[string]any) (string, map[string]any) {
	if ref, ok := p["$ref"].(string); ok {
		return "object", defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
	}
	if e, ok := p["enum"].([]any); ok {
		var vs []string
		for _, v := range e {
			vs = append(vs, fmt.Sprintf("`%v`", v))
		}
		return "one of " + strings.Join(vs, ", "), nil
	}
	switch t := p["type"].(type) {
	case []any:
		var vs []string
		for _, v := range t {
			vs = append(vs, fmt.Sprint(v))
		}
		return strings.Join(vs, " or "), nil
	case string:
		switch t {
		case "array":
			it, _ := p["items"].(map[string]any)
			name, sub := typeOf(it, defs)
			return "list of " + name, sub
		case "object":
			if ap, ok := p["additionalProperties"].(map[string]any); ok {
				name, sub := typeOf(ap, defs)
				return "map of " + name, sub
			}
		}
		return t, nil
	}
	return "any", nil
}

// cell makes text safe in a table cell: | escaped, and < and > outside
// code spans written as entities (cassettes/<adapter> is not an HTML tag).
func cell(text string) string {
	parts := strings.Split(strings.ReplaceAll(text, "|", `\|`), "`")
	for i := 0; i < len(parts); i += 2 {
		parts[i] = strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(parts[i])
	}
	return strings.Join(parts, "`")
}
