package redact

import (
	"regexp/syntax"
	"strings"
	"sync"
	"unicode/utf8"
)

// What the scan needs to know of an expression to run it only where it
// can match: the expression without what only moves where a match starts,
// whether every match starts with a keyword, and how long a match can be.
// It is read from the parsed expression, so that it holds for every rule,
// gitleaks' and ours alike.

// shape is what analyze finds.
type shape struct {
	expr      func() string // the expression, its leading optional part dropped (printed when first asked for: printing is slow)
	anchored  bool          // every match starts with one of the keywords
	wordStart bool          // the expression begins with \b
	maxLen    int           // the longest match in bytes; -1 when unbounded
}

// maxStarts bounds the literal prefixes analyze enumerates.
const maxStarts = 64

// analyze parses expr and returns its shape. A leading part that may match
// nothing and holds no capture group (gitleaks' `[\w.-]{0,50}?` before a
// keyword) is dropped when the secret is a capture group: it changes where
// a match starts, never the secret. (When the whole match is the secret,
// as in `(?:https?://)?hooks.slack.com/…`, the part is kept.)
func analyze(expr string, keywords []string) (shape, error) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return shape{}, err
	}
	s := shape{expr: func() string { return expr }}
	if re.Op == syntax.OpConcat && hasCapture(re) {
		subs := re.Sub
		for len(subs) > 1 && mayBeEmpty(subs[0]) && !hasCapture(subs[0]) {
			subs = subs[1:]
		}
		if len(subs) < len(re.Sub) {
			re.Sub = subs
			s.expr = sync.OnceValue(re.String)
		}
	}
	s.maxLen = maxLen(re)
	first := re
	for first.Op == syntax.OpCapture || (first.Op == syntax.OpConcat && len(first.Sub) > 0) {
		first = first.Sub[0]
	}
	s.wordStart = first.Op == syntax.OpWordBoundary
	ps, ok := starts(re)
	s.anchored = ok && len(keywords) > 0
	for _, p := range ps {
		if !s.anchored {
			break
		}
		s.anchored = hasKeywordPrefix(p.s, keywords)
	}
	return s, nil
}

func hasKeywordPrefix(s string, keywords []string) bool {
	for _, k := range keywords {
		if len(s) >= len(k) && strings.EqualFold(s[:len(k)], k) {
			return true
		}
	}
	return false
}

// mayBeEmpty reports whether re may match the empty string by repetition
// (x?, x*, x{0,n}).
func mayBeEmpty(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpQuest, syntax.OpStar:
		return true
	case syntax.OpRepeat:
		return re.Min == 0
	}
	return false
}

func hasCapture(re *syntax.Regexp) bool {
	if re.Op == syntax.OpCapture {
		return true
	}
	for _, s := range re.Sub {
		if hasCapture(s) {
			return true
		}
	}
	return false
}

// zeroWidth reports whether re consumes nothing (an assertion).
func zeroWidth(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpBeginLine, syntax.OpBeginText, syntax.OpEmptyMatch:
		return true
	}
	return false
}

// prefix is a literal a match may start with; open when the element after
// it may extend it.
type prefix struct {
	s    string
	open bool
}

// starts returns the literals a match of re may start with (each as far as
// it is fixed), or ok false when there are too many or a match may start
// with something else.
func starts(re *syntax.Regexp) ([]prefix, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []prefix{{string(re.Rune), true}}, true
	case syntax.OpCapture:
		return starts(re.Sub[0])
	case syntax.OpCharClass:
		var out []prefix
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if len(out) == 8 {
					return []prefix{{"", false}}, true // a wide class: nothing fixed
				}
				out = append(out, prefix{string(r), true})
			}
		}
		return out, true
	case syntax.OpAlternate:
		var out []prefix
		for _, sub := range re.Sub {
			ps, ok := starts(sub)
			if !ok || len(out)+len(ps) > maxStarts {
				return nil, false
			}
			out = append(out, ps...)
		}
		return out, true
	case syntax.OpConcat:
		return startsConcat(re.Sub)
	case syntax.OpQuest:
		ps, ok := starts(re.Sub[0])
		return append(ps, prefix{"", true}), ok
	case syntax.OpPlus:
		ps, ok := starts(re.Sub[0])
		return closed(ps), ok
	case syntax.OpRepeat:
		if re.Min > 0 {
			ps, ok := starts(re.Sub[0])
			return closed(ps), ok
		}
	}
	if zeroWidth(re) {
		return []prefix{{"", true}}, true
	}
	return []prefix{{"", false}}, true
}

func closed(ps []prefix) []prefix {
	out := make([]prefix, len(ps))
	for i, p := range ps {
		out[i] = prefix{p.s, false}
	}
	return out
}

// startsConcat is starts for a sequence: each element extends the prefixes
// the one before left open.
func startsConcat(subs []*syntax.Regexp) ([]prefix, bool) {
	cur := []prefix{{"", true}}
	for _, sub := range subs {
		if !anyOpen(cur) {
			break
		}
		ps, ok := starts(sub)
		if !ok {
			return nil, false
		}
		var next []prefix
		for _, c := range cur {
			if !c.open {
				next = append(next, c)
				continue
			}
			for _, p := range ps {
				next = append(next, prefix{c.s + p.s, p.open})
			}
		}
		if len(next) > maxStarts {
			return nil, false
		}
		cur = next
	}
	return cur, true
}

func anyOpen(ps []prefix) bool {
	for _, p := range ps {
		if p.open {
			return true
		}
	}
	return false
}

// maxLen returns the longest match of re in bytes, or -1 when there is no
// bound.
func maxLen(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 {
				n += utf8.UTFMax // a folded letter may be longer (K, U+212A)
			} else {
				n += utf8.RuneLen(r)
			}
		}
		return n
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return 0
		}
		if n := utf8.RuneLen(re.Rune[len(re.Rune)-1]); n > 0 {
			return n
		}
		return utf8.UTFMax
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return utf8.UTFMax
	case syntax.OpCapture, syntax.OpQuest:
		return maxLen(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		if maxLen(re.Sub[0]) == 0 {
			return 0
		}
		return -1
	case syntax.OpRepeat:
		n := maxLen(re.Sub[0])
		if n == 0 {
			return 0
		}
		if n < 0 || re.Max < 0 {
			return -1
		}
		return n * re.Max
	case syntax.OpConcat:
		total := 0
		for _, s := range re.Sub {
			n := maxLen(s)
			if n < 0 {
				return -1
			}
			total += n
		}
		return total
	case syntax.OpAlternate:
		most := 0
		for _, s := range re.Sub {
			n := maxLen(s)
			if n < 0 {
				return -1
			}
			most = max(most, n)
		}
		return most
	}
	return 0 // assertions, empty match, no match
}
