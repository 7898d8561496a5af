package redact

import (
	"bytes"
	"maps"
	"slices"
	"sort"
)

// Redacted is what a removed credential is replaced with.
const Redacted = "[REDACTED]"

// minValueLen is the shortest declared value that is scrubbed: shorter values
// ("1", "on") would redact ordinary text and are too weak to be credentials.
const minValueLen = MinValueLen

// MinValueLen is the shortest declared value Redact scrubs (see
// minValueLen), for callers that prefilter what Redact would change.
const MinValueLen = 6

// Finding is one credential found in a text.
type Finding struct {
	Kind   string // a pattern name, or "declared:<VAR>" for a declared variable's value
	Line   int    // 1-based line in the scanned text
	Column int    // 1-based byte column
}

// Scan reports every known-format credential (of a pattern that refuses)
// and every occurrence of the given declared values (name → value) in
// data, in order of position; a value named Learned… (Redactor.Values)
// where it stands whole only, as a Redactor replaces it. The finding never carries the secret itself.
func Scan(data []byte, declared map[string]string) []Finding {
	type hit struct {
		off  int
		kind string
	}
	var hits []hit
	for _, sp := range rules().find(data, true) {
		hits = append(hits, hit{sp.start, sp.p.Name})
	}
	for _, name := range slices.Sorted(maps.Keys(declared)) {
		v := declared[name]
		if len(v) < minValueLen {
			continue
		}
		whole := learnedName(name) // a learned value counts where it stands whole (learned.go)
		for off := 0; ; {
			i := -1
			if k := bytes.Index(data[off:], []byte(v)); k >= 0 && !whole {
				i = off + k
			} else if k >= 0 {
				i = wholeIndex(data, []byte(v), off+k)
			}
			if i < 0 {
				break
			}
			hits = append(hits, hit{i, "declared:" + name})
			off = i + len(v)
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].off < hits[j].off })
	out := make([]Finding, 0, len(hits))
	for _, h := range hits {
		line := 1 + bytes.Count(data[:h.off], []byte("\n"))
		col := h.off - bytes.LastIndexByte(data[:h.off], '\n')
		out = append(out, Finding{Kind: h.kind, Line: line, Column: col})
	}
	return out
}

// Redact replaces declared values (longest first, so that one value that
// contains another is removed whole) and every known-format credential with
// [REDACTED].
func Redact(data []byte, declared map[string]string) []byte {
	vals := make([]string, 0, len(declared))
	for _, v := range declared {
		if len(v) >= minValueLen {
			vals = append(vals, v)
		}
	}
	sort.Slice(vals, func(i, j int) bool {
		if len(vals[i]) != len(vals[j]) {
			return len(vals[i]) > len(vals[j])
		}
		return vals[i] < vals[j]
	})
	for _, v := range vals {
		data = bytes.ReplaceAll(data, []byte(v), []byte(Redacted))
	}
	return redactFormats(data)
}

// redactFormats replaces every known-format credential (of every pattern,
// those that only redact too) with [REDACTED], until none is left (a
// replacement can bring two halves of a token together).
func redactFormats(data []byte) []byte {
	for range 4 {
		spans := rules().find(data, false)
		if len(spans) == 0 {
			return data
		}
		out := make([]byte, 0, len(data))
		prev := 0
		for _, sp := range spans {
			out = append(out, data[prev:sp.start]...)
			out = append(out, Redacted...)
			prev = sp.end
		}
		data = append(out, data[prev:]...)
	}
	return data
}

// RedactString is Redact for strings.
func RedactString(s string, declared map[string]string) string {
	return string(Redact([]byte(s), declared))
}

// FromEnv returns name → value for the named variables that are set, via
// lookup (os.LookupEnv in production).
func FromEnv(names []string, lookup func(string) (string, bool)) map[string]string {
	out := map[string]string{}
	for _, n := range names {
		if v, ok := lookup(n); ok && v != "" {
			out[n] = v
		}
	}
	return out
}

// ValueBytes is Bytes without the known key formats: every declared and
// learned value, in each of its forms, replaced by [REDACTED]. It is Bytes
// of a text that HoldsKeyword shows holds no format (check's answers of
// the usual shape).
func (r *Redactor) ValueBytes(data []byte) []byte {
	if len(data) == 0 {
		return data
	}
	return r.replaceForms(data, func(string) string { return Redacted })
}
