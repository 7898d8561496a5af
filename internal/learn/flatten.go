package learn

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
)

// Target says how a normalizer reaches a place.
type Target int

// The targets of a place.
const (
	TargetJSON   Target = iota + 1 // a JSON value, by path (a body, a stream record)
	TargetHeader                   // a header's values
	TargetQuery                    // a query value of a request URL
	TargetText                     // a line of text (output, a text body, a URL path)
	TargetFixed                    // a status, an exit code: no normalizer reaches it
)

// leaf is one value of a recording at one location.
type leaf struct {
	key    string // the concrete location: interactions[0].response.body $.items[3].id
	where  string // the location for people, array indices generalised
	target Target
	path   string // TargetJSON: the generalised JSONPath; TargetHeader: the header; TargetQuery: the key
	cpath  string // TargetJSON: the concrete JSONPath
	value  string
}

// leaves lists the values of a normalized cassette, in a stable order.
func leaves(c *cassettes.Cassette) []leaf {
	var out []leaf
	add := func(l leaf) { out = append(out, l) }
	if c.Input != nil {
		textLeaves("input.stdin", c.Input.Stdin.Bytes(), add)
	}
	for i, it := range c.Interactions {
		at := fmt.Sprintf("interactions[%d]", i)
		urlLeaves(at+".request.url", it.Request.URL, add)
		headerLeaves(at+".request.headers", it.Request.Headers, add)
		bodyLeaves(at+".request.body", it.Request.Body.Bytes(), add)
		add(leaf{key: at + ".response.code", where: at + ".response.code", target: TargetFixed, value: fmt.Sprint(it.Response.Code)})
		headerLeaves(at+".response.headers", it.Response.Headers, add)
		bodyLeaves(at+".response.body", it.Response.Body.Bytes(), add)
	}
	if c.Output != nil {
		bodyLeaves("output.stdout", c.Output.Stdout.Bytes(), add)
		bodyLeaves("output.stderr", c.Output.Stderr.Bytes(), add)
		add(leaf{key: "output.exit_code", where: "output.exit_code", target: TargetFixed, value: fmt.Sprint(c.Output.ExitCode)})
	}
	return out
}

// urlLeaves splits a request URL into its path and query values. The
// scheme and host are where the real side was reached (real.base_url,
// --base-url), not what it answered: verify sends the path to the fake.
func urlLeaves(at, raw string, add func(leaf)) {
	u, err := url.Parse(raw)
	if err != nil {
		add(leaf{key: at, where: at, target: TargetText, value: raw})
		return
	}
	path, _, _ := strings.Cut(raw, "?")
	if _, rest, ok := strings.Cut(path, "://"); ok {
		path = "/"
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			path = rest[i:]
		}
	}
	add(leaf{key: at, where: at, target: TargetText, value: path})
	if u.RawQuery == "" {
		return
	}
	q := u.Query()
	for _, k := range sortedKeys(q) {
		for j, v := range q[k] {
			add(leaf{key: fmt.Sprintf("%s ?%s[%d]", at, k, j), where: at + " ?" + k, target: TargetQuery, path: k, value: v})
		}
	}
}

func headerLeaves(at string, h http.Header, add func(leaf)) {
	for _, k := range sortedKeys(h) {
		name := http.CanonicalHeaderKey(k)
		for j, v := range h[k] {
			add(leaf{key: fmt.Sprintf("%s.%s[%d]", at, name, j), where: at + "." + name, target: TargetHeader, path: name, value: v})
		}
	}
}

// bodyLeaves splits a body: a JSON document by path, a stream (JSON lines,
// SSE data lines) record by record, anything else line by line.
func bodyLeaves(at string, body []byte, add func(leaf)) {
	if len(bytes.TrimSpace(body)) == 0 {
		add(leaf{key: at, where: at, target: TargetFixed, value: string(body)})
		return
	}
	if v, ok := decodeJSON(body); ok {
		jsonLeaves(at, at, "$", "$", v, add)
		return
	}
	textLeaves(at, body, add)
}

func textLeaves(at string, body []byte, add func(leaf)) {
	lines := strings.Split(string(body), "\n")
	add(leaf{key: at + " lines", where: at + " lines", target: TargetFixed, value: fmt.Sprint(len(lines))})
	for i, line := range lines {
		key := fmt.Sprintf("%s line %d", at, i+1)
		rec := strings.TrimSpace(line)
		prefix := ""
		if strings.HasPrefix(rec, "data:") {
			prefix, rec = "data:", strings.TrimSpace(strings.TrimPrefix(rec, "data:"))
		}
		if strings.HasPrefix(rec, "{") || strings.HasPrefix(rec, "[") {
			if v, ok := decodeJSON([]byte(rec)); ok {
				jsonLeaves(key, at+" record"+strings.TrimSuffix(" "+prefix, " "), "$", "$", v, add)
				continue
			}
		}
		add(leaf{key: key, where: key, target: TargetText, value: line})
	}
}

func decodeJSON(b []byte) (any, bool) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || (b[0] != '{' && b[0] != '[') {
		return nil, false
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil || d.More() {
		return nil, false
	}
	return v, true
}

var plainName = lazy(`^[A-Za-z_][A-Za-z0-9_]*$`)

// jsonLeaves walks a JSON value: key holds concrete indices, gen [*].
func jsonLeaves(keyAt, whereAt, key, gen string, v any, add func(leaf)) {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			add(leaf{key: keyAt + " " + key, where: whereAt + " " + gen, target: TargetJSON, path: gen, cpath: key, value: "{}"})
		}
		for _, k := range sortedKeys(x) {
			sel := "." + k
			if !plainName().MatchString(k) {
				sel = "['" + strings.ReplaceAll(strings.ReplaceAll(k, `\`, `\\`), `'`, `\'`) + "']"
			}
			jsonLeaves(keyAt, whereAt, key+sel, gen+sel, x[k], add)
		}
	case []any:
		add(leaf{key: keyAt + " " + key + ".length", where: whereAt + " " + gen, target: TargetFixed, path: gen, value: fmt.Sprint(len(x))})
		for i, e := range x {
			jsonLeaves(keyAt, whereAt, fmt.Sprintf("%s[%d]", key, i), gen+"[*]", e, add)
		}
	default:
		add(leaf{key: keyAt + " " + key, where: whereAt + " " + gen, target: TargetJSON, path: gen, cpath: key, value: scalar(x)})
	}
}

func scalar(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case nil:
		return "null"
	default:
		return fmt.Sprint(x)
	}
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
