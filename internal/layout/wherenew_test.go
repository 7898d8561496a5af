package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	mdLink      = regexp.MustCompile(`\]\(([^)]+)\)`)
	codeSpan    = regexp.MustCompile("`([^`]+)`")
	funcInFile  = regexp.MustCompile("`([^` ]+\\.go)`: `([A-Za-z_][A-Za-z0-9_]*)`")
	whereHeader = "\n## Where a new X goes\n"
)

// TestWhereANewXGoesNamesWhatExists: ARCHITECTURE.md's "Where a new X
// goes" table names only what the module has: every linked path and every
// path in code (a span with a slash) exists, a linked directory that holds
// Go code has a floor, and each row's registration point (`file.go`:
// `Name`, at least one a row) is a function declared in that file.
func TestWhereANewXGoesNamesWhatExists(t *testing.T) {
	base := root(t)
	data, err := os.ReadFile(filepath.Join(base, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), whereHeader)
	if !ok {
		t.Fatalf("ARCHITECTURE.md has no %q section", strings.TrimSpace(whereHeader))
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	rows := 0
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, " | ")
		if !strings.HasPrefix(line, "| ") || len(cells) < 3 || strings.HasPrefix(cells[0], "| a new") {
			continue
		}
		rows++
		what := strings.TrimPrefix(cells[0], "| ")
		for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
			checkPath(t, base, what, m[1], true)
		}
		for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
			if strings.Contains(m[1], "/") && !strings.ContainsAny(m[1], " :") {
				checkPath(t, base, what, m[1], false)
			}
		}
		regs := funcInFile.FindAllStringSubmatch(cells[len(cells)-1], -1)
		if len(regs) == 0 {
			t.Errorf("ARCHITECTURE.md: a new %s has no registration point (`file.go`: `Name`) in its last column", what)
		}
		for _, m := range regs {
			if !declares(t, filepath.Join(base, m[1]), m[2]) {
				t.Errorf("ARCHITECTURE.md: a new %s is registered at %s: %s, which that file does not declare", what, m[1], m[2])
			}
		}
	}
	if rows < 5 {
		t.Errorf("ARCHITECTURE.md's %q table has %d rows; want normalizer, adapter kind, forge, report format, language binding", strings.TrimSpace(whereHeader), rows)
	}
}

// checkPath fails the test when rel is not in the module, or (linked) is
// a directory of Go code without a floor.
func checkPath(t *testing.T, base, what, rel string, linked bool) {
	t.Helper()
	st, err := os.Stat(filepath.Join(base, rel))
	if err != nil {
		t.Errorf("ARCHITECTURE.md: a new %s names %s, which the module lacks", what, rel)
		return
	}
	if !linked || !st.IsDir() {
		return
	}
	if gofiles, _ := filepath.Glob(filepath.Join(base, rel, "*.go")); len(gofiles) > 0 {
		if _, ok := floors[rel]; !ok {
			t.Errorf("ARCHITECTURE.md: a new %s goes in %s, which has no floor in layout_test.go", what, rel)
		}
	}
}

// declares reports whether the Go file at path declares a function or
// method named name.
func declares(t *testing.T, path, name string) bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Errorf("%s: %v", path, err)
		return false
	}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == name {
			return true
		}
	}
	return false
}
