package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The subset of jq that gh's --jq takes which the example uses: terms
// separated by ", ", each a path (.a.b, .[], .items[].title), optionally
// piped (" | ") into another path or a string with \(path) interpolations.

// jq evaluates expr on v and returns the values it yields.
func jq(expr string, v any) ([]any, error) {
	var out []any
	for _, term := range strings.Split(expr, ", ") {
		vals := []any{v}
		for _, stage := range strings.Split(term, " | ") {
			var next []any
			for _, x := range vals {
				ys, err := stageOf(strings.TrimSpace(stage), x)
				if err != nil {
					return nil, err
				}
				next = append(next, ys...)
			}
			vals = next
		}
		out = append(out, vals...)
	}
	return out, nil
}

func stageOf(stage string, v any) ([]any, error) {
	if strings.HasPrefix(stage, `"`) {
		var b strings.Builder
		rest := strings.TrimSuffix(strings.TrimPrefix(stage, `"`), `"`)
		for {
			i := strings.Index(rest, `\(`)
			if i < 0 {
				b.WriteString(rest)
				return []any{b.String()}, nil
			}
			b.WriteString(rest[:i])
			j := strings.Index(rest[i:], ")")
			if j < 0 {
				return nil, fmt.Errorf("unterminated \\( in %s", stage)
			}
			vals, err := path(rest[i+2:i+j], v)
			if err != nil || len(vals) != 1 {
				return nil, fmt.Errorf("cannot interpolate %s", rest[i+2:i+j])
			}
			b.WriteString(text(vals[0]))
			rest = rest[i+j+1:]
		}
	}
	return path(stage, v)
}

// path follows .a.b and [] steps.
func path(p string, v any) ([]any, error) {
	if !strings.HasPrefix(p, ".") {
		return nil, fmt.Errorf("unsupported jq expression %q", p)
	}
	vals := []any{v}
	for _, step := range strings.Split(p[1:], ".") {
		name, iter := strings.CutSuffix(step, "[]")
		var next []any
		for _, x := range vals {
			if name != "" {
				m, _ := x.(map[string]any)
				x = m[name]
			}
			if iter {
				list, _ := x.([]any)
				next = append(next, list...)
			} else {
				next = append(next, x)
			}
		}
		vals = next
	}
	return vals, nil
}

// text is how jq -r (gh's --jq) prints a value: strings raw, the rest as JSON.
func text(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}
