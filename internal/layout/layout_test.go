package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/cassette-dev/cassette/"

// floors is the layout: a package imports only packages on lower floors.
// The lower floors (outcome, redact, normalize, cassettes, then diff,
// match, har)
// hold the file format and the pure ideas; the front doors and pipelines
// stand on them; cmd/cassette is the roof. internal/speccheck and
// internal/testsummary stand apart: they import no package of the project
// (speccheck is an oracle written from the spec texts, and must not share
// our types).
var floors = map[string]int{
	"internal/outcome":   1, // how a run ends: the error model, next steps, quoting, safe printing
	"internal/redact":    1,
	"internal/shimcall":  1, // what a CLI shim of observe does per call: imports no package of the project, nor net/http or os/exec (cmd/cassette-shim starts fast)
	"internal/wsframe":   1, // WebSocket framing: imports no package of the project
	"internal/procgroup": 1, // a child in a process group of its own, signalled as one, per platform
	"internal/normalize": 2,
	"internal/verdict":   2, // what a run found, case by case: for the doors that judge and for report
	"internal/cfgschema": 2, // cassette.yaml's schema: the adapters and their parts, the rules across fields
	"internal/interrupt": 2, // a command's reading phase ended at Ctrl-C (E_INTERRUPTED), for its reports to be written
	"cassettes":          3,
	"internal/workspace": 4, // the loaded project (cassette.yaml, registry, redaction) and the locks on its files
	"internal/diff":      4,
	"match":              3, // the rules a Go test passes to recorder.WithMatch: data only
	"internal/matching":  4, // the index and the closest miss, for the proxy and recorder alike
	"internal/nextstep":  4, // the next steps failures name, from the project's own names: for recorder and the commands
	"internal/har":       4,
	"internal/wsplay":    4, // the client side of a recorded WebSocket session, for verify and recorder
	"internal/infra":     4, // what is infrastructure, never drift: for proxy and recorder alike
	"internal/kind":      4, // what an adapter kind means (http, cli and the registry), for every door from floor 5 up
	"internal/report":    5,
	"internal/proxy":     5,
	"internal/importer":  5,
	"internal/scaffold":  5, // what cassette init writes: the starting cassette.yaml, cassettes/, the .gitignore line
	"internal/learn":     5, // what varies between recordings of a scenario, and the normalizers that cover it
	"internal/recording": 6, // the command line's recording pipeline: for record, proxy --mode record and refresh
	"recorder":           7, // the go-vcr face for users' Go tests, over recording and match
	"internal/verify":    6,
	"internal/coverage":  6,
	"internal/harness":   7,
	"cassettetest":       7,
	"internal/refresh":   7,
	"internal/observe":   7, // the observing jobs: cassette observe and proxy --mode observe
	"internal/gendocs":   7, // the docs site's generated pages: reads the registries, writes nothing itself
	"cmd/cassette":       8,
	"cmd/cassette-shim":  8, // what observe's CLI shims run: internal/shimcall and a main

	// a toy adapter kind (a TCP line protocol): a kind is one package plus a registration
	"internal/kind/linekind": 5,

	"internal/speccheck":   0,
	"internal/testsummary": 0,
	"internal/layout":      0,
}

// pkg is one package directory of the module: its non-test files' imports
// of other packages of the project.
type pkg struct {
	dir     string
	imports map[string]bool
}

// root is the module's root, two floors up from this package.
func root(t *testing.T) string {
	t.Helper()
	r, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", r, err)
	}
	return r
}

// packages reads every package directory of the module (nested modules,
// testdata and node_modules left out), parsing non-test Go files.
func packages(t *testing.T, fset *token.FileSet) map[string]*pkg {
	t.Helper()
	base := root(t)
	out := map[string]*pkg{}
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(base, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			if rel != "." {
				if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
					return filepath.SkipDir // a nested module: its own graph
				}
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		k := out[dir]
		if k == nil {
			k = &pkg{dir: dir, imports: map[string]bool{}}
			out[dir] = k
		}
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			if strings.HasPrefix(path, module) {
				k.imports[strings.TrimPrefix(path, module)] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestImportsPointDown: every package of the tool has a floor and imports
// only packages below it; the packages that stand apart import none of
// the project's; nothing imports cmd/ or an example.
func TestImportsPointDown(t *testing.T) {
	pkgs := packages(t, token.NewFileSet())
	var dirs []string
	for d := range pkgs {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		k := pkgs[d]
		example := strings.HasPrefix(d, "examples/") || strings.HasPrefix(d, "bench/")
		for im := range k.imports {
			if strings.HasPrefix(im, "cmd/") {
				t.Errorf("%s imports %s: nothing imports a command", d, im)
			}
			if strings.HasPrefix(im, "examples/") && !strings.HasPrefix(d, "examples/") {
				t.Errorf("%s imports %s: the tool never imports an example", d, im)
			}
		}
		if example {
			continue // examples and benchmarks use the tool as its users do
		}
		f, ok := floors[d]
		if !ok {
			t.Errorf("package %s has no floor: give it one in floors (layout_test.go) and a line in ARCHITECTURE.md", d)
			continue
		}
		for im := range k.imports {
			if f == 0 {
				t.Errorf("%s stands apart, but imports %s", d, im)
				continue
			}
			g, ok := floors[im]
			if !ok || g == 0 {
				t.Errorf("%s imports %s, which has no floor or stands apart", d, im)
			} else if g >= f {
				t.Errorf("%s (floor %d) imports %s (floor %d): an arrow that runs up or across", d, f, im, g)
			}
		}
	}
	for d := range floors {
		if pkgs[d] == nil {
			t.Errorf("floors names %s, which is no package of the module", d)
		}
	}
}

// TestNoInit: no package of the project or its nested modules has an init
// function (registries are values built by explicit calls, STYLE.md §5).
func TestNoInit(t *testing.T) {
	base := root(t)
	files, err := sourceFiles(base) // TestSizes' walk: the nested modules too
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, p := range files {
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
				rel, _ := filepath.Rel(base, p)
				t.Errorf("%s:%d: func init: build the value with an explicit call instead", filepath.ToSlash(rel), fset.Position(fn.Pos()).Line)
			}
		}
	}
}

// TestArchitectureNamesEveryPackage: ARCHITECTURE.md, the
// map a contributor reads, has a row for every package with a floor, with
// that floor (or "apart"), and names no package the module lacks.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root(t), "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut("\n"+string(data), "\n# Architecture\n")
	if !ok {
		t.Fatal("ARCHITECTURE.md has no # Architecture heading")
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	rows := map[string]string{} // package → floor column
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, " | ")
		if !strings.HasPrefix(line, "| ") || len(cells) < 3 {
			continue
		}
		floor := strings.TrimPrefix(cells[0], "| ")
		name, _, _ := strings.Cut(strings.TrimPrefix(cells[1], "[`"), "`")
		if floor == "floor" || strings.HasPrefix(floor, "---") {
			continue
		}
		rows[name] = floor
	}
	for d, f := range floors {
		want := strconv.Itoa(f)
		if f == 0 {
			want = "apart"
		}
		if got, ok := rows[d]; !ok {
			t.Errorf("ARCHITECTURE.md has no row for %s (floor %s)", d, want)
		} else if got != want {
			t.Errorf("ARCHITECTURE.md puts %s on floor %s; layout_test.go's floors say %s", d, got, want)
		}
	}
	for d := range rows {
		if _, ok := floors[d]; !ok {
			t.Errorf("ARCHITECTURE.md names %s, which has no floor in layout_test.go", d)
		}
	}
}

// groundFloor is the one package that defines reason codes (and their
// type): every other package says what went wrong in its words.
const groundFloor = "internal/outcome"

// TestOnlyTheGroundFloorDefinesErrorCodes: outside outcome, no package of
// the tool declares a type named Reason or a constant or variable whose
// value is a reason code's literal ("E_…"); internal/speccheck, the
// oracle written from the spec texts, keeps its own table on purpose.
func TestOnlyTheGroundFloorDefinesErrorCodes(t *testing.T) {
	base := root(t)
	files, err := sourceFiles(base)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, p := range files {
		rel, _ := filepath.Rel(base, p)
		rel = filepath.ToSlash(rel)
		dir := filepath.ToSlash(filepath.Dir(rel))
		if dir == groundFloor || floors[dir] == 0 || strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, where := range errorCodeDecls(f) {
			t.Errorf("%s:%d: %s: reason codes are defined only in %s (errors.go); add the code there", rel, fset.Position(where.pos).Line, where.what, groundFloor)
		}
	}
}

type codeDecl struct {
	pos  token.Pos
	what string
}

// errorCodeDecls finds a file's declarations of reason codes: a type named
// Reason, or a package-level constant or variable holding an "E_…" literal.
func errorCodeDecls(f *ast.File) []codeDecl {
	var out []codeDecl
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, spec := range g.Specs {
			switch s := spec.(type) {
			case *ast.TypeSpec:
				if s.Name.Name == "Reason" {
					out = append(out, codeDecl{s.Pos(), "type Reason"})
				}
			case *ast.ValueSpec:
				for i, v := range s.Values {
					if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING && isReasonLiteral(lit.Value) {
						out = append(out, codeDecl{s.Pos(), s.Names[min(i, len(s.Names)-1)].Name + " = " + lit.Value})
					}
				}
			}
		}
	}
	return out
}

// isReasonLiteral reports whether a Go string literal reads like a reason
// code: "E_" and upper-case letters, digits and underscores.
func isReasonLiteral(lit string) bool {
	s, err := strconv.Unquote(lit)
	if err != nil || !strings.HasPrefix(s, "E_") || len(s) < 3 {
		return false
	}
	return strings.IndexFunc(s, func(r rune) bool { return !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') }) < 0
}

// TestNoImportUnderAHigherFloor: a package never imports one that lives
// under the directory of a package on its own floor or above (proxy, on
// floor 5, imported recorder/infra while recorder stands on floor 6): the
// directory tree reads as the floors do.
func TestNoImportUnderAHigherFloor(t *testing.T) {
	pkgs := packages(t, token.NewFileSet())
	for d, k := range pkgs {
		f, ok := floors[d]
		if !ok || f == 0 {
			continue
		}
		for im := range k.imports {
			for parent, g := range floors {
				if g >= f && parent != d && strings.HasPrefix(im, parent+"/") {
					t.Errorf("%s (floor %d) imports %s, which lives under %s (floor %d): move it out from under %s", d, f, im, parent, g, parent)
				}
			}
		}
	}
}

// judges are the doors that judge a fake; renderers the packages that
// write what a run found. A judge says "pass" in package verdict's words
// and hands its run to the run ending, which renders it (issue #36). It
// may read another run's reports, through the names of rendererReaders
// alone (coverage reads the latest verify run's summary.json for its
// modelled figure).
var (
	judges          = []string{"internal/verify", "internal/refresh", "internal/coverage", "internal/harness"}
	renderers       = []string{"internal/report"}
	rendererReaders = []string{"ParseSummary", "FileSummary", "FileRun", "DefaultDir"}
)

// TestJudgesImportNoRenderer: a judge's non-test files use of a renderer
// at most the names that read a run's reports (rendererReaders): no
// writer, no renderer's type.
func TestJudgesImportNoRenderer(t *testing.T) {
	base := root(t)
	for _, j := range judges {
		files, err := filepath.Glob(filepath.Join(base, filepath.FromSlash(j), "*.go"))
		if err != nil || len(files) == 0 {
			t.Errorf("judges names %s, which is no package of the module (%v)", j, err)
			continue
		}
		fset := token.NewFileSet()
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			pf, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range rendererNames(pf) {
				if !slices.Contains(rendererReaders, name) {
					t.Errorf("%s/%s uses report.%s: a judge fills a verdict.Run and the run ending renders it (it may read reports: %s)", j, filepath.Base(f), name, strings.Join(rendererReaders, ", "))
				}
			}
		}
	}
}

// rendererNames are the names f uses of a renderer package it imports.
func rendererNames(f *ast.File) []string {
	local := map[string]bool{}
	for _, im := range f.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		if !slices.Contains(renderers, strings.TrimPrefix(path, module)) {
			continue
		}
		name := filepath.Base(path)
		if im.Name != nil {
			name = im.Name.Name
		}
		local[name] = true
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && local[id.Name] {
				out = append(out, sel.Sel.Name)
			}
		}
		return true
	})
	return out
}
