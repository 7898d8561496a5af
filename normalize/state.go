package normalize

import (
	"regexp"
	"strconv"
	"strings"
)

// State is the identity state of one cassette: it numbers volatile values of
// each kind in order of first appearance, so that within a cassette the same
// value always gets the same placeholder. Use one State per cassette, shared
// by all its interactions, request and response, in interaction order.
// A State is not safe for concurrent use.
type State struct {
	ids    map[string]map[string]int // kind → value → number
	count  map[string]int            // kind → numbers given
	shaPre map[string][]string       // first 7 hex digits → SHA values seen
}

// NewState returns an empty identity state.
func NewState() *State {
	return &State{ids: map[string]map[string]int{}, count: map[string]int{}, shaPre: map[string][]string{}}
}

// Number returns the number of value among the values of kind, assigning
// the next one (from 1) to a value not seen before.
func (s *State) Number(kind, value string) int {
	m := s.ids[kind]
	if m == nil {
		m = map[string]int{}
		s.ids[kind] = m
	}
	if n, ok := m[value]; ok {
		return n
	}
	s.count[kind]++
	n := s.count[kind]
	m[value] = n
	return n
}

// Placeholder returns "<kind:N>" for value.
func (s *State) Placeholder(kind, value string) string {
	return "<" + kind + ":" + strconv.Itoa(s.Number(kind, value)) + ">"
}

// sha numbers a SHA so that an abbreviation and the full value it abbreviates
// share a number, whichever comes first.
func (s *State) sha(v string) int {
	v = strings.ToLower(v)
	m := s.ids["sha"]
	if m == nil {
		m = map[string]int{}
		s.ids["sha"] = m
	}
	if n, ok := m[v]; ok {
		return n
	}
	pre := v[:7]
	for _, known := range s.shaPre[pre] {
		if strings.HasPrefix(known, v) || strings.HasPrefix(v, known) {
			n := m[known]
			m[v] = n
			return n
		}
	}
	n := s.Number("sha", v)
	s.shaPre[pre] = append(s.shaPre[pre], v)
	return n
}

var placeholderRE = regexp.MustCompile(`^<[A-Za-z0-9_.:-]+>$`)

// isPlaceholder reports whether s is already a placeholder, so that
// normalizing twice changes nothing.
func isPlaceholder(s string) bool {
	return len(s) > 2 && s[0] == '<' && placeholderRE.MatchString(s)
}

// placeholderSpanRE finds the placeholders this package writes.
var placeholderSpanRE = regexp.MustCompile(`<[A-Za-z0-9_.-]+:\d+(?::short)?>|<(?:ISO8601|RFC1123|ANSIC|unix|volatile|cwd)>`)

// outsidePlaceholders applies fn to the text between placeholders only, so
// that a project regex never rewrites a placeholder an earlier normalizer
// wrote (which would break N(N(x)) == N(x)).
func outsidePlaceholders(s string, fn func(string) string) string {
	if !strings.Contains(s, "<") {
		return fn(s)
	}
	locs := placeholderSpanRE.FindAllStringIndex(s, -1)
	if locs == nil {
		return fn(s)
	}
	var b strings.Builder
	last := 0
	for _, l := range locs {
		b.WriteString(fn(s[last:l[0]]))
		b.WriteString(s[l[0]:l[1]])
		last = l[1]
	}
	b.WriteString(fn(s[last:]))
	return b.String()
}
