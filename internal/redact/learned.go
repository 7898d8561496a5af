package redact

import (
	"bytes"
	"strings"
)

// A learned value (one hidden because of its name) is scrubbed only where
// it stands as a whole value: a JSON string value, a header, query or form
// value, a token bounded by non-word characters, never inside a longer
// word ("client_secret_post", "secrets") and never as a JSON object key.
// A value learned from a login ({"password":"hunter22x"}) is a credential
// where it stands alone; glued to other letters it is the letters of
// another word, and replacing it there changes data that is not secret
// (an imported corpus whose keys were renamed no longer matched on
// replay). A declared value (a credential variable) is scrubbed wherever
// it appears, whole or not: it was named as secret, and is a real key.
//
// A value that is only a dictionary word ("secret", "password",
// "changeme": letters of one case, or digits alone, shorter than
// weakMaxLen, or one of commonPasswords) is replaced where it stood as a
// credential, by its name, but not learned: scrubbed from the rest of a
// session it would rewrite every word it is.

// weakMaxLen is the length from which a value of one character class is
// learned all the same: a run of 16 letters is no dictionary word.
const weakMaxLen = 16

// commonPasswords are placeholder passwords that mix character classes
// and are still words of documentation and test fixtures.
var commonPasswords = []string{"password1", "password123", "passw0rd", "p@ssw0rd", "changeme1", "changeme123", "letmein1", "admin123", "secret123", "qwerty123"}

// weak reports whether v is a dictionary word rather than a credential
// worth scrubbing from everything else: one character class (lower-case
// letters, upper-case letters, or digits) and shorter than weakMaxLen, or
// a common placeholder password.
func weak(v string) bool {
	if len(v) < weakMaxLen {
		lower, upper, digit := true, true, true
		for i := 0; i < len(v); i++ {
			c := v[i]
			lower = lower && c >= 'a' && c <= 'z'
			upper = upper && c >= 'A' && c <= 'Z'
			digit = digit && c >= '0' && c <= '9'
		}
		if lower || upper || digit {
			return true
		}
	}
	for _, p := range commonPasswords {
		if strings.EqualFold(v, p) {
			return true
		}
	}
	return false
}

// wholeAt reports whether the n bytes of data at i stand as a whole value:
// neither edge glued to a word character (isWordByte: ASCII, as \b) (an edge that is itself not a
// word character needs no boundary), and not a JSON object key ("v": or,
// inside a quoted string, \"v\":).
func wholeAt(data []byte, i, n int) bool {
	if isWordByte(data[i]) && i > 0 && isWordByte(data[i-1]) && !escapeBefore(data, i) {
		return false
	}
	end := i + n
	if isWordByte(data[end-1]) && end < len(data) && isWordByte(data[end]) {
		return false
	}
	return !jsonKeyAt(data, i, end)
}

// escapeBefore reports whether the bytes before data[i] end an escape (a
// JSON or YAML one: \n, \t, \u0026; a percent-encoded byte: %20), whose
// last character is a word character but which stands for a separator:
// a password echoed in a JSON string after "\r\n\r\n" stands whole.
func escapeBefore(data []byte, i int) bool {
	if i >= 2 && data[i-2] == '\\' && strings.IndexByte("nrtbf", data[i-1]) >= 0 {
		return i < 3 || data[i-3] != '\\'
	}
	if i >= 6 && data[i-6] == '\\' && data[i-5] == 'u' && isHex(data[i-4]) && isHex(data[i-3]) && isHex(data[i-2]) && isHex(data[i-1]) {
		return true
	}
	return i >= 3 && data[i-3] == '%' && isHex(data[i-2]) && isHex(data[i-1])
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// jsonKeyAt reports whether data[i:end] is the whole text of a JSON object
// key: a quote before it, a quote after it (each perhaps escaped), then a
// colon.
func jsonKeyAt(data []byte, i, end int) bool {
	if i == 0 || data[i-1] != '"' {
		return false
	}
	j := end
	if j < len(data) && data[j] == '\\' {
		j++
	}
	if j >= len(data) || data[j] != '"' {
		return false
	}
	j = skipSpace(data, j+1)
	return j < len(data) && data[j] == ':'
}

// wholeIndex returns the offset of the first occurrence of f in data at
// or after from that stands whole (wholeAt), or -1.
func wholeIndex(data, f []byte, from int) int {
	for from <= len(data)-len(f) {
		k := bytes.Index(data[from:], f)
		if k < 0 {
			return -1
		}
		if wholeAt(data, from+k, len(f)) {
			return from + k
		}
		from += k + 1
	}
	return -1
}

// replaceWhole replaces every whole occurrence of f in data with repl.
func replaceWhole(data, f, repl []byte) []byte {
	i := wholeIndex(data, f, 0)
	if i < 0 {
		return data
	}
	out := make([]byte, 0, len(data))
	prev := 0
	for ; i >= 0; i = wholeIndex(data, f, prev) {
		out = append(out, data[prev:i]...)
		out = append(out, repl...)
		prev = i + len(f)
	}
	return append(out, data[prev:]...)
}

// learnedName reports whether a name of Values (or Scan's declared map)
// is a learned value's: those are matched whole only.
func learnedName(name string) bool { return strings.HasPrefix(name, Learned) }
