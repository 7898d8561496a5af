package normalize

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// paths.tmp: the working directory and directories under temporary roots.

// DefaultTempDirs returns the usual roots of temporary directories: the
// process's own, /tmp, /var/tmp and macOS's per-user folders.
func DefaultTempDirs() []string {
	dirs := []string{filepath.ToSlash(os.TempDir()), "/tmp", "/var/tmp", "/private/tmp"}
	sort.Strings(dirs)
	out := dirs[:0]
	for i, d := range dirs {
		if i == 0 || d != dirs[i-1] {
			out = append(out, d)
		}
	}
	return out
}

var macTempRE = lazyRE(`(?:/private)?/var/folders/[A-Za-z0-9_+-]{2}/[A-Za-z0-9_+-]+/T/[^/\s"'\\:<>]+`)

// tmpMatcher matches a directory under one of the temporary roots, or is
// nil without roots.
func tmpMatcher(tempDirs []string) *candidateMatcher {
	roots := make([]string, 0, len(tempDirs))
	var prefixes []string // every match starts with one of them
	longest := 0
	for _, d := range tempDirs {
		if d = strings.TrimRight(filepath.ToSlash(d), "/"); d != "" {
			roots = append(roots, regexp.QuoteMeta(d))
			prefixes = append(prefixes, d+"/")
			longest = max(longest, len(d))
		}
	}
	if len(roots) == 0 {
		return nil
	}
	sort.Slice(roots, func(i, j int) bool { return len(roots[i]) > len(roots[j]) })
	tmpRE := regexp.MustCompile(`(?:` + strings.Join(roots, "|") + `)/[^/\s"'\\:<>]+`)
	// After the root, a match holds no white space: no newline.
	re := func() *regexp.Regexp { return tmpRE }
	return &candidateMatcher{re, prefixCandidate(prefixes), lineAt(re, longest)}
}

func tmpPaths(o Options) Normalizer {
	wd := strings.TrimRight(filepath.ToSlash(o.WorkDir), "/")
	tmp := tmpMatcher(o.TempDirs)
	triggers := []string{"/var/folders/"}
	if wd != "" {
		triggers = append(triggers, wd)
	}
	for _, d := range o.TempDirs {
		if d = strings.TrimRight(filepath.ToSlash(d), "/"); d != "" {
			triggers = append(triggers, d+"/")
		}
	}
	anyAt := prefixCandidate(triggers) // hasAny(triggers...) in one scan
	trigger := func(s string) bool { return anyAt(s, 0) >= 0 }
	needs := fSlash // every trigger has a '/', unless the work directory has none
	for _, t := range triggers {
		if !strings.Contains(t, "/") {
			needs = 0
		}
	}
	return Normalizer{Text: func(s string, st *State) string {
		if !trigger(s) {
			return s
		}
		if wd != "" {
			s = replacePath(s, wd, "<cwd>")
		}
		repl := func(m string) string { return st.Placeholder("tmp", m) }
		if tmp != nil {
			s = replaceAll(tmp, s, repl)
		}
		return replaceAll(macTempMatcher, s, repl)
	}, kinds: []string{"tmp"}, kindsKnown: true, settles: true, needs: needs}
}

// replacePath replaces dir where it is a whole path prefix (not /work/main
// inside /work/mainline).
func replacePath(s, dir, repl string) string {
	if !strings.Contains(s, dir) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, dir)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(dir)
		if end < len(s) && isPathChar(s[end]) {
			b.WriteString(s[:end])
		} else {
			b.WriteString(s[:i])
			b.WriteString(repl)
		}
		s = s[end:]
	}
}

func isPathChar(c byte) bool {
	return c == '.' || c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
