package outcome

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCommandRunsAsPrinted: a command built by Command, given to a real
// sh, reaches the program as exactly the words it was built from, whatever
// they hold (names from the wild, globs, quotes, variables, newlines).
func TestCommandRunsAsPrinted(t *testing.T) {
	words := []string{
		"plain", "cassettes/github/list-pulls.yaml", "--case=a/b", "",
		"two words", "it's", `"dq"`, "$HOME", "${PORT}", "`id`", "$(id)",
		"a*b", "[x]", "?", "~", "~/x", "a;b", "a&b", "a|b", "a>b", "<in",
		"#comment", "tab\there", "line\nbreak", `back\slash`, "ünï", "(paren)", "!bang",
		"'", "''", "100%", "x=y", "-", "--",
		// control characters, escapes, bidi overrides and bytes that are
		// not UTF-8: printed as visible text, given to the program as is
		"a\nnext: rm -rf x", "esc\x1b[2J\x1b]0;title\x07", "cr\rover", "del\x7f", "c1\u0085", "bidi\u202eevil", "bad\xffutf8",
		"\x1b$(id)'%s\\n", "100%\x1b", "\x1b",
	}
	line := Command(append([]string{"printf", "%s\\0"}, words...)...)
	out, err := exec.Command("sh", "-c", line).Output()
	if err != nil {
		t.Fatalf("sh -c %q: %v", line, err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(got) != len(words) {
		t.Fatalf("sh -c %q gave %d words, want %d: %q", line, len(got), len(words), got)
	}
	if strings.IndexFunc(line, unsafeRune) >= 0 {
		t.Errorf("the printed command holds a control character: %q", line)
	}
	for i := range words {
		if got[i] != words[i] {
			t.Errorf("word %d: sh saw %q, want %q (printed %s)", i, got[i], words[i], Quote(words[i]))
		}
	}
}

// TestCommandLeavesPlainWordsBare: what needs no quotes gets none, so a
// printed command reads as a person would type it.
func TestCommandLeavesPlainWordsBare(t *testing.T) {
	for _, c := range []struct {
		words []string
		want  string
	}{
		{[]string{"cassette", "verify", "--case", "git/log-oneline"}, "cassette verify --case git/log-oneline"},
		{[]string{"cassette", "record", "--adapter", "auth0", "--scenario", "TestLogin/Should work"}, "cassette record --adapter auth0 --scenario 'TestLogin/Should work'"},
		{[]string{"cassette", "verify", "--run", "^git/.*$"}, "cassette verify --run '^git/.*$'"},
		{[]string{"echo", "it's"}, `echo 'it'\''s'`},
		{[]string{"echo", ""}, "echo ''"},
	} {
		if got := Command(c.words...); got != c.want {
			t.Errorf("Command(%q) = %s, want %s", c.words, got, c.want)
		}
	}
}
