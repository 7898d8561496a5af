package normalize

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"

	"github.com/cassette-dev/cassette/internal/redact"
)

// Normalizer is one named rewrite. Each of its parts is optional; a pipeline
// applies, to every value it normalizes, the parts that fit that value:
//   - Text to a text body, a line of CLI output, a stream record that is not
//     JSON, every JSON string value and every header value;
//   - Headers to a header set (before Text runs on the values);
//   - the JSON part (only built-ins and Define can set it) to a parsed JSON
//     document, by path.
//
// Binary bodies (not valid UTF-8) are only given to Text when ByteSafe is set.
type Normalizer struct {
	Name     string
	Text     func(s string, st *State) string
	Headers  func(h http.Header, st *State)
	ByteSafe bool

	json      func(root *jsonNode, st *State)
	canonical bool // json.canonical: write JSON in RFC 8785 form
	// What the JSON part selects, for the streamed engine (stream.go): the
	// values of these paths, values under time-like member names, strings
	// under credential names. A JSON part that says none of these makes
	// its pipelines parse documents into trees.
	jsonPaths             []*JSONPath
	jsonEpochs, jsonCreds bool

	// kinds are the State kinds Text numbers, when kindsKnown: a pipeline
	// applies text parts that share no kind string by string in one walk.
	kinds      []string
	kindsKnown bool
	// needs are features a text must have for Text to change it (0: any
	// text may change).
	needs features
	// settles: where Text leaves a text as it is once, it always does,
	// whatever the State (a pass skips the values the last left alone).
	settles bool
	// redactor, on redact.credentials, is its Text for JSON documents
	// (remembering which values are clean).
	redactor *redactor
	// own: a normalizer of this package's (a built-in or a definition),
	// which keeps nothing of the texts it is given past its call.
	own bool
}

// Options are what some built-ins need to know about the run: the declared
// credential values and the project's credential names (redact.credentials)
// and the directories whose paths are volatile (paths.tmp). They are given
// when a pipeline is built.
type Options struct {
	Credentials map[string]string // variable name → value; values never leave the process
	Rules       *redact.Rules     // the project's credential names (cassette.yaml's redact.names); nil is the built-in ones
	WorkDir     string            // replaced by <cwd>
	TempDirs    []string          // roots of temporary directories; nil means DefaultTempDirs()
}

// Factory builds a normalizer. For a fixed name arg is ""; for a family
// (registered as "prefix:<hint>") arg is the text after "prefix:".
type Factory func(arg string, o Options) (Normalizer, error)

// Registry holds named normalizers. Build one with NewRegistry or Builtins
// and add to it with Register and Define; it is not safe for concurrent
// modification, but is safe for concurrent use once built.
type Registry struct {
	fixed    map[string]Factory
	families map[string]Factory // key: "prefix:" → factory
	hints    map[string]string  // "prefix:" → registered display name
	defined  map[string]bool
	own      map[string]bool // names (as registered) of this package's normalizers
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{fixed: map[string]Factory{}, families: map[string]Factory{}, hints: map[string]string{}, defined: map[string]bool{}, own: map[string]bool{}}
}

// Register adds a normalizer under name. A name of the form "prefix:<hint>"
// (such as "json.path:<JSONPath>") registers a family: any name starting with
// "prefix:" is built by f with the rest as its argument. Registering a name
// twice is an error.
func (r *Registry) Register(name string, f Factory) error {
	if name == "" || f == nil {
		return errors.New("normalize: Register needs a name and a factory")
	}
	if i := strings.Index(name, ":<"); i > 0 && strings.HasSuffix(name, ">") {
		prefix := name[:i+1]
		if _, dup := r.families[prefix]; dup {
			return fmt.Errorf("normalize: %q is already registered", name)
		}
		r.families[prefix] = f
		r.hints[prefix] = name
		return nil
	}
	if _, dup := r.fixed[name]; dup {
		return fmt.Errorf("normalize: %q is already registered", name)
	}
	r.fixed[name] = f
	return nil
}

// registerOwn registers one of this package's normalizers.
func (r *Registry) registerOwn(name string, f Factory) error {
	if err := r.Register(name, f); err != nil {
		return err
	}
	r.own[name] = true
	return nil
}

// Has reports whether name is a known normalizer: a registered or defined
// name, or a family name with a valid argument (sha:short,
// json.path:$.items[*].id, header:X-Foo).
func (r *Registry) Has(name string) bool {
	_, err := r.build(name, Options{})
	return err == nil
}

// Names lists the known names, sorted; families appear with their hint,
// such as "header:<Name>".
func (r *Registry) Names() []string {
	out := make([]string, 0, len(r.fixed)+len(r.hints))
	for n := range r.fixed {
		out = append(out, n)
	}
	for _, h := range r.hints {
		out = append(out, h)
	}
	sort.Strings(out)
	return out
}

// Suggest returns "did you mean `x`?" for the known name closest to an
// unknown one, or "" when none is close.
func (r *Registry) Suggest(name string) string {
	best, bestD := "", -1
	for _, n := range r.Names() {
		cand := n
		if i := strings.Index(n, ":<"); i > 0 {
			if strings.HasPrefix(name, n[:i+1]) {
				return fmt.Sprintf("the argument after %q is not valid; expected %s", n[:i+1], n)
			}
			cand = n[:i+1]
			if j := strings.IndexByte(name, ':'); j > 0 {
				d := distance(strings.ToLower(name[:j+1]), strings.ToLower(cand))
				if bestD < 0 || d < bestD {
					best, bestD = n, d
				}
				continue
			}
		}
		d := distance(strings.ToLower(name), strings.ToLower(cand))
		if len(name) >= 3 && strings.HasPrefix(strings.ToLower(cand), strings.ToLower(name)) {
			d = 0 // a truncated name: timestamps.iso → timestamps.ISO8601
		}
		if bestD < 0 || d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" || bestD > max(2, len(name)/3) {
		return ""
	}
	return fmt.Sprintf("did you mean `%s`?", best)
}

// UnknownError is returned for a name that is not a known normalizer.
type UnknownError struct {
	Name       string
	Suggestion string   // "did you mean `…`?", or ""
	Known      []string // every known name
	Err        error    // why a family argument was rejected, if it was
}

func (e *UnknownError) Error() string {
	var b strings.Builder
	if e.Err != nil {
		fmt.Fprintf(&b, "invalid normalizer %q: %v", e.Name, e.Err)
	} else {
		fmt.Fprintf(&b, "unknown normalizer %q", e.Name)
	}
	if e.Suggestion != "" {
		b.WriteString("; ")
		b.WriteString(e.Suggestion)
	}
	fmt.Fprintf(&b, " (known: %s)", strings.Join(e.Known, ", "))
	return b.String()
}

func (e *UnknownError) Unwrap() error { return e.Err }

func (r *Registry) build(name string, o Options) (Normalizer, error) {
	if f, ok := r.fixed[name]; ok {
		n, err := f("", o)
		n.Name, n.own = name, r.own[name]
		return n, err
	}
	if i := strings.IndexByte(name, ':'); i > 0 {
		if f, ok := r.families[name[:i+1]]; ok {
			arg := name[i+1:]
			if arg == "" {
				return Normalizer{}, &UnknownError{Name: name, Err: fmt.Errorf("missing argument, expected %s", r.hints[name[:i+1]]), Known: r.Names()}
			}
			n, err := f(arg, o)
			if err != nil {
				return Normalizer{}, &UnknownError{Name: name, Err: err, Known: r.Names()}
			}
			n.Name, n.own = name, r.own[r.hints[name[:i+1]]]
			return n, nil
		}
	}
	return Normalizer{}, &UnknownError{Name: name, Suggestion: r.Suggest(name), Known: r.Names()}
}

// Pipeline builds the pipeline that applies the named normalizers in order.
// The first unknown name is returned as an *UnknownError.
func (r *Registry) Pipeline(names []string, o Options) (*Pipeline, error) {
	p := &Pipeline{names: append([]string(nil), names...)}
	if o.TempDirs == nil {
		o.TempDirs = DefaultTempDirs()
	}
	redact, _ := redactCredentials("", o)
	p.redact = redact
	for _, name := range names {
		n, err := r.build(name, o)
		if err != nil {
			return nil, err
		}
		if n.canonical {
			p.canonical = true
		}
		p.steps = append(p.steps, n)
	}
	p.stages = plan(p.steps)
	for i := range p.stages {
		p.stages[i].red = redact.redactor // the last redaction's (see stage.rescan)
	}
	p.stream = newStreamPlan(p.steps, redact.redactor, p.canonical)
	return p, nil
}

// Definition is a project-defined normalizer, as written under `normalizers:`
// in cassette.yaml (keys regex, replace, json_paths, headers).
//
//   - Regex alone rewrites every match in all text (bodies, output, JSON
//     string values, header values).
//   - JSONPaths select JSON values (RFC 9535); Headers select header values.
//     With Regex too, only the matches inside the selected values are rewritten;
//     without, the whole value is.
//   - Replace is the replacement (`$1` expands a Regex group). Empty Replace
//     means an identity-preserving placeholder `<name:N>`: equal values get
//     equal numbers, in order of first appearance in the cassette.
type Definition struct {
	Regex     string
	Replace   string
	JSONPaths []string
	Headers   []string
}

// DefinitionError says which field of a Definition is wrong.
type DefinitionError struct {
	Name    string // the normalizer being defined
	Field   string // regex, replace, json_paths[1], headers[0], or "" for the whole entry
	Message string
}

func (e *DefinitionError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("normalizer %q: %s", e.Name, e.Message)
	}
	return fmt.Sprintf("normalizer %q: %s: %s", e.Name, e.Field, e.Message)
}

var definedName = lazyRE(`^[A-Za-z][A-Za-z0-9_.-]*$`)

// Define registers a project-defined normalizer under name. Errors are
// *DefinitionError values naming the offending field.
func (r *Registry) Define(name string, d Definition) error {
	if !definedName().MatchString(name) {
		return &DefinitionError{Name: name, Message: "a normalizer name is a letter followed by letters, digits, '_', '.' or '-'"}
	}
	if _, dup := r.fixed[name]; dup {
		what := "a built-in normalizer"
		if r.defined[name] {
			what = "already defined"
		}
		return &DefinitionError{Name: name, Message: fmt.Sprintf("the name is %s; choose another name", what)}
	}
	n, err := compileDefinition(name, d)
	if err != nil {
		return err
	}
	r.fixed[name] = func(string, Options) (Normalizer, error) { return n, nil }
	r.defined[name], r.own[name] = true, true
	return nil
}

func compileDefinition(name string, d Definition) (Normalizer, error) {
	if d.Regex == "" && len(d.JSONPaths) == 0 && len(d.Headers) == 0 {
		return Normalizer{}, &DefinitionError{Name: name, Message: "needs at least one of regex, json_paths or headers"}
	}
	var re *regexp.Regexp
	if d.Regex != "" {
		var err error
		if re, err = regexp.Compile(d.Regex); err != nil {
			return Normalizer{}, &DefinitionError{Name: name, Field: "regex", Message: "not a valid regular expression (Go RE2 syntax): " + err.Error()}
		}
		if re.MatchString("") {
			return Normalizer{}, &DefinitionError{Name: name, Field: "regex", Message: "matches the empty string, so it would rewrite everywhere"}
		}
	}
	var paths []*JSONPath
	for i, s := range d.JSONPaths {
		p, err := ParseJSONPath(s)
		if err != nil {
			return Normalizer{}, &DefinitionError{Name: name, Field: fmt.Sprintf("json_paths[%d]", i), Message: err.Error()}
		}
		paths = append(paths, p)
	}
	headers := map[string]bool{}
	for i, h := range d.Headers {
		if strings.TrimSpace(h) == "" || strings.ContainsAny(h, " :\t") {
			return Normalizer{}, &DefinitionError{Name: name, Field: fmt.Sprintf("headers[%d]", i), Message: fmt.Sprintf("%q is not a header name", h)}
		}
		headers[http.CanonicalHeaderKey(h)] = true
	}
	// rewrite turns one selected value into its replacement.
	rewrite := func(s string, st *State) string {
		if re != nil {
			return outsidePlaceholders(s, func(seg string) string {
				if d.Replace != "" {
					return re.ReplaceAllString(seg, d.Replace)
				}
				return re.ReplaceAllStringFunc(seg, func(m string) string { return st.Placeholder(name, m) })
			})
		}
		if d.Replace != "" {
			return d.Replace
		}
		if isPlaceholder(s) {
			return s
		}
		return st.Placeholder(name, s)
	}
	n := Normalizer{Name: name, kinds: []string{name}, kindsKnown: true, jsonPaths: paths}
	if len(paths) > 0 {
		n.json = func(root *jsonNode, st *State) {
			for _, p := range paths {
				for _, v := range p.selectNodes(root) {
					switch {
					case v.kind == '"':
						v.setString(rewrite(v.str, st))
					case re == nil: // a whole number, literal, object or array
						v.setString(rewrite(string(v.writeCanonical(nil)), st))
					}
				}
			}
		}
	}
	if len(headers) > 0 {
		n.Headers = func(h http.Header, st *State) {
			for _, k := range sortedHeaderKeys(h) {
				if headers[canonicalHeaderKey(k)] {
					for i, v := range h[k] {
						h[k][i] = rewrite(v, st)
					}
				}
			}
		}
	}
	if re != nil && len(paths) == 0 && len(headers) == 0 {
		n.Text = func(s string, st *State) string { return rewrite(s, st) }
	}
	return n, nil
}

// distance is the Levenshtein edit distance.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func sortedHeaderKeys(h http.Header) []string {
	ks := make([]string, 0, len(h))
	for k := range h {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
