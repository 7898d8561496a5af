package infra

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// TestBuiltinsDocumented holds docs/concepts/adapters.md's table of built-in fault
// signatures ("A CLI's own failures: fault signatures") to builtins: the
// table is the one builtinTable renders from the code, row for row, so a
// pattern, exit code, class or tool added here and not there (or the other
// way round) fails. On a mismatch it prints the table to paste.
func TestBuiltinsDocumented(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "concepts", "adapters.md"))
	if err != nil {
		t.Fatal(err)
	}
	const heading = "### A CLI's own failures: fault signatures\n"
	s := string(data)
	i := strings.Index(s, heading)
	if i < 0 {
		t.Fatalf("docs/concepts/adapters.md has no %q", strings.TrimSpace(heading))
	}
	s = s[i+len(heading):]
	if end := strings.Index(s, "\n#"); end >= 0 {
		s = s[:end]
	}
	start := strings.Index(s, "\n| tool |")
	if start < 0 {
		t.Fatalf("docs/concepts/adapters.md's %q has no table starting with \"| tool |\"", strings.TrimSpace(heading))
	}
	var got []string
	for _, line := range strings.Split(s[start+1:], "\n") {
		if !strings.HasPrefix(line, "|") {
			break
		}
		got = append(got, line)
	}
	want := builtinTable(t)
	if !slices.Equal(got, want) {
		for k := range max(len(got), len(want)) {
			var g, w string
			if k < len(got) {
				g = got[k]
			}
			if k < len(want) {
				w = want[k]
			}
			if g != w {
				t.Errorf("docs/concepts/adapters.md's table, line %d:\n  doc:  %s\n  code:   %s", k+1, g, w)
			}
		}
		t.Logf("the table the code has (paste it into docs/concepts/adapters.md):\n%s", strings.Join(want, "\n"))
	}
}

// builtinTable renders builtins as docs/concepts/adapters.md's markdown table: one row per
// set, named by the programs that use it; exit codes and stderr patterns
// in the code's order, each with its class; a pattern's alternatives (its
// top-level |) one by one, as RE2 has them.
func builtinTable(t *testing.T) []string {
	order := []string{"curl", "git", "gh", "docker", "llm"}
	if len(order) != len(builtins) {
		t.Fatalf("builtinTable's order %v does not name every built-in set", order)
	}
	rows := []string{
		"| tool | exit codes | stderr (non-zero exit) | not logged in | login (next step) |",
		"|---|---|---|---|---|",
	}
	for _, set := range order {
		b, ok := builtins[set]
		if !ok {
			t.Fatalf("no built-in set %q", set)
		}
		tools := []string{set}
		for tool, s := range sharedSets {
			if s == set {
				tools = append(tools, tool)
			}
		}
		slices.Sort(tools)
		var exits []exitGroup
		var stderrs []string
		for k, sig := range b.signatures {
			switch {
			case sig.Stderr != nil:
				class := fmt.Sprintf("(`%s`)", sig.Reason)
				if sig.Reason == "" {
					class = "(by its words)"
				}
				stderrs = append(stderrs, strings.Join(ticked(alternatives(t, sig.Stderr.String())), ", ")+" "+class)
			case k > 0 && b.signatures[k-1].Stderr == nil && b.signatures[k-1].Reason == sig.Reason:
				exits[len(exits)-1].codes = append(exits[len(exits)-1].codes, fmt.Sprint(sig.ExitCode))
			default:
				exits = append(exits, exitGroup{codes: []string{fmt.Sprint(sig.ExitCode)}, reason: sig.Reason})
			}
		}
		var exitCells []string
		for _, g := range exits {
			exitCells = append(exitCells, fmt.Sprintf("%s (`%s`)", strings.Join(g.codes, ", "), g.reason))
		}
		var login []string
		for _, re := range b.notLoggedIn {
			login = append(login, alternatives(t, re.String())...)
		}
		next := ""
		if b.login != "" {
			next = "`" + b.login + "`"
		}
		rows = append(rows, row(strings.Join(ticked(tools), ", "), strings.Join(exitCells, "; "), strings.Join(stderrs, "; "), strings.Join(ticked(login), ", "), next))
	}
	return rows
}

// alternatives splits an RE2 pattern at its top-level |.
func alternatives(t *testing.T, pattern string) []string {
	var out []string
	depth, from := 0, 0
	for k := 0; k < len(pattern); k++ {
		switch pattern[k] {
		case '\\':
			k++
		case '(':
			depth++
		case ')':
			depth--
		case '|':
			if depth == 0 {
				out = append(out, pattern[from:k])
				from = k + 1
			}
		}
	}
	out = append(out, pattern[from:])
	for _, a := range out {
		if strings.ContainsAny(a, "`|") {
			t.Fatalf("pattern %q: %q cannot be shown in a markdown table cell", pattern, a)
		}
	}
	return out
}

func ticked(ss []string) []string {
	out := make([]string, len(ss))
	for k, s := range ss {
		out[k] = "`" + s + "`"
	}
	return out
}

func row(cells ...string) string {
	var b strings.Builder
	b.WriteString("|")
	for _, c := range cells {
		if c == "" {
			b.WriteString(" |")
			continue
		}
		b.WriteString(" " + c + " |")
	}
	return b.String()
}

// exitGroup is a run of exit codes of one class.
type exitGroup struct {
	codes  []string
	reason outcome.Reason
}
