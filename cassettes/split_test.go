package cassettes

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"
)

// forceSplit runs f with every file, however small, parsed by
// interactions (split.go).
func forceSplit[T any](t testing.TB, f func() T) T {
	t.Helper()
	old := splitBytes
	splitBytes = 0
	defer func() { splitBytes = old }()
	return f()
}

// wholeParse runs f with every file parsed as one document.
func wholeParse[T any](t testing.TB, f func() T) T {
	t.Helper()
	old := splitBytes
	splitBytes = 1 << 62
	defer func() { splitBytes = old }()
	return f()
}

// fieldPaths lists the field path of every key and item in a document, as
// Line takes them.
func fieldPaths(n *yaml.Node, path string, out *[]string) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			fieldPaths(c, path, out)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			p := joinField(path, n.Content[i].Value)
			*out = append(*out, p)
			fieldPaths(n.Content[i+1], p, out)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			*out = append(*out, p)
			fieldPaths(c, p, out)
		}
	}
}

// TestSplitLines: every field of a split cassette is on the line the whole
// parse finds, while loading and afterwards (read again from the file), and
// a file changed since it was loaded gives the interaction's first line,
// not a wrong one.
func TestSplitLines(t *testing.T) {
	dir := t.TempDir()
	p := writeBenchCassettes(t, dir, 300, 1)[0]
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	// Comments, blank lines and a go-vcr style key after the interactions
	// are part of what the scanner meets.
	data = []byte(strings.Replace(string(data), "  - id: 7\n", "  # the eighth\n\n  - id: 7\n", 1) + "# trailing comment\n")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	whole := wholeParse(t, func() *Cassette { c, err := Load(p, LoadOptions{}); must(t, err); return c })
	split := forceSplit(t, func() *Cassette { c, err := Load(p, LoadOptions{}); must(t, err); return c })
	if split.loc.items == nil {
		t.Fatal("the file was not split")
	}
	if !reflect.DeepEqual(whole.Interactions, split.Interactions) {
		t.Fatal("split and whole parse decode different interactions")
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var paths []string
	fieldPaths(&doc, "", &paths)
	paths = append(paths, "interactions[300]", "interactions[2].request.nosuch", "interactions[x]", "nosuch", "")
	for _, f := range paths {
		if w, s := whole.Line(f), split.Line(f); w != s || w == 0 && f != "" {
			t.Fatalf("Line(%q) = %d split, %d whole", f, s, w)
		}
	}
	// The file changes under a loaded cassette: lines inside an
	// interaction fall back to where it started.
	want := int(split.loc.items[5].line)
	if err := os.WriteFile(p, []byte(strings.Replace(string(data), "item-5", "item-five", -1)), 0o644); err != nil {
		t.Fatal(err)
	}
	split.loc.cached = 0
	if got := split.Line("interactions[5].response.body"); got != want {
		t.Errorf("Line after the file changed = %d, want the interaction's line %d", got, want)
	}
	// A FIFO in its place is not opened (it would block).
	os.Remove(p)
	mkfifo(t, p)
	split.loc.cached = 0
	if got := split.Line("interactions[5].response.body"); got != want {
		t.Errorf("Line with a FIFO in place = %d, want the interaction's line %d", got, want)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestSplitDeclines: what the scanner cannot be sure of is parsed whole,
// with the same result.
func TestSplitDeclines(t *testing.T) {
	head := "cassette: 1\nversion: 2\nadapter: github\nscenario: s\nkind: http\n"
	it := "  - request: {url: 'https://a.example/x', method: GET}\n    response: {code: 200, status: 200 OK}\n"
	cases := map[string]struct {
		data  string
		split bool
	}{
		"block items":             {head + "interactions:\n" + it + it, true},
		"items at column 0":       {head + "interactions:\n- request: {url: 'https://a.example/x', method: GET}\n  response: {code: 200}\n", true},
		"key after the items":     {"version: 2\ninteractions:\n" + it + "cassette: 1\nadapter: github\nscenario: s\nkind: http\n", true},
		"CRLF line ends":          {strings.ReplaceAll(head+"interactions:\n"+it+it, "\n", "\r\n"), true},
		"comment after the key":   {head + "interactions: # recorded\n" + it, false},
		"flow sequence":           {head + "interactions: [{request: {url: 'https://a.example/x', method: GET}, response: {code: 200}}]\n", false},
		"flow on the next line":   {head + "interactions:\n  [{request: {url: 'https://a.example/x', method: GET}, response: {code: 200}}]\n", false},
		"key inside a string":     {"version: 2\nx: \"a\ninteractions:\n" + it + "\"\n" + "cassette: 1\n", false},
		"anchor in one batch":     {head + "interactions:\n  - request: &r {url: 'https://a.example/x', method: GET}\n    response: {code: 200}\n  - request: *r\n    response: {code: 201}\n", true},
		"alias item":              {head + "interactions:\n  - &a\n    request: {url: 'https://a.example/x', method: GET}\n    response: {code: 200}\n  - *a\n", false},
		"null item":               {head + "interactions:\n  -\n" + it, false},
		"anchor across batches":   {head + "interactions:\n  - request: &r {url: 'https://a.example/x', method: GET}\n    response: {code: 200}\n" + strings.Repeat(it, batchItems) + "  - request: *r\n    response: {code: 200}\n", false},
		"tab indentation":         {head + "interactions:\n\t- request: {}\n", false},
		"second document":         {head + "interactions:\n" + it + "---\nx: 1\n", false},
		"item quote across items": {head + "interactions:\n  - request: {url: \"https://a.example/x\n  - \", method: GET}\n    response: {code: 200}\n", false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			type res struct {
				c   *Cassette
				err string
			}
			parse := func() res {
				cs, err := Parse("cassettes/github/s.yaml", []byte(c.data), LoadOptions{})
				return res{cs, fmt.Sprint(err)}
			}
			w, s := wholeParse(t, parse), forceSplit(t, parse)
			if w.err != s.err {
				t.Fatalf("split: %s\nwhole: %s", s.err, w.err)
			}
			if w.c == nil {
				return
			}
			if !reflect.DeepEqual(w.c.Interactions, s.c.Interactions) || !reflect.DeepEqual(w.c.Warnings, s.c.Warnings) {
				t.Fatalf("split and whole parse differ:\n%+v\n%+v", s.c.Interactions, w.c.Interactions)
			}
			if got := s.c.loc.items != nil; got != c.split {
				t.Errorf("split = %v, want %v", got, c.split)
			}
		})
	}
}

// FuzzSplit: whatever the input, the split parse decodes, warns and
// refuses exactly as the whole parse does.
func FuzzSplit(f *testing.F) {
	f.Add([]byte(goodHTTP))
	f.Add([]byte(goodHTTP + "  - id: 1\n    request: {url: 'https://x.example/', method: GET}\n    response:\n      code: 201\n      body: \"a\n  - b\"\n"))
	f.Add([]byte("version: 2\ninteractions:\n- request:\n    url: https://x.example/\n    method: GET\n    extra: 1\n  response: {code: 200}\n"))
	if data, err := os.ReadFile(filepath.Join("..", "..", "shared", "testdata", "go-vcr-real", "etcd-f0c6.yaml")); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		type res struct {
			c   *Cassette
			err string
		}
		parse := func() res {
			cs, err := Parse("cassettes/github/s.yaml", data, LoadOptions{})
			return res{cs, fmt.Sprint(err)}
		}
		w, s := wholeParse(t, parse), forceSplit(t, parse)
		if w.err != s.err {
			t.Fatalf("split: %s\nwhole: %s", s.err, w.err)
		}
		if w.c != nil && (!reflect.DeepEqual(w.c.Interactions, s.c.Interactions) || !reflect.DeepEqual(w.c.Warnings, s.c.Warnings)) {
			t.Fatalf("split and whole parse differ")
		}
	})
}

// TestSplitGoVCRFiles: the cassettes go-vcr wrote (both of its formats,
// items at column 0 and indented by four) load split exactly as whole,
// every field on the same line.
func TestSplitGoVCRFiles(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(sharedDir(t), "testdata", "go-vcr-real", "*.yaml"))
	if len(files) < 6 {
		t.Fatalf("found %d go-vcr cassettes under shared/testdata, want 6", len(files))
	}
	split := 0
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			type res struct {
				c   *Cassette
				err error
			}
			load := func() res { c, err := Load(f, LoadOptions{}); return res{c, err} }
			w, s := wholeParse(t, load), forceSplit(t, load)
			if fmt.Sprint(w.err) != fmt.Sprint(s.err) {
				t.Fatalf("split: %v\nwhole: %v", s.err, w.err)
			}
			if !reflect.DeepEqual(w.c.Interactions, s.c.Interactions) || !reflect.DeepEqual(w.c.Warnings, s.c.Warnings) || w.c.Version != s.c.Version {
				t.Fatal("split and whole parse differ")
			}
			if s.c.loc.items != nil {
				split++
			}
			var paths []string
			fieldPaths(w.c.loc.head, "", &paths)
			for _, p := range paths {
				if a, b := w.c.Line(p), s.c.Line(p); a != b {
					t.Errorf("Line(%q) = %d split, %d whole", p, b, a)
				}
			}
		})
	}
	if split == 0 {
		t.Error("no go-vcr file was split")
	}
}

// TestSplitLinesConcurrent: replay asks for lines from many requests at
// once (run with -race).
func TestSplitLinesConcurrent(t *testing.T) {
	p := writeBenchCassettes(t, t.TempDir(), 200, 1)[0]
	c := forceSplit(t, func() *Cassette { c, err := Load(p, LoadOptions{}); must(t, err); return c })
	want := wholeParse(t, func() *Cassette { c, err := Load(p, LoadOptions{}); must(t, err); return c })
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < 200; i += 3 {
				f := fmt.Sprintf("interactions[%d].response.headers.Etag", i)
				if got, w := c.Line(f), want.Line(f); got != w {
					t.Errorf("Line(%s) = %d, want %d", f, got, w)
				}
			}
		}()
	}
	wg.Wait()
}

// TestLargeCassetteKeepsNoTree: a cassette above splitBytes is loaded split
// by default, and what it keeps for Line is the tree of its head and one
// entry per interaction, not a node per key and value.
func TestLargeCassetteKeepsNoTree(t *testing.T) {
	p := writeBenchCassettes(t, t.TempDir(), 300, 1)[0]
	if st, err := os.Stat(p); err != nil || st.Size() < int64(splitBytes) {
		t.Fatalf("the generated cassette is not above %d bytes: %v", splitBytes, err)
	}
	c, err := Load(p, LoadOptions{})
	must(t, err)
	if c.loc.items == nil || len(c.loc.items) != 300 {
		t.Fatal("a large cassette was not split")
	}
	var count func(n *yaml.Node) int
	count = func(n *yaml.Node) int {
		k := 1
		for _, c := range n.Content {
			k += count(c)
		}
		return k
	}
	if n := count(c.loc.head); n > 20 {
		t.Errorf("the loaded cassette keeps %d nodes, want its head's few", n)
	}
}
