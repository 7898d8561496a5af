package learn

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/cassette-dev/cassette/internal/normalize"
)

// Class is a kind of volatile value.
type Class struct {
	Name    string // iso8601, uuid, sha, counter, …
	Builtin string // the built-in normalizer that covers it, or ""
	// Placeholder is what a project normalizer writes for it.
	Placeholder string
	mask        func() *regexp.Regexp // matches the class inside a value (compiled when first used: every command imports learn)
	whole       bool                  // the class is the whole value (a counter), not a part of it
	check       func(string) bool
}

// classes are tried in this order; masks are applied in it.
var classes = []Class{
	{Name: "iso8601", Builtin: "timestamps.ISO8601", Placeholder: "<ISO8601>", mask: lazy(normalize.BuiltinExpr("timestamps.ISO8601"))},
	{Name: "rfc1123", Builtin: "timestamps.RFC1123", Placeholder: "<RFC1123>", mask: lazy(normalize.BuiltinExpr("timestamps.RFC1123"))},
	{Name: "ansic", Builtin: "timestamps.ANSIC", Placeholder: "<ANSIC>", mask: lazy(normalize.BuiltinExpr("timestamps.ANSIC"))},
	{Name: "uuid", Builtin: "uuid", Placeholder: "<uuid>", mask: lazy(`\b` + normalize.BuiltinExpr("uuid") + `\b`)},
	{Name: "sha", Builtin: "sha:full", Placeholder: "<sha>", mask: lazy(`\b(?:[0-9a-f]{64}|[0-9a-f]{40})\b`)},
	{Name: "unix", Builtin: "timestamps.unix", Placeholder: "<unix>", mask: lazy(`\b1\d{9}(?:\d{3})?(?:\.\d+)?\b`)},
	{Name: "port", Builtin: "ports", Placeholder: "<port>", mask: lazy(normalize.BuiltinExpr("ports"))},
	{Name: "tmp-path", Builtin: "paths.tmp", Placeholder: "<tmp>", mask: lazy(`(?:/private)?/(?:tmp|var/tmp|var/folders)/[^\s"',;:]*`)},
	{Name: "duration", Placeholder: "<duration>", mask: lazy(`\b(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+\b`)},
	// A random id after a lowercase prefix, as APIs make them (msg_…,
	// toolu_…, cus_…, req_…): ten letters and digits at least, holding both.
	{Name: "prefixed-id", Placeholder: "<id>", mask: lazy(`\b[a-z]{2,12}_[0-9A-Za-z]{10,}\b`), check: func(s string) bool {
		tail := s[strings.IndexByte(s, '_')+1:]
		return strings.ContainsAny(tail, "0123456789") && strings.Trim(tail, "0123456789") != ""
	}},
	{Name: "short-sha", Builtin: "sha:short", Placeholder: "<sha>", mask: lazy(`\b[0-9a-f]{7,12}\b`), check: func(s string) bool {
		return strings.ContainsAny(s, "0123456789") && strings.ContainsAny(s, "abcdef")
	}},
	{Name: "counter", Placeholder: "<n>", whole: true, mask: lazy(`^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$`)},
	{Name: "request-id", Placeholder: "<id>", whole: true, mask: lazy(`^[A-Za-z0-9][A-Za-z0-9_+/=.:-]{5,}$`)},
}

// masked replaces what class c matches in s with its placeholder.
func (c Class) masked(s string) string {
	if c.whole {
		if c.mask().MatchString(s) {
			return c.Placeholder
		}
		return s
	}
	return c.mask().ReplaceAllStringFunc(s, func(m string) string {
		if c.check != nil && !c.check(m) {
			return m
		}
		return c.Placeholder
	})
}

// matches reports whether c finds something in s.
func (c Class) matches(s string) bool { return c.masked(s) != s }

// Cover returns the smallest list of classes whose masks make values equal
// (in class order), or nil when none does. Every value must hold each class
// it returns, except for the unix and counter classes (a number has no
// fixed length).
func Cover(values []string) []Class {
	var cand []Class
	for _, c := range classes {
		if anyMatch(c, values) {
			cand = append(cand, c)
		}
	}
	if !allEqual(maskAll(cand, values)) {
		return nil
	}
	// Drop what is not needed, most general first, so that a UUID stays a
	// UUID rather than a request id.
	for i := len(cand) - 1; i >= 0; i-- {
		rest := append(append([]Class(nil), cand[:i]...), cand[i+1:]...)
		if len(rest) > 0 && allEqual(maskAll(rest, values)) {
			cand = rest
		}
	}
	return cand
}

func anyMatch(c Class, values []string) bool {
	for _, v := range values {
		if c.matches(v) {
			return true
		}
	}
	return false
}

func maskAll(cs []Class, values []string) []string {
	out := make([]string, len(values))
	for i, v := range values {
		for _, c := range cs {
			v = c.masked(v)
		}
		out[i] = v
	}
	return out
}

func allEqual(vs []string) bool {
	for _, v := range vs[1:] {
		if v != vs[0] {
			return false
		}
	}
	return true
}

// Classify names the class of two values that differ, when both are of
// the same volatile class as a whole (two UUIDs, two timestamps, two
// SHAs, two random ids of one prefix), with the built-in that covers it
// ("" when none does). It is what
// verify's drift lines use to say that a drift looks volatile.
func Classify(a, b string) (class, builtin string) {
	if a == b || a == "" || b == "" {
		return "", ""
	}
	for _, c := range classes {
		if c.whole || c.Name == "unix" || c.Name == "duration" {
			continue // a number or a word is not volatile by its look alone
		}
		if c.Placeholder == c.masked(a) && c.Placeholder == c.masked(b) && samePrefix(c, a, b) {
			return c.Name, c.Builtin
		}
	}
	return "", ""
}

// samePrefix reports whether two prefixed ids have one prefix (msg_ and
// msg_, not msg_ and toolu_); other classes have none.
func samePrefix(c Class, a, b string) bool {
	if c.Name != "prefixed-id" {
		return true
	}
	return a[:strings.IndexByte(a, '_')] == b[:strings.IndexByte(b, '_')]
}

// shape is a regular expression for a token whose values are vs: digits,
// hex, a word, or anything up to a blank.
func shape(vs []string) string {
	all := func(re string) bool {
		r := regexp.MustCompile(`^(?:` + re + `)$`)
		for _, v := range vs {
			if !r.MatchString(v) {
				return false
			}
		}
		return true
	}
	for _, re := range []string{`\d+`, `\d+(?:\.\d+)?`, `[0-9a-f]+`, `[A-Za-z0-9_-]+`, `/\S*`} {
		if all(re) {
			return re
		}
	}
	return `\S+`
}

// isNumber reports whether s is a JSON number's text.
func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// lazy is expr compiled when first asked for.
func lazy(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
