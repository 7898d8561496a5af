package proxy

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/gowebpki/jcs"

	"github.com/cassette-dev/cassette/normalize"
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

// jsonBodyFilter leaves JSONPaths (RFC 9535, as normalizers take them) out
// of body matching, or keeps only the named ones. A body that is not JSON
// is left as it is.
type jsonBodyFilter struct {
	ignore *normalize.Pipeline // replaces the ignored values with one constant
	only   []*normalize.JSONPath
}

func newJSONBodyFilter(ignore, only []string) (jsonBodyFilter, error) {
	var f jsonBodyFilter
	for _, s := range only {
		p, err := normalize.ParseJSONPath(s)
		if err != nil {
			return f, fmt.Errorf("JSONPath %q: %w", s, err)
		}
		f.only = append(f.only, p)
	}
	if len(ignore) > 0 {
		reg := normalize.NewRegistry()
		if err := reg.Define("ignored", normalize.Definition{JSONPaths: ignore, Replace: "<ignored>"}); err != nil {
			return f, err
		}
		pipe, err := reg.Pipeline([]string{"ignored"}, normalize.Options{})
		if err != nil {
			return f, err
		}
		f.ignore = pipe
	}
	return f, nil
}

func (f jsonBodyFilter) empty() bool { return f.ignore == nil && len(f.only) == 0 }

// apply returns the canonical form of what is compared, or ok=false when
// the body is not JSON.
func (f jsonBodyFilter) apply(body []byte) ([]byte, bool) {
	if f.ignore != nil {
		out, ok := f.ignore.JSON(normalize.NewState(), body)
		if !ok {
			return nil, false
		}
		body = out
	}
	if len(f.only) > 0 {
		kept := map[string][]json.RawMessage{}
		for _, p := range f.only {
			vals, ok := p.Select(body)
			if !ok {
				return nil, false
			}
			raw := []json.RawMessage{}
			for _, v := range vals {
				raw = append(raw, v)
			}
			kept[p.String()] = raw
		}
		b, err := json.Marshal(kept)
		if err != nil {
			return nil, false
		}
		body = b
	}
	out, err := jcs.Transform(body)
	if err != nil {
		return nil, false
	}
	return out, true
}
