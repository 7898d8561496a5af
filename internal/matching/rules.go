package matching

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/gowebpki/jcs"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/normalize"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/match"
)

// FromConfig turns the `match:` settings of cassette.yaml (an adapter's, or
// one scenario's: cfgschema.Match.For) into Rules.
func FromConfig(m cfgschema.Match) match.Rules {
	r := match.Rules{Headers: m.Headers, Body: match.BodyMode(m.Body), URLs: m.URLs, IgnoreParams: m.IgnoreQuery,
		IgnoreJSON: m.IgnoreJSON, OnlyJSON: m.OnlyJSON, Replayable: m.Sequence == "replayable", Preset: m.Preset}
	if m.Query != nil && !*m.Query {
		r.IgnoreQuery = true
	}
	return r
}

// Check compiles the patterns and paths of r and returns the first error,
// for flag and config validation.
func Check(r match.Rules) error {
	_, err := compile(r)
	return err
}

// compiled is what Rules compile to once, for every request.
type compiled struct {
	match.Rules
	urls    []URLPattern
	params  map[string]bool
	json    jsonFilter
	headers []string // canonical names of match.Rules.Headers
}

func compile(r match.Rules) (*compiled, error) {
	r, err := withPreset(r)
	if err != nil {
		return nil, err
	}
	if r.Body == "" {
		r.Body = match.BodyRaw
	}
	c := &compiled{Rules: r}
	for _, s := range r.URLs {
		p, err := ParseURLPattern(s)
		if err != nil {
			return nil, err
		}
		c.urls = append(c.urls, p)
	}
	if len(r.IgnoreParams) > 0 {
		c.params = map[string]bool{}
		for _, n := range r.IgnoreParams {
			c.params[n] = true
		}
	}
	f, err := newJSONFilter(r.IgnoreJSON, r.OnlyJSON)
	if err != nil {
		return nil, err
	}
	c.json = f
	c.headers = make([]string, len(r.Headers))
	for i, h := range r.Headers {
		c.headers[i] = http.CanonicalHeaderKey(h)
	}
	return c, nil
}

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

// Match reports whether the normalized URL u matches the pattern.
func (p URLPattern) Match(u string) bool {
	if p.re != nil {
		return p.re.MatchString(u)
	}
	ok, _ := path.Match(p.gl, u)
	return ok
}

// jsonFilter leaves JSONPaths (RFC 9535, as normalizers take them) out of
// body matching, or keeps only the named ones. A body that is not JSON is
// left as it is. An ignored path is left out on both sides, key and all
// (normalize.Omit): a key that only one side has (a field a newer SDK
// adds to a request an older one recorded) does not make them differ.
type jsonFilter struct {
	ignore []*normalize.JSONPath
	only   []*normalize.JSONPath
}

func newJSONFilter(ignore, only []string) (jsonFilter, error) {
	var f jsonFilter
	for _, list := range []struct {
		src []string
		dst *[]*normalize.JSONPath
	}{{ignore, &f.ignore}, {only, &f.only}} {
		for _, s := range list.src {
			p, err := normalize.ParseJSONPath(s)
			if err != nil {
				return f, fmt.Errorf("JSONPath %q: %w", s, err)
			}
			*list.dst = append(*list.dst, p)
		}
	}
	return f, nil
}

func (f jsonFilter) empty() bool { return len(f.ignore) == 0 && len(f.only) == 0 }

// apply returns the canonical form of what is compared, or ok=false when
// the body is not JSON.
func (f jsonFilter) apply(body []byte) ([]byte, bool) {
	if len(f.ignore) > 0 {
		out, ok := normalize.Omit(body, f.ignore)
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

// CheckConfig compiles every adapter's and scenario's `match:` in cfg (URL
// patterns, JSONPaths); the first that does not compile is a config error
// naming its line, whose next step is next.
func CheckConfig(cfg *cfgschema.Config, next string) error {
	for _, name := range cfg.Order {
		a := cfg.Adapters[name]
		for _, sc := range append([]string{""}, slices.Sorted(maps.Keys(a.Match.Scenarios))...) {
			if err := Check(FromConfig(a.Match.For(sc))); err != nil {
				field := "adapters." + name + ".match"
				if sc != "" {
					field += ".scenarios." + sc
				}
				return &outcome.Error{Reason: outcome.ECfgParse, Message: "invalid replay matching in " + cfg.Path,
					Problems: []outcome.Problem{{File: cfg.Path, Line: cfg.Line(field), Field: field, Message: err.Error()}},
					NextStep: next}
			}
		}
	}
	return nil
}
