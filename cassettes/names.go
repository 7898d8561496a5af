package cassettes

import (
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Two rules for names.
//
// Names cassette creates (`record --scenario`, scenarios declared in
// cassette.yaml, adapter names) are in the strict form: lower-case letters,
// digits, '.', '_' and '-'. They are safe in every file system, URL and shell
// and read the same everywhere.
//
// Names of files from the wild are taken as they are: go-vcr names a
// cassette after the test (`TestFoo_Bar`, `Scenario_Get_X_returns_OK-e0bf`,
// `TestCIBA/Should_throw_error`), so the scenario of a loaded file is its
// path below the adapter directory without the extension, case kept, with
// '/' between directories. Any name that is a valid relative file name is a
// valid loaded scenario.

// NameRule describes the strict form, for messages.
const NameRule = "lower-case letters, digits, '.', '_' and '-', starting with a letter or digit"

// ValidNewName reports whether s is in the strict form of names cassette
// creates (record --scenario, adapter names).
func ValidNewName(s string) bool { return nameRe.MatchString(s) }

// StrictName turns any name into the strict form: lower case, runs of other
// characters become one '-'. "" when nothing is left.
func StrictName(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '_':
			b.WriteRune(r)
			dash = false
		default:
			if !dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = true
		}
	}
	return strings.TrimLeft(strings.TrimRight(b.String(), "-"), "._-")
}

// ValidLoadedScenario reports whether s is a valid scenario of a file
// from the wild (validLoadedScenario): what an import may keep as it is.
func ValidLoadedScenario(s string) bool { return validLoadedScenario(s) }

// validLoadedScenario is the rule for a scenario taken from a file (or
// written by `cassette import`): a relative, slash-separated file name
// without empty, "." or ".." parts, control characters or backslashes.
func validLoadedScenario(s string) bool {
	if s == "" || !utf8.ValidString(s) || strings.HasPrefix(s, "/") || strings.ContainsRune(s, '\\') {
		return false
	}
	for _, part := range strings.Split(s, "/") {
		if part == "" || part == "." || part == ".." || len(part) > 255 {
			return false
		}
		for _, r := range part {
			if unicode.IsControl(r) {
				return false
			}
		}
	}
	return true
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

// adapter returns the declared adapter name (nil-safe).
func (c *Config) adapter(name string) (*Adapter, bool) {
	if c == nil {
		return nil, false
	}
	a, ok := c.Adapters[name]
	return a, ok
}
