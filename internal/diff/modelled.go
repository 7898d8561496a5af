package diff

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/cassette-dev/cassette/internal/normalize"
)

// Mode is how strictly a fake's answer is held against the recording.
type Mode string

// The comparison modes.
const (
	// Exact: the normalized forms must be byte-identical (the default).
	Exact Mode = "exact"
	// Modelled: what the fake leaves out (a JSON object member, a header,
	// a stream record) is not modelled, listed and counted but no drift;
	// everything the fake gives must equal what reality gave, and what the
	// contract requires must be given.
	Modelled Mode = "modelled"
)

// StreamMode is how a JSONL or SSE stream is compared.
type StreamMode string

// The stream modes.
const (
	// Records: record by record (the default).
	Records StreamMode = "records"
	// Content: the declared text fields of consecutive records are
	// concatenated before comparing, so chunk boundaries are no contract
	// (content.go).
	Content StreamMode = "content"
)

// Contract says what a comparison holds a fake to.
type Contract struct {
	Mode Mode // "" is Exact
	// Headers are the contract headers compared; nil compares all headers.
	// They are always required.
	Headers []string
	// Required are what the fake must model even in modelled mode:
	// JSONPaths into a JSON body or stdout ($.id, $.items[*].name; in a
	// stream, into each record; indexes from the end and slices select
	// nothing), "status" (always required) and header names.
	Required []string
	// Stream is how streams are compared; "" is Records.
	Stream StreamMode
	// StreamText are the text fields Content concatenates: preset names
	// (StreamPresets) or JSONPaths of string fields; empty is every preset.
	StreamText []string
}

// Model is what a fake models of what reality returned: of the JSON object
// members in the recorded bodies, stdout and stream records (at any depth,
// each occurrence once), how many the fake gave, and which it left out.
type Model struct {
	Fields          int          `json:"fields"`
	Modelled        int          `json:"modelled"`
	RequiredMissing int          `json:"required_missing"`
	Unmodelled      []Unmodelled `json:"unmodelled,omitempty"`
}

// Percent is the share of fields modelled, 100 when reality returned none.
func (m *Model) Percent() float64 {
	if m == nil || m.Fields == 0 {
		return 100
	}
	return 100 * float64(m.Modelled) / float64(m.Fields)
}

// Add adds o's figures and list to m.
func (m *Model) Add(o *Model) {
	if o == nil {
		return
	}
	m.Fields += o.Fields
	m.Modelled += o.Modelled
	m.RequiredMissing += o.RequiredMissing
	m.Unmodelled = append(m.Unmodelled, o.Unmodelled...)
}

// Unmodelled is one thing reality returned that the fake left out: a JSON
// member (Path) with the fields under it counted in Fields, a header or a
// stream record.
type Unmodelled struct {
	Field  string `json:"field"`
	Path   string `json:"path,omitempty"`
	Line   int    `json:"line,omitempty"`
	Want   string `json:"want,omitempty"`
	Fields int    `json:"fields,omitempty"` // fields left out with it (itself and those under it)
}

// RequiredHint is the Hint of a drift that is a required field left out.
const RequiredHint = "the fake leaves out a field the contract requires (required: in cassette.yaml, or status, or a contract header)"

// ParseRequired splits required entries into JSONPaths and header names
// ("status" is always required and dropped). A JSONPath that does not
// parse is an error naming it.
func ParseRequired(entries []string) (paths []*normalize.JSONPath, headers []string, err error) {
	for _, e := range entries {
		switch {
		case e == "status":
		case strings.HasPrefix(e, "$"):
			p, perr := normalize.ParseJSONPath(e)
			if perr != nil {
				return nil, nil, fmt.Errorf("required: %w", perr)
			}
			paths = append(paths, p)
		default:
			headers = append(headers, http.CanonicalHeaderKey(e))
		}
	}
	return paths, headers, nil
}

// scope is how jsonChanges judges what got leaves out, and where it counts
// the fields: a nil scope is exact mode, counting nothing.
type scope struct {
	modelled bool
	required []*normalize.JSONPath
	skip     int // leading steps that are not the document's (a stream's record index)
	model    Model
	missing  []change // members left out that are no drift
}

// left is how many things the scope found left out so far.
func (s *scope) left() int {
	if s == nil {
		return 0
	}
	return len(s.missing) + len(s.model.Unmodelled)
}

// present counts a member of want that got has.
func (s *scope) present() {
	if s != nil {
		s.model.Fields++
		s.model.Modelled++
	}
}

// absent counts the members inside v (an array item got does not have).
func (s *scope) absent(v any) {
	if s != nil {
		s.model.Fields += members(v)
	}
}

// leftOut judges a member of want (at, value v) that got leaves out: in
// exact mode a removal; in modelled mode not modelled unless a required
// path is at or under it, when it is a removal that says so. It reports
// whether the change is a drift.
func (s *scope) leftOut(at []step, v any) (change, bool) {
	ch := change{at: at, kind: Removed, class: ClassSchema, want: compact(v)}
	if s == nil {
		return ch, true
	}
	n := 1 + members(v)
	s.model.Fields += n
	if !s.modelled {
		return ch, true
	}
	if !isEmpty(v) && s.requires(at, v) {
		// An empty value left out is what omitempty writes: a client
		// reads the same zero value, so even a required one is modelled.
		s.model.RequiredMissing++
		ch.hint = RequiredHint
		return ch, true
	}
	ch.got = fmt.Sprint(n)
	s.missing = append(s.missing, ch)
	return ch, false
}

// requires reports whether a required path selects at or a member under it.
func (s *scope) requires(at []step, v any) bool {
	if len(s.required) == 0 {
		return false
	}
	var hit bool
	var walk func(at []step, v any)
	walk = func(at []step, v any) {
		if hit {
			return
		}
		ps := pathSteps(at[min(s.skip, len(at)):])
		for _, r := range s.required {
			if r.Matches(ps) {
				hit = true
				return
			}
		}
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				walk(append(clone(at), step{key: k, isKey: true}), c)
			}
		case []any:
			for i, c := range x {
				walk(append(clone(at), step{index: i}), c)
			}
		}
	}
	walk(at, v)
	return hit
}

// count counts the members of a want value that got holds the same.
func (s *scope) count(v any) {
	if s != nil {
		n := members(v)
		s.model.Fields += n
		s.model.Modelled += n
	}
}

// pathSteps converts steps to normalize's, array lengths unknown (0).
func pathSteps(at []step) []normalize.PathStep {
	out := make([]normalize.PathStep, len(at))
	for i, s := range at {
		out[i] = normalize.PathStep{Name: s.key, IsName: s.isKey, Index: s.index}
	}
	return out
}

// isEmpty reports whether v is a value omitempty leaves out: null, [],
// {}, "", 0 or false.
func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	case string:
		return x == ""
	case bool:
		return !x
	case json.Number:
		f, err := x.Float64()
		return err == nil && f == 0
	}
	return false
}

// members counts the object members inside v, at any depth.
func members(v any) int {
	n := 0
	switch x := v.(type) {
	case map[string]any:
		for _, c := range x {
			n += 1 + members(c)
		}
	case []any:
		for _, c := range x {
			n += members(c)
		}
	}
	return n
}
