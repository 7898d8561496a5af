package coverage

import (
	"encoding/binary"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/kind"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// DefaultDepth is how many leading words name a CLI call's subcommand
// when the adapter does not say (`git log`, `docker ps`).
const DefaultDepth = 1

// DefaultMin is the percentage of call shapes cassettes must cover when
// neither coverage.min nor --min says otherwise.
const DefaultMin = 100.0

// Rules turn one adapter's calls and cassettes into call shapes: the
// built-in rules plus the adapter's `coverage:` settings.
type Rules struct {
	Kind cfgschema.Kind
	// Kinds are the adapter kinds whose cassettes' calls OfCassette reads
	// (internal/kind); nil is http and cli.
	Kinds *kind.Registry
	// Min is the percentage of observed shapes that must be covered.
	Min float64

	paths       [][]string // templates: a literal segment, or "" for a parameter
	depth       int
	valueFlags  map[string]bool
	ignore      []*regexp.Regexp
	ignoreQuery map[string]bool
	ignoreFlags map[string]bool
	args        map[string]ArgsRule // "gh api" → its rule

	// memo, when set (Memoize), keeps the path templates and query words
	// already worked out: the same paths and parameter names come back
	// call after call, and each word is held against the value forms and
	// the token formats. Not safe for concurrent use.
	memo *shapeMemo
}

type shapeMemo struct {
	paths   map[string]string // escaped path → its template
	words   map[string]string // query parameter name → queryWord
	cli     map[string]Shape  // a CLI call's key (appendShape) → its shape
	scratch []string          // a call's query words, being sorted
	key     []byte            // a CLI call's key, being built
}

// maxMemo bounds the CLI calls a memo keeps.
const maxMemo = 1 << 16

// Memoize makes r keep the path templates, query words and CLI calls' shapes it works out,
// for one goroutine reading many calls (Analyze).
func (r *Rules) Memoize() {
	r.memo = &shapeMemo{paths: map[string]string{}, words: map[string]string{}, cli: map[string]Shape{}}
}

// ArgsRule says which positional arguments of a command (and its
// subcommand words) are part of its shape.
type ArgsRule struct {
	// Kind is "path" (the first positional argument is an endpoint: a path
	// template, or a GraphQL call's operation name) or "none".
	Kind string
	// ValueFlags are the command's flags whose value is the next word.
	ValueFlags []string
	// Paths are path templates of the endpoints (as coverage.paths).
	Paths []string
	// QueryFields are the flags' NAME=value fields that hold a GraphQL
	// query (query=…).
	QueryFields []string

	templates [][]string // Paths split once (NewRules), for every call
}

// BuiltinArgs are the args rules every adapter has unless its
// coverage.args says otherwise: gh api's endpoint (its REST paths with
// GitHub's owner, repo, org and user names as parameters, and gh's own
// {owner}/{repo} placeholders) and its GraphQL operation.
var BuiltinArgs = map[string]ArgsRule{
	"gh api": {Kind: "path",
		ValueFlags: []string{"-f", "--raw-field", "-F", "--field", "-H", "--header", "-X", "--method", "-q", "--jq", "-t", "--template",
			"--input", "--cache", "-p", "--preview", "--hostname"},
		Paths:       []string{"/repos/{owner}/{repo}", "/orgs/{org}", "/users/{user}", "/repositories/{id}"},
		QueryFields: []string{"-f", "--raw-field", "-F", "--field"}},
}

var paramRe = regexp.MustCompile(`^\{[A-Za-z_][A-Za-z0-9_]*\}$`)

// NewRules compiles an adapter's coverage settings (nil: the built-in
// rules only, for a kind). Each problem names its field below
// `coverage.` (e.g. `paths[1]`); the caller places it in cassette.yaml.
func NewRules(a *cfgschema.Adapter) (*Rules, []outcome.Problem) {
	r := &Rules{Min: DefaultMin, depth: DefaultDepth, valueFlags: map[string]bool{}, ignoreQuery: map[string]bool{}, ignoreFlags: map[string]bool{},
		args: maps.Clone(BuiltinArgs)}
	if a == nil {
		r.splitArgsPaths()
		return r, nil
	}
	r.Kind = a.Kind
	c := a.Coverage
	var probs []outcome.Problem
	for i, t := range c.Paths {
		segs, err := template(t)
		if err != nil {
			probs = append(probs, outcome.Problem{Field: fmt.Sprintf("paths[%d]", i), Message: err.Error(),
				Expected: "a path whose segments are words or {name}, e.g. /repos/{owner}/{repo}"})
			continue
		}
		r.paths = append(r.paths, segs)
	}
	if c.Depth != nil {
		r.depth = *c.Depth
	}
	for _, f := range c.ValueFlags {
		r.valueFlags[f] = true
	}
	for i, g := range c.Ignore {
		re, err := glob(g)
		if err != nil {
			probs = append(probs, outcome.Problem{Field: fmt.Sprintf("ignore[%d]", i), Message: err.Error(), Expected: `a call shape, * for any text: "GET /healthz"`})
			continue
		}
		r.ignore = append(r.ignore, re)
	}
	for _, q := range append(append([]string(nil), c.IgnoreQuery...), a.Match.IgnoreQuery...) {
		r.ignoreQuery[q] = true
	}
	for _, f := range c.IgnoreFlags {
		r.ignoreFlags[f] = true
	}
	if c.Min != nil {
		r.Min = *c.Min
	}
	for k, kind := range c.Args {
		key := strings.Join(strings.Fields(k), " ")
		switch kind {
		case "path", "none":
			rule := r.args[key]
			rule.Kind = kind
			r.args[key] = rule
		default:
			probs = append(probs, outcome.Problem{Field: "args." + k, Message: fmt.Sprintf("%q is not a kind of arguments", kind), Expected: `path or none ("gh api": path)`})
		}
	}
	r.splitArgsPaths()
	return r, probs
}

// splitArgsPaths splits the args rules' path templates once, instead of
// on each call of their command.
func (r *Rules) splitArgsPaths() {
	for k, rule := range r.args {
		rule.templates = nil
		for _, t := range rule.Paths {
			if segs, err := template(t); err == nil {
				rule.templates = append(rule.templates, segs)
			}
		}
		r.args[k] = rule
	}
}

// template splits a declared path template into its segments, "" for a
// {name}.
func template(t string) ([]string, error) {
	if !strings.HasPrefix(t, "/") {
		return nil, fmt.Errorf("path template %q does not start with /", t)
	}
	segs := strings.Split(strings.TrimPrefix(t, "/"), "/")
	hasParam := false
	for i, s := range segs {
		switch {
		case paramRe.MatchString(s):
			segs[i], hasParam = "", true
		case s == "" || strings.ContainsAny(s, "{}*"):
			return nil, fmt.Errorf("path template %q: segment %q is neither a word nor {name}", t, s)
		}
	}
	if !hasParam {
		return nil, fmt.Errorf("path template %q names no parameter", t)
	}
	return segs, nil
}

// glob compiles an ignore pattern: * is any run of characters, the rest is
// literal, and the pattern covers the whole shape.
func glob(g string) (*regexp.Regexp, error) {
	if strings.TrimSpace(g) == "" {
		return nil, fmt.Errorf("an empty pattern")
	}
	parts := strings.Split(g, "*")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.Compile("^" + strings.Join(parts, ".*") + "$")
}

// Ignored reports whether the adapter's coverage.ignore leaves a shape out.
func (r *Rules) Ignored(s Shape) bool {
	for _, re := range r.ignore {
		if re.MatchString(string(s)) {
			return true
		}
	}
	return false
}

// Of is the shape of an observed call, by the kind of the call.
func (r *Rules) Of(o Observation) Shape {
	if o.Kind == cfgschema.KindCLI {
		return r.CLIShape(o.Call.Argv, o.Call.Stdin)
	}
	return Shape(r.appendShape(nil, &o))
}

// appendShape appends the text of Of(*o) to b. With a memo, a CLI call
// seen before (its argv and standard input) is not read again.
func (r *Rules) appendShape(b []byte, o *Observation) []byte {
	if o.Kind != cfgschema.KindCLI {
		body := []byte(o.Call.Body)
		return r.appendHTTPShape(b, o.Call.Method, o.Call.URL, o.Call.ContentType, body, max(o.Call.BodyBytes, len(body)))
	}
	if r.memo == nil {
		return append(b, r.CLIShape(o.Call.Argv, o.Call.Stdin)...)
	}
	key := r.memo.key[:0]
	if o.Call.Stdin {
		key = append(key, 1)
	}
	for _, a := range o.Call.Argv {
		key = binary.AppendUvarint(key, uint64(len(a)))
		key = append(key, a...)
	}
	r.memo.key = key
	s, ok := r.memo.cli[string(key)]
	if !ok {
		s = r.CLIShape(o.Call.Argv, o.Call.Stdin)
		if len(r.memo.cli) < maxMemo {
			r.memo.cli[string(key)] = s
		}
	}
	return append(b, s...)
}

// callShape is the shape of one call of a cassette.
func (r *Rules) callShape(c kind.Call) Shape {
	if c.Proc {
		return r.CLIShape(c.Argv, c.Stdin)
	}
	return r.HTTPShape(c.Method, c.URL, c.ContentType, c.Body, len(c.Body))
}

// OfCassette lists the distinct shapes of a cassette, in the order they
// first appear: one per call its kind reads in it (kind.Kind.Calls: an
// http cassette's requests, a cli cassette's command, whose HTTP is the
// command's own traffic and gives no shape of this adapter). A kind Kinds
// lacks is read as http, the format's default.
func (r *Rules) OfCassette(c *cassettes.Cassette) []Shape {
	k, ok := r.Kinds.Lookup(c.Kind)
	if !ok {
		k = kind.HTTP()
	}
	var out []Shape
	for _, call := range k.Calls(c) {
		s := r.callShape(call)
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
