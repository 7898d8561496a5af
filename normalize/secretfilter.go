package normalize

import (
	"regexp/syntax"
	"strings"

	"github.com/cassette-dev/cassette/secrets"
)

// secretLiterals are literal prefixes one of which every match of every
// secrets.Pattern starts with ("gh", "AKIA", "sk-ant-", …), derived from the
// patterns themselves so that nothing here restates a key format. Nil when
// some pattern has no such prefix: then every line is scanned.
var secretLiterals = func() []string {
	var out []string
	for _, p := range secrets.Patterns {
		re, err := syntax.Parse(p.Re.String(), syntax.Perl)
		if err != nil {
			return nil
		}
		lits, _ := prefixSet(re)
		if len(lits) == 0 {
			return nil
		}
		for _, l := range lits {
			if len(l) < 2 {
				return nil // too weak to filter anything
			}
		}
		out = append(out, lits...)
	}
	return out
}()

const (
	maxPrefixLen = 4  // bytes of each prefix worth knowing
	maxPrefixSet = 64 // beyond this many alternatives, give up
)

// prefixSet returns a set of literal strings one of which every match of re
// starts with, and whether a match is exactly one of them (so that what
// follows in a concatenation can extend them). An empty set means unknown.
func prefixSet(re *syntax.Regexp) (set []string, exact bool) {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpWordBoundary, syntax.OpBeginLine, syntax.OpBeginText:
		return []string{""}, true
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil, false
		}
		return []string{string(re.Rune)}, true
	case syntax.OpCharClass:
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if len(out) >= maxPrefixSet {
					return nil, false
				}
				out = append(out, string(r))
			}
		}
		return out, true
	case syntax.OpCapture:
		return prefixSet(re.Sub[0])
	case syntax.OpPlus, syntax.OpRepeat:
		if re.Op == syntax.OpRepeat && re.Min < 1 {
			return nil, false
		}
		sub, _ := prefixSet(re.Sub[0])
		return sub, false
	case syntax.OpAlternate:
		var out []string
		all := true
		for _, sub := range re.Sub {
			l, ex := prefixSet(sub)
			if len(l) == 0 {
				return nil, false
			}
			out = append(out, l...)
			all = all && ex
		}
		if len(out) > maxPrefixSet {
			return nil, false
		}
		return out, all
	case syntax.OpConcat:
		cur := []string{""}
		for _, sub := range re.Sub {
			l, ex := prefixSet(sub)
			if len(l) == 0 {
				return cur, false
			}
			var next []string
			for _, a := range cur {
				for _, b := range l {
					next = append(next, a+b)
				}
			}
			if len(next) > maxPrefixSet {
				return cur, false
			}
			cur = next
			if !ex || minLen(cur) >= maxPrefixLen {
				return cur, false
			}
		}
		return cur, true
	}
	return nil, false
}

func minLen(ss []string) int {
	m := -1
	for _, s := range ss {
		if m < 0 || len(s) < m {
			m = len(s)
		}
	}
	return m
}

// mayHoldSecret reports whether s might contain a known-format credential.
func mayHoldSecret(s string) bool {
	if secretLiterals == nil {
		return true
	}
	for _, l := range secretLiterals {
		if strings.Contains(s, l) {
			return true
		}
	}
	return false
}
