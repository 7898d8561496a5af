package cassettes

import (
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cassette-dev/cassette/internal/cfgschema"
)

// One rule for names (ValidName). An adapter's name becomes a git branch
// (cassette-refresh/<adapter>/<date>), a directory and a word of printed
// commands; a scenario's becomes a file path below it, a case id
// (adapter/scenario) and a word of printed commands. A name is therefore
// one or more '/'-separated parts, each of which
//
//   - holds only ASCII letters, digits, '.', '_' and '-' (nothing a shell
//     expands, splits or redirects; nothing a file system or a URL treats
//     apart; no control character),
//   - starts with a letter, a digit or '_' (not '.', which hides a file and
//     which git refuses, nor '-', which reads as a flag),
//   - holds no "..", and does not end in '.' or ".lock" (git
//     check-ref-format refuses them: such an adapter could never be pushed
//     as a refresh branch),
//   - is at most 255 bytes (a file name).
//
// Names cassette creates (adapter names, `record --scenario`, scenarios
// declared in cassette.yaml) are in the strict form of that rule: one part,
// lower case, starting with a letter or a digit (ValidNewName), so that
// they read the same on a file system that ignores case. Names from the
// wild keep their case: go-vcr names a cassette after the test
// (`TestFoo_Bar`, `TestCIBA/Should_throw_error`), so the scenario of a
// loaded file is its path below the adapter directory without the
// extension. A name from the wild that breaks the rule is refused where it
// is loaded (validate, verify) and mapped to one that keeps it where it is
// brought in (`cassette import`, WildName).

// NameRule describes the strict form, for messages.
const NameRule = "lower-case letters, digits, '.', '_' and '-', starting with a letter or digit, with no '..' and not ending in '.' or '.lock'"

// ScenarioRule describes the rule for a scenario from the wild, for messages.
const ScenarioRule = "'/'-separated parts of letters, digits, '.', '_' and '-', each starting with a letter, digit or '_', with no '..' and not ending in '.' or '.lock'"

// ValidName reports whether s follows the one rule for names (above).
func ValidName(s string) bool {
	if s == "" {
		return false
	}
	for part := range strings.SplitSeq(s, "/") {
		if !validPart(part) {
			return false
		}
	}
	return true
}

// validPart is the rule for one '/'-separated part of a name.
func validPart(p string) bool {
	if p == "" || len(p) > 255 || strings.Contains(p, "..") || strings.HasSuffix(p, ".") || strings.HasSuffix(p, ".lock") {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_':
		case (c == '.' || c == '-') && i > 0:
		default:
			return false
		}
	}
	return true
}

// ValidNewName reports whether s is in the strict form of names cassette
// creates (adapter names, record --scenario, declared scenarios): one part
// of the rule, lower case, starting with a letter or a digit.
func ValidNewName(s string) bool {
	return ValidName(s) && !strings.Contains(s, "/") && strings.ToLower(s) == s && s[0] != '_'
}

// StrictName turns any name into the strict form: lower case, runs of other
// characters become one '-', and what git refuses is mended ("a..b" →
// "a.b", "api.lock" → "api-lock"). "" when nothing is left.
func StrictName(s string) string {
	return mendPart(strings.TrimLeft(replaceRuns(strings.ToLower(s), false), "._-"))
}

// WildName maps a name from the wild (a go-vcr file's path below the
// imported directory, without .yaml) to one that follows the rule, keeping
// its case and its '/' parts: in each part, every run of other characters
// becomes one '-', and what git refuses is mended as StrictName does. The
// same name always gives the same result; a name that follows the rule is
// returned as it is. "" when nothing is left.
func WildName(s string) string {
	if ValidName(s) {
		return s
	}
	var parts []string
	for part := range strings.SplitSeq(s, "/") {
		if p := mendPart(strings.TrimLeft(replaceRuns(part, true), ".-")); p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "/")
}

// replaceRuns keeps letters (lower case only, unless upper), digits, '.'
// and '_', and turns every run of other characters into one '-' (none at
// the start).
func replaceRuns(s string, upper bool) string {
	var b strings.Builder
	dash := false
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', upper && r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_':
			b.WriteRune(r)
			dash = false
		default:
			if !dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = true
		}
	}
	return b.String()
}

// mendPart makes a part that holds only allowed characters follow the
// rest of the rule: ".." becomes ".", a trailing '.' or '-' goes, a
// trailing ".lock" becomes "-lock", and it is cut to 255 bytes.
func mendPart(p string) string {
	for strings.Contains(p, "..") {
		p = strings.ReplaceAll(p, "..", ".")
	}
	if len(p) > 255 {
		p = p[:255]
	}
	for {
		switch {
		case strings.HasSuffix(p, ".lock"):
			p = strings.TrimSuffix(p, ".lock") + "-lock"
		case strings.HasSuffix(p, ".") || strings.HasSuffix(p, "-"):
			p = p[:len(p)-1]
		default:
			return p
		}
	}
}

// namesFromPath returns the adapter and scenario of a plain go-vcr file.
// Below root (the project's cassettes directory, "" when unknown) the first
// directory is the adapter and the rest of the path, without the
// extension, is the scenario (`auth0/TestLogin/Should_work.yaml` →
// auth0, TestLogin/Should_work). Elsewhere the parent directory is the
// adapter and the stem the scenario.
func namesFromPath(path, root string) (adapter, scenario string) {
	stem := strings.TrimSuffix(path, filepath.Ext(path))
	if root != "" {
		if rel, err := filepath.Rel(root, stem); err == nil && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
			parts := strings.Split(filepath.ToSlash(rel), "/")
			if len(parts) >= 2 {
				return parts[0], strings.Join(parts[1:], "/")
			}
		}
	}
	dir := filepath.Base(filepath.Dir(path))
	if dir == "." || dir == string(filepath.Separator) {
		dir = ""
	}
	return dir, filepath.Base(stem)
}

// adapterOf returns the adapter c declares by name (nil-safe).
func adapterOf(c *cfgschema.Config, name string) (*cfgschema.Adapter, bool) {
	if c == nil {
		return nil, false
	}
	a, ok := c.Adapters[name]
	return a, ok
}

// relativeName is what a standalone go-vcr file's scenario must be (one
// loaded without a project, e.g. by a proxy replaying a directory of
// them): a relative, slash-separated file name without empty, "." or ".."
// parts or control characters. In a project, scenarios follow ValidName.
func relativeName(s string) bool {
	if s == "" || !utf8.ValidString(s) || strings.HasPrefix(s, "/") || strings.ContainsRune(s, '\\') {
		return false
	}
	for part := range strings.SplitSeq(s, "/") {
		if part == "" || part == "." || part == ".." || len(part) > 255 || strings.IndexFunc(part, unicode.IsControl) >= 0 {
			return false
		}
	}
	return true
}
