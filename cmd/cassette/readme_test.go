package main

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README claims test: what the project's documents say a user can
// type, they can. Every relative link of README.md, ARCHITECTURE.md,
// bench/README.md, the docs site (docs/**/*.md) and examples/*/README.md
// resolves (a file that exists, a heading that exists),
// and every `cassette` command in their shell code blocks (and every
// `next:` line of the output they show) parses with the real command tree:
// the subcommand exists, the flags exist and have their values, the
// required flags are there and the positional arguments are as many as the
// command takes. Nothing is run; links to the web are not followed.

// docFiles are the documents a newcomer (or a maintainer) reads.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"../../README.md", "../../ARCHITECTURE.md", "../../bench/README.md"}
	for _, pattern := range []string{"../../examples/*/README.md"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	err := filepath.WalkDir("../../docs", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 8 {
		t.Fatalf("found only %d documents: %v", len(files), files)
	}
	return files
}

// block is one fenced code block: its info string and its lines, each
// with the line number in the file.
type block struct {
	lang  string
	lines []numbered
}

type numbered struct {
	n    int
	text string
}

var fenceRE = regexp.MustCompile("^\\s*(```+|~~~+)\\s*([A-Za-z0-9_+-]*)")

// parseDoc splits a markdown file into its fenced code blocks and its
// prose (code blocks blanked, line numbers kept).
func parseDoc(t *testing.T, path string) (blocks []block, prose []numbered) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var cur *block
	fence := ""
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := fenceRE.FindStringSubmatch(line); m != nil && (cur == nil || strings.HasPrefix(strings.TrimSpace(line), fence)) {
			if cur == nil {
				cur, fence = &block{lang: m[2]}, m[1]
			} else {
				blocks, cur = append(blocks, *cur), nil
			}
			continue
		}
		if cur != nil {
			cur.lines = append(cur.lines, numbered{n, line})
			continue
		}
		prose = append(prose, numbered{n, line})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return blocks, prose
}

// TestDocLinksResolve: every relative link and image of the documents
// names a file of the repository, and every #anchor a heading of its file.
func TestDocLinksResolve(t *testing.T) {
	linkRE := regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	codeRE := regexp.MustCompile("`[^`]*`")
	checked := 0
	for _, doc := range docFiles(t) {
		_, prose := parseDoc(t, doc)
		for _, l := range prose {
			for _, m := range linkRE.FindAllStringSubmatch(codeRE.ReplaceAllString(l.text, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				file, anchor, _ := strings.Cut(target, "#")
				resolved := doc
				if file != "" {
					resolved = filepath.Join(filepath.Dir(doc), filepath.FromSlash(file))
					if _, err := os.Stat(resolved); err != nil {
						t.Errorf("%s:%d: link %s: no such file %s", rel(doc), l.n, target, rel(resolved))
						continue
					}
				}
				if anchor != "" && strings.HasSuffix(resolved, ".md") && !headings(t, resolved)[anchor] {
					t.Errorf("%s:%d: link %s: %s has no heading #%s", rel(doc), l.n, target, rel(resolved), anchor)
				}
			}
		}
	}
	if checked < 30 {
		t.Errorf("checked only %d links", checked)
	}
}

// headings are the anchors GitHub makes of a file's headings.
func headings(t *testing.T, path string) map[string]bool {
	t.Helper()
	_, prose := parseDoc(t, path)
	out := map[string]bool{}
	for _, l := range prose {
		if !strings.HasPrefix(l.text, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(l.text, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
				b.WriteRune(r)
			}
		}
		out[b.String()] = true
	}
	return out
}

// TestDocCommandsParse: every cassette command the documents show in a
// shell block, or print as a `next:` line of an output block, parses with
// the real command tree.
func TestDocCommandsParse(t *testing.T) {
	checked := 0
	for _, doc := range docFiles(t) {
		blocks, _ := parseDoc(t, doc)
		for _, b := range blocks {
			shell := b.lang == "sh" || b.lang == "bash" || b.lang == "shell" || b.lang == "console"
			if !shell && b.lang != "" && b.lang != "text" {
				continue // yaml, go, json: not commands
			}
			for _, l := range joinContinued(b.lines) {
				text := l.text
				if !shell { // an output block: only the next steps it shows are commands
					var ok bool
					if text, ok = strings.CutPrefix(strings.TrimSpace(text), "next: "); !ok {
						continue
					}
				}
				for _, words := range commands(text) {
					if len(words) == 0 || filepath.Base(words[0]) != "cassette" {
						continue
					}
					checked++
					if err := parses(words[1:]); err != nil {
						t.Errorf("%s:%d: %s\n  does not parse: %v", rel(doc), l.n, strings.Join(words, " "), err)
					}
				}
			}
		}
	}
	if checked < 40 {
		t.Errorf("checked only %d commands", checked)
	}
}

// parses checks args against the command tree as cobra would before
// running anything: the command, its flags and their values, the
// required flags, and the number of positional arguments.
func parses(args []string) error {
	root := newRootCmd(&IO{}, &globals{})
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if !cmd.Runnable() && len(cmd.Commands()) > 0 && !containsHelp(rest) {
		return fmt.Errorf("%s is not a command by itself", cmd.CommandPath())
	}
	if err := cmd.ParseFlags(rest); err != nil {
		return err
	}
	if containsHelp(rest) {
		return nil
	}
	if err := cmd.ValidateRequiredFlags(); err != nil {
		return err
	}
	if err := cmd.ValidateFlagGroups(); err != nil {
		return err
	}
	return cmd.ValidateArgs(cmd.Flags().Args())
}

func containsHelp(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--help" || a == "-h" {
			return true
		}
	}
	return false
}

// joinContinued joins lines that end in a backslash with the next one.
func joinContinued(lines []numbered) []numbered {
	var out []numbered
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		for strings.HasSuffix(l.text, `\`) && i+1 < len(lines) {
			i++
			l.text = strings.TrimSuffix(l.text, `\`) + " " + lines[i].text
		}
		out = append(out, l)
	}
	return out
}

// commands splits one shell line into its simple commands (at ;, &&, ||,
// | and &, outside quotes), each as words without quotes, without the
// leading VAR=value assignments, up to a comment or a redirection.
func commands(line string) [][]string {
	var (
		out   [][]string
		words []string
		word  strings.Builder
		inW   bool
		stop  bool // a comment or a redirection: the rest is not arguments
	)
	endWord := func() {
		if inW && !stop {
			words = append(words, word.String())
		}
		word.Reset()
		inW = false
	}
	endCmd := func() {
		endWord()
		for len(words) > 0 && regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`).MatchString(words[0]) {
			words = words[1:]
		}
		out = append(out, words)
		words, stop = nil, false
	}
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\'':
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			word.WriteString(string(rs[i+1 : min(j, len(rs))]))
			inW, i = true, j
		case r == '"':
			j := i + 1
			for j < len(rs) && rs[j] != '"' {
				if rs[j] == '\\' && j+1 < len(rs) {
					j++
				}
				word.WriteRune(rs[j])
				j++
			}
			inW, i = true, j
		case r == '\\' && i+1 < len(rs):
			i++
			word.WriteRune(rs[i])
			inW = true
		case r == '$' && i+1 < len(rs) && rs[i+1] == '(':
			depth, j := 0, i+1
			for ; j < len(rs); j++ {
				if rs[j] == '(' {
					depth++
				} else if rs[j] == ')' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			word.WriteString(string(rs[i:min(j+1, len(rs))]))
			inW, i = true, j
		case r == '#' && !inW:
			stop = true
		case r == ';' || r == '|' || r == '&':
			if i+1 < len(rs) && rs[i+1] == r {
				i++
			}
			endCmd()
		case r == '>' || r == '<':
			if inW && regexp.MustCompile(`^[0-9]*$`).MatchString(word.String()) { // 2>
				word.Reset()
				inW = false
			}
			endWord()
			stop = true
			if i+1 < len(rs) && rs[i+1] == '&' { // 2>&1: a redirection, not a background job
				i++
			}
		case r == ' ' || r == '\t':
			endWord()
		default:
			word.WriteRune(r)
			inW = true
		}
	}
	endCmd()
	return out
}

func rel(p string) string { return strings.TrimPrefix(filepath.ToSlash(p), "../../") }

// TestCommandsSplitsLikeAShell: the splitter the claims test relies on.
func TestCommandsSplitsLikeAShell(t *testing.T) {
	for _, c := range []struct {
		line string
		want string
	}{
		{`cassette verify; echo "exit $?"`, `[[cassette verify] [echo exit $?]]`},
		{`CASSETTE=$(command -v cassette) ./record.sh`, `[[./record.sh]]`},
		{`cassette record --adapter gh --scenario pr-list -- gh pr list --json number   # a comment`, `[[cassette record --adapter gh --scenario pr-list -- gh pr list --json number]]`},
		{`../../bin/cassette diff a.yaml 'b c.yaml' > out 2>&1 && cat out`, `[[../../bin/cassette diff a.yaml b c.yaml] [cat out]]`},
		{`cassette export har cassettes/shop --out shop.har`, `[[cassette export har cassettes/shop --out shop.har]]`},
	} {
		if got := fmt.Sprint(commands(c.line)); got != c.want {
			t.Errorf("commands(%q) = %s, want %s", c.line, got, c.want)
		}
	}
	if err := parses([]string{"verify", "--no-such-flag"}); err == nil {
		t.Error("an unknown flag parses")
	}
	if err := parses([]string{"record", "--scenario", "x"}); err == nil {
		t.Error("record without its required --adapter parses")
	}
	if err := parses([]string{"diff", "a.yaml"}); err == nil {
		t.Error("diff with one argument parses")
	}
	if err := parses([]string{"verfy"}); err == nil {
		t.Error("an unknown command parses")
	}
}
