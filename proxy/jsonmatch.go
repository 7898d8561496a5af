package proxy

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/gowebpki/jcs"
)

// URLPattern matches whole request URLs (scheme://host/path?query, after
// normalization: default port dropped, query sorted) by glob or regular
// expression. Requests and recorded interactions whose URLs match the same
// pattern match each other on the URL, whatever the rest of it is.
type URLPattern struct {
	src string
	re  *regexp.Regexp
	gl  string
}

// ParseURLPattern compiles "glob:PATTERN" (path.Match syntax: `*` does not
// cross '/', so `https://api.x.com/v1/things/*` matches one segment),
// "regex:EXPR" (Go RE2, anchored) or a bare PATTERN (a glob).
func ParseURLPattern(s string) (URLPattern, error) {
	switch {
	case strings.HasPrefix(s, "regex:"):
		re, err := regexp.Compile("^(?:" + strings.TrimPrefix(s, "regex:") + ")$")
		if err != nil {
			return URLPattern{}, fmt.Errorf("URL pattern %q: %w", s, err)
		}
		return URLPattern{src: s, re: re}, nil
	default:
		g := strings.TrimPrefix(s, "glob:")
		if _, err := path.Match(g, ""); err != nil {
			return URLPattern{}, fmt.Errorf("URL pattern %q: %w", s, err)
		}
		return URLPattern{src: s, gl: g}, nil
	}
}

// String returns the pattern as written.
func (p URLPattern) String() string { return p.src }

func (p URLPattern) match(u string) bool {
	if p.re != nil {
		return p.re.MatchString(u)
	}
	ok, _ := path.Match(p.gl, u)
	return ok
}

// jsonPath is the JSONPath subset body matching understands: `$`, `.name`,
// `['name']`, `[N]`, `[*]`, `.*` and `..name` (a name at any depth).
type jsonPath struct {
	src   string
	steps []jsonStep
}

type jsonStep struct {
	name       string
	index      int
	wild, deep bool
	isIndex    bool
}

var stepRe = regexp.MustCompile(`^(?:\.\.([A-Za-z0-9_$-]+)|\.([A-Za-z0-9_$-]+)|\.\*|\[\*\]|\[(\d+)\]|\['([^']*)'\]|\["([^"]*)"\])`)

func parseJSONPath(s string) (jsonPath, error) {
	p := jsonPath{src: s}
	rest, ok := strings.CutPrefix(strings.TrimSpace(s), "$")
	if !ok {
		return p, fmt.Errorf("JSONPath %q must start with $", s)
	}
	for rest != "" {
		m := stepRe.FindStringSubmatch(rest)
		if m == nil {
			return p, fmt.Errorf("JSONPath %q: cannot read %q (supported: .name, ['name'], [N], [*], .*, ..name)", s, rest)
		}
		var st jsonStep
		switch {
		case m[1] != "":
			st = jsonStep{name: m[1], deep: true}
		case m[2] != "":
			st = jsonStep{name: m[2]}
		case m[3] != "":
			st.index, _ = strconv.Atoi(m[3])
			st.isIndex = true
		case m[4] != "" || m[5] != "":
			st = jsonStep{name: m[4] + m[5]}
		default:
			st.wild = true
		}
		p.steps = append(p.steps, st)
		rest = rest[len(m[0]):]
	}
	return p, nil
}

// visit calls fn with the parent container and key of every value the path
// selects (parent is a map[string]any or []any).
func (p jsonPath) visit(v any, fn func(parent any, key any)) {
	var walk func(v any, steps []jsonStep)
	walk = func(v any, steps []jsonStep) {
		if len(steps) == 0 {
			return
		}
		st, last := steps[0], len(steps) == 1
		each := func(parent any, key any, child any) {
			if last {
				fn(parent, key)
			} else {
				walk(child, steps[1:])
			}
		}
		switch t := v.(type) {
		case map[string]any:
			for _, k := range sortedMapKeys(t) {
				if st.wild || !st.isIndex && k == st.name {
					each(t, k, t[k])
				}
				if st.deep {
					walk(t[k], steps)
				}
			}
		case []any:
			for i := range t {
				if st.wild || st.isIndex && i == st.index {
					each(t, i, t[i])
				}
				if st.deep {
					walk(t[i], steps)
				}
			}
		}
	}
	walk(v, p.steps)
}

func sortedMapKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// jsonBodyFilter leaves JSON paths out of body matching (ignore), or keeps
// only the named ones (only). A body that is not JSON is left as it is.
type jsonBodyFilter struct {
	ignore, only []jsonPath
}

func (f jsonBodyFilter) empty() bool { return len(f.ignore) == 0 && len(f.only) == 0 }

// apply returns the canonical form of what is compared, or ok=false when
// the body is not JSON.
func (f jsonBodyFilter) apply(body []byte) ([]byte, bool) {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, false
	}
	for _, p := range f.ignore {
		p.visit(v, func(parent any, key any) {
			switch t := parent.(type) {
			case map[string]any:
				delete(t, key.(string))
			case []any:
				t[key.(int)] = "<ignored>"
			}
		})
	}
	if len(f.only) > 0 {
		kept := map[string]any{}
		for _, p := range f.only {
			var vals []any
			p.visit(v, func(parent any, key any) {
				switch t := parent.(type) {
				case map[string]any:
					vals = append(vals, t[key.(string)])
				case []any:
					vals = append(vals, t[key.(int)])
				}
			})
			kept[p.src] = vals
		}
		v = kept
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	out, err := jcs.Transform(raw)
	if err != nil {
		return nil, false
	}
	return out, true
}
