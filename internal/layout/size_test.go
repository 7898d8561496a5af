package layout

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The size rules (BRIEF.md "Simple and small"): a file that outgrows 600
// lines holds more than one idea, and a function over 80 lines does more
// than one thing. internal/speccheck is spared the file rule only: it is an
// oracle, one checker per spec, each with many rules; its functions keep
// the function rule like everything else.
const (
	maxFileLines = 600
	maxFuncLines = 80
	fileExempt   = "internal/speccheck"
)

// sizeProblem is one file or function over its limit.
type sizeProblem struct {
	pos   string // file:line, relative to the module root
	name  string // the function, or "" for a whole file
	lines int
}

func (p sizeProblem) String() string {
	if p.name == "" {
		return fmt.Sprintf("%s: file of %d lines (at most %d outside tests and %s): split it along its ideas", p.pos, p.lines, maxFileLines, fileExempt)
	}
	return fmt.Sprintf("%s: func %s is %d lines (at most %d outside tests): split it along its ideas", p.pos, p.name, p.lines, maxFuncLines)
}

// sourceFiles lists every non-test Go file under base, the nested modules
// (the SDK tests' module) and the examples included, testdata, node_modules
// and hidden directories left out as the go tool leaves them out.
func sourceFiles(base string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if p != base && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

// funcName is how a reader finds the function: Recv.Name for a method.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr: // a generic receiver: T[P]
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}

// sizeProblems parses one file and reports the file, if over its limit,
// and each function over its limit, counted from the func keyword to the
// closing brace (the doc comment is not counted).
func sizeProblems(fset *token.FileSet, base, path string) ([]sizeProblem, error) {
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	rel, _ := filepath.Rel(base, path)
	rel = filepath.ToSlash(rel)
	var out []sizeProblem
	tf := fset.File(f.Pos())
	if n := tf.LineCount(); n > maxFileLines && !strings.HasPrefix(rel, fileExempt+"/") {
		out = append(out, sizeProblem{pos: rel + ":1", lines: n})
	}
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		start, end := fset.Position(fn.Pos()).Line, fset.Position(fn.End()).Line
		if n := end - start + 1; n > maxFuncLines {
			out = append(out, sizeProblem{pos: fmt.Sprintf("%s:%d", rel, start), name: funcName(fn), lines: n})
		}
	}
	return out, nil
}

// TestSizes holds every file and function of the module and its nested
// modules to the size rules, and names each offender with its place and
// length.
func TestSizes(t *testing.T) {
	base := root(t)
	files, err := sourceFiles(base)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 100 {
		t.Fatalf("found %d Go files under %s: the walk misses the module", len(files), base)
	}
	fset := token.NewFileSet()
	for _, p := range files {
		probs, err := sizeProblems(fset, base, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, pr := range probs {
			t.Error(pr)
		}
	}
}

// TestSizeProblemsFindOffenders: the counter finds a long function (a
// method, counted from func to its closing brace), a long file, and leaves
// a function of exactly the limit alone, so TestSizes cannot pass by
// finding nothing.
func TestSizeProblemsFindOffenders(t *testing.T) {
	dir := t.TempDir()
	body := func(name string, lines int) string {
		// func line + (lines-2) statements + closing brace = lines
		return "func " + name + " {\n" + strings.Repeat("\t_ = 0\n", lines-2) + "}\n"
	}
	src := "package p\n\ntype T struct{}\n\n" + body("(t *T) Long()", maxFuncLines+1) + body("Fits()", maxFuncLines)
	src += strings.Repeat("// filler\n", maxFileLines)
	write := func(rel, s string) string {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := mkdirWrite(p, s); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fset := token.NewFileSet()
	got, err := sizeProblems(fset, dir, write("p/p.go", src))
	if err != nil {
		t.Fatal(err)
	}
	want := []sizeProblem{{pos: "p/p.go:1", lines: strings.Count(src, "\n")}, {pos: "p/p.go:5", name: "T.Long", lines: maxFuncLines + 1}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("sizeProblems:\n got %v\nwant %v", got, want)
	}
	// internal/speccheck: the file rule spares it, the function rule not.
	got, err = sizeProblems(fset, dir, write(fileExempt+"/x.go", src))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].name != "T.Long" {
		t.Errorf("in %s: got %v, want only T.Long", fileExempt, got)
	}
	// sourceFiles leaves out tests and testdata, and enters nested modules.
	write("p/p_test.go", "package p\n")
	write("p/testdata/q.go", "package q\n")
	write("nested/go.mod", "module nested\n")
	write("nested/n.go", "package nested\n")
	files, err := sourceFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	var rels []string
	for _, f := range files {
		r, _ := filepath.Rel(dir, f)
		rels = append(rels, filepath.ToSlash(r))
	}
	if fmt.Sprint(rels) != "["+fileExempt+"/x.go nested/n.go p/p.go]" {
		t.Errorf("sourceFiles = %v", rels)
	}
}

func mkdirWrite(p, s string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(s), 0o644)
}
