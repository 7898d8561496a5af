package normalize

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// streamPipelines are pipelines the streamed engine takes (every built-in
// but json.canonical, project normalizers by path and by expression, and
// paths of every form it follows), by name.
func streamPipelines(tb testing.TB) map[string]*Pipeline {
	tb.Helper()
	r := Builtins()
	defs := map[string]Definition{
		"pr":        {Regex: `#\d+`},
		"pr_number": {JSONPaths: []string{"$..number", "$.items[*].number"}},
		"login":     {JSONPaths: []string{"$[*].user.login"}, Regex: `[a-z]+`},
		"fixed":     {JSONPaths: []string{"$.a"}, Replace: "1763820000"},
	}
	for name, d := range defs {
		if err := r.Define(name, d); err != nil {
			tb.Fatal(err)
		}
	}
	var all []string
	for _, n := range allNames {
		if n != "json.canonical" && n != "pr" {
			all = append(all, n)
		}
	}
	lists := map[string][]string{
		"all":       all,
		"bench":     benchNames,
		"root":      {"json.path:$", "uuid"},
		"paths":     {"json.path:$..id", "json.path:$[0]", "json.path:$.*.id", "json.path:$.a[1].b", "timestamps.unix", "uuid"},
		"defined":   {"redact.credentials", "pr", "pr_number", "login", "fixed", "timestamps.unix", "sha:short", "sha:full"},
		"unix-last": {"fixed", "uuid", "timestamps.unix"},
		"none":      nil,
	}
	out := map[string]*Pipeline{}
	for name, names := range lists {
		p, err := r.Pipeline(names, Options{WorkDir: "/work/app", TempDirs: []string{"/tmp"}, Credentials: map[string]string{"TOKEN": "hunter2-secret"}})
		if err != nil {
			tb.Fatal(err)
		}
		if p.stream == nil {
			tb.Fatalf("pipeline %s is not streamed", name)
		}
		out[name] = p
	}
	return out
}

// treeJSON is Pipeline.JSON on the tree engine.
func treeJSON(p *Pipeline, st *State, data []byte) ([]byte, bool) {
	root, err := parseJSON(data)
	if err != nil {
		return nil, false
	}
	return p.json(st, root, data), true
}

// FuzzStreamMatchesTree: on any input, the streamed engine takes what the
// tree engine takes for a JSON document, gives the same bytes, and leaves
// the cassette's State as the tree engine does (so that the next body is
// numbered the same), over two documents in one State.
func FuzzStreamMatchesTree(f *testing.F) {
	f.Add(string(jsonBody(4<<10)), `{"id": "6dcb09b5b57875f334f61aebed695e2e4193db5e"}`)
	for _, s := range fastSeeds {
		b, _ := json.Marshal(map[string]any{"s": s, "created_at": 1763820000, "id": s, "list": []string{s, s + " " + s}, "a": []any{s, map[string]any{"b": s, "id": 1}}})
		f.Add(string(b), s)
	}
	f.Add(`{"a":{"id":1,"x":{"id":2}},"id":3,"number":[4,{"number":5}]}`, `[{"id":{"id":1}}]`)
	f.Add(`{"token": ["hunter2-secret", {"a": "x", "password": "p"}], "ts": "1763820000", "exp": 1763820000123}`, `"abc1234f"`)
	f.Add(`[{"user": {"login": "octocat #12"}}, {"user": {"login": 7}}]`, `{"items": [{"number": 1}, {"number": "2"}]}`)
	f.Add(`{"a": "x", "a": 1763820000, "ts": "<unix>"}`, `{"a": [1, {"b": true}, {"b": null}]}`)
	f.Add(`[true, false, null, -0.5e+3, "\u00e9\ud83d\ude00\"", "\/"]`, " 42 \n")
	f.Add(`{"a":`, `{"a" 1}`)
	pipes := streamPipelines(f)
	f.Fuzz(func(t *testing.T, doc1, doc2 string) {
		for name, p := range pipes {
			sst, tst := NewState(), NewState()
			for _, doc := range []string{doc1, doc2} {
				_, perr := parseJSON([]byte(doc))
				root, serr := p.stream.scan([]byte(doc))
				// (Where it gives up, the tree engine is what judges the document.)
				if serr == nil && perr != nil || serr != nil && serr != errBail && perr == nil {
					t.Fatalf("%s: on %q the scan says %v, parseJSON %v", name, doc, serr, perr)
				}
				if root == nil {
					continue
				}
				got := p.json(sst, root, []byte(doc))
				want, _ := treeJSON(p, tst, []byte(doc))
				if !bytes.Equal(got, want) {
					t.Fatalf("%s on %q:\nstreamed %q\ntree     %q", name, doc, got, want)
				}
			}
			if sv, tv := stateView(sst), stateView(tst); !reflect.DeepEqual(sv, tv) {
				t.Fatalf("%s on %q then %q: the States differ:\nstreamed %+v\ntree     %+v", name, doc1, doc2, sv, tv)
			}
		}
	})
}

// TestStreamTakesCommonBodies: the benchmark's page and a JSON body are
// streamed (the bench measures the streamed engine, not a fall-back), and
// what the stream cannot do goes to the tree.
func TestStreamTakesCommonBodies(t *testing.T) {
	pipes := streamPipelines(t)
	if _, err := pipes["bench"].stream.scan(jsonBody(64 << 10)); err != nil {
		t.Errorf("the benchmark's page is not streamed: %v", err)
	}
	for _, tc := range []struct {
		pipe, doc string
		want      error
	}{
		{"paths", `{"id": 1, "a": [{"b": 2}, {"b": "x"}]}`, nil},
		{"paths", `{"id": {"x": 1}}`, errBail}, // ..id selects an object
		{"paths", `[[1]]`, errBail},            // $[0] selects an array
		{"root", `"9f1c3a2e-1b7d-4c8e-9a55-0d1e2f3a4b5c"`, nil},
		{"root", `{"a": "b"}`, errBail}, // $ selects the document
		{"bench", `{"a": [1, 2, "x"]}`, nil},
	} {
		_, err := pipes[tc.pipe].stream.scan([]byte(tc.doc))
		if err != tc.want {
			t.Errorf("%s on %s: %v, want %v", tc.pipe, tc.doc, err, tc.want)
		}
	}
	for _, names := range [][]string{{"json.canonical"}, {"json.path:$[0,1]"}, {"json.path:$..a.b"}, {"json.path:$[-1]"}, {"json.path:$[1:]"}} {
		p, err := Builtins().Pipeline(names, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if p.stream != nil {
			t.Errorf("%v is streamed; the tree engine is what gets it right", names)
		}
	}
	// A body the tree engine takes after the scan gave up is normalized.
	p := pipes["paths"]
	out := p.Body(NewState(), "application/json", []byte(`{"id": {"x": 1}}`))
	if !strings.Contains(string(out), `"id": "<id:1>"`) {
		t.Errorf("fall-back to the tree: %s", out)
	}
}

// stateView is what a State holds.
func stateView(st *State) map[string]any {
	v := map[string]any{"shaPre": st.shaPre, "shaIndexed": st.shaIndexed, "shaShort": st.shaShort}
	for kind, k := range st.kinds {
		ids := map[string]int{}
		for _, e := range k.entries {
			ids[e.v] = int(e.n)
		}
		v[kind] = fmt.Sprint(k.count, ids)
	}
	return v
}

// TestStreamKeepsNothingOfTheBody: the streamed engine reads a document in
// place only for pipelines of this package's normalizers, and what stays
// after a call (the State's values, what a project's normalizer kept) is
// not changed by the caller reusing the body's bytes.
func TestStreamKeepsNothingOfTheBody(t *testing.T) {
	r := Builtins()
	var kept []string
	if err := r.Register("keeper", func(string, Options) (Normalizer, error) {
		return Normalizer{Text: func(s string, _ *State) string { kept = append(kept, s); return s }}, nil
	}); err != nil {
		t.Fatal(err)
	}
	const doc = `{"id": "9f1c3a2e-1b7d-4c8e-9a55-0d1e2f3a4b5c", "note": "kept"}`
	for _, tc := range []struct {
		names []string
		alias bool
	}{
		{[]string{"uuid", "json.path:$.id"}, true},
		{[]string{"uuid", "keeper"}, false},
	} {
		p, err := r.Pipeline(tc.names, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if p.stream == nil || p.stream.alias != tc.alias {
			t.Errorf("%v: streamed %v, reads in place %v; want in place %v", tc.names, p.stream != nil, p.stream != nil && p.stream.alias, tc.alias)
		}
		kept = nil
		st := NewState()
		body := []byte(doc)
		out := string(p.Body(st, "application/json", body))
		for i := range body {
			body[i] = 'x'
		}
		if !strings.Contains(out, "<uuid:1>") || strings.Contains(out, "x") {
			t.Errorf("%v: %s", tc.names, out)
		}
		if v := st.Values()["uuid"][1]; v != "9f1c3a2e-1b7d-4c8e-9a55-0d1e2f3a4b5c" {
			t.Errorf("%v: the State's uuid 1 is %q after the body was reused", tc.names, v)
		}
		if !tc.alias && (len(kept) == 0 || slices.ContainsFunc(kept, func(s string) bool { return strings.Contains(s, "x") })) {
			t.Errorf("%v: what the project's normalizer kept changed with the body: %q", tc.names, kept)
		}
	}
}

// TestStreamInPlaceCopiesNothing: a pipeline that reads a document in
// place does not copy it (the scan of a 1 MiB document in which nothing
// is volatile allocates a fraction of it), and one that cannot does
// (which shows that the measure sees a copy).
func TestStreamInPlaceCopiesNothing(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("[")
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, `{"n": %d, "word": "frobnicator", "ok": true},`, i)
	}
	body := append(b.Bytes(), `null]`...)
	r := Builtins()
	if err := r.Register("project", func(string, Options) (Normalizer, error) {
		return Normalizer{Text: func(s string, _ *State) string { return s }}, nil
	}); err != nil {
		t.Fatal(err)
	}
	scanned := func(names []string) (perScan uint64, inPlace bool) {
		p, err := r.Pipeline(names, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		const n = 4
		for range n {
			if _, err := p.stream.scan(body); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		return (after.TotalAlloc - before.TotalAlloc) / n, p.stream.alias
	}
	if got, inPlace := scanned([]string{"uuid", "sha:full"}); !inPlace || got > uint64(len(body))/8 {
		t.Errorf("a scan in place allocates %d bytes a %d-byte document (in place: %v)", got, len(body), inPlace)
	}
	if got, inPlace := scanned([]string{"uuid", "project"}); inPlace || got < uint64(len(body)) {
		t.Errorf("a scan that copies allocates %d bytes a %d-byte document (in place: %v)", got, len(body), inPlace)
	}
}

// TestStreamReusesNodes: a pipeline gives the nodes of a document it has
// written to the next (normalizing a second 1 MiB page allocates less
// than the first by much of what its leaves take), and what it writes
// with reused nodes is what a pipeline of its own writes: nothing of the
// first page is left in them.
func TestStreamReusesNodes(t *testing.T) {
	names := []string{"uuid", "sha:full", "timestamps.ISO8601", "json.path:$[*].id"}
	first := jsonBody(1 << 20)
	second := bytes.ReplaceAll(first, []byte(`"open"`), []byte(`"9f1c3a2e-1b7d-4c8e-9a55-0d1e2f3a4b5c"`))
	p, err := Builtins().Pipeline(names, Options{})
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := Builtins().Pipeline(names, Options{})
	if err != nil {
		t.Fatal(err)
	}
	root, err := fresh.stream.scan(second)
	if err != nil {
		t.Fatal(err)
	}
	leaves := 0
	for _, c := range root.doc.nodes {
		leaves += len(c)
	}
	if leaves < 10*nodeChunk {
		t.Fatalf("the page has %d leaves: too few to fill chunks", leaves)
	}
	want := fresh.Body(NewState(), "application/json", second)

	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // a collection empties the pool
	allocated := func(body []byte) (uint64, []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		out := p.Body(NewState(), "application/json", body)
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc, out
	}
	a1, _ := allocated(first)
	a2, got := allocated(second)
	if !bytes.Equal(got, want) {
		t.Fatalf("with the nodes of the first page, the second normalizes differently")
	}
	// A quarter, not all: under the race detector a pool drops a quarter
	// of what it is given, at random.
	nodes := uint64(leaves) * uint64(unsafe.Sizeof(jsonNode{}))
	if a2+nodes/4 > a1 {
		t.Errorf("normalizing the first page allocated %d bytes, the second %d: its %d leaves take %d", a1, a2, leaves, nodes)
	}
}

// FuzzSkipPlain: the word-at-a-time skip of a string's plain bytes stops at
// the first byte that is not plain (plainStringByte), or short of it only
// in the last 8 bytes, which the byte loop after it reads.
func FuzzSkipPlain(f *testing.F) {
	for _, s := range []string{"", "abcdefgh", "abcdefg\"", "abc\\defghijklmnop", "0123456789abcdef\x1f", "héllo wörld, and more",
		"\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x80", "        !!!!!!!!\"\"", "\x00abcdefghijkl", "abcdefgh\x21\x23\x5b\x5d\x20\x1f"} {
		f.Add([]byte(s), 0)
		f.Add([]byte(s), 3)
	}
	f.Fuzz(func(t *testing.T, src []byte, i int) {
		if i < 0 || i > len(src) {
			return
		}
		j := i
		for j < len(src) && plainStringByte[src[j]] {
			j++
		}
		if r := skipPlain(src, i); r < i || r > j || r < j && r+8 <= len(src) {
			t.Fatalf("skipPlain(%q, %d) = %d; the first byte that is not plain is at %d", src, i, r, j)
		}
	})
}

// FuzzScanPlain: the scan of a JSON string that finds its end gives what
// scanText gives of the plain bytes before it, and stops at the first byte
// that is not plain.
func FuzzScanPlain(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add(s)
	}
	f.Add(`a\"b`)
	f.Add("héllo")
	f.Add("sk-ant-api03 \x01")
	red := newRedactor(map[string]string{"TOKEN": "hunter2-secret"}, nil)
	f.Fuzz(func(t *testing.T, x string) {
		doc := `"` + x + `"`
		j := 0
		for j < len(x) && plainStringByte[x[j]] {
			j++
		}
		for _, set := range []*byteSet{&noTriples, red.prefilter()} {
			end, gf, gh := scanPlain(doc, 1, set)
			wf, wh := scanText(x[:j], set)
			if end != 1+j || gf != wf || gh != wh {
				t.Fatalf("scanPlain(%q) = %d, %b, %v; the first byte not plain is at %d, scanText of what is before it %b, %v", doc, end, gf, gh, 1+j, wf, wh)
			}
		}
	})
}

// TestStreamGuessedNames: the scan takes a member name it guessed (the
// name that followed the previous one last time) only where the source
// holds exactly that name between quotes, and gives it the verdict of that
// name: a name read from escapes is not guessed where the same bytes
// unescaped are not JSON, a longer or shorter name is read as itself, and
// what follows the name is still checked.
func TestStreamGuessedNames(t *testing.T) {
	p := streamPipelines(t)["bench"]
	for _, doc := range []string{
		"[{\"a\\\"b\":1},{\"a\"b\":1}]",   // a quote, escaped then bare
		"[{\"a\\nb\":1},{\"a\nb\":1}]",    // a newline, escaped then raw
		"[{\"a\\\\q\":1},{\"a\\q\":1}]",   // a backslash, escaped then bare
		`[{"id":1,"x":2},{"id" 1,"x":2}]`, // no ':' after a guessed name
		`[{"id":1,"x":2},{"id":1,"x":}]`,  // no value after a guessed name
	} {
		if _, err := p.stream.scan([]byte(doc)); err == nil || err == errBail {
			t.Errorf("scan of %q: %v, want an error", doc, err)
		}
	}
	for _, doc := range []string{
		`[{"to":"hunter2"},{"token":"hunter2"},{"to":"hunter2"}]`,
		`[{"token":"hunter2"},{"to":"hunter2"},{"token":"hunter2"}]`,
		`[{"token":"a","b":"c"},{"toke\u006e":"b","b":"c"},{"token":"a","b":"c"}]`,
		`[{"a\"b":"x","token":"y"},{"a\"b":"x","token":"y"}]`,
		`[{"created_at":"x","n":1763820000},{"created":"x","n":1763820000}]`,
	} {
		root, err := p.stream.scan([]byte(doc))
		if err != nil {
			t.Fatalf("scan of %q: %v", doc, err)
		}
		got := p.json(NewState(), root, []byte(doc))
		want, _ := treeJSON(p, NewState(), []byte(doc))
		if !bytes.Equal(got, want) {
			t.Errorf("on %q:\nstreamed %q\ntree     %q", doc, got, want)
		}
		if strings.Count(doc, `"token"`)+strings.Count(doc, `"toke\u006e"`) != strings.Count(string(got), redactedJSON) {
			t.Errorf("on %q: %q redacts another count of token values", doc, got)
		}
	}
}

const redactedJSON = `"[REDACTED]"`

// TestStreamNameProgressByObject: a member's progress along a path is kept
// per name and per its object's progress, not per name alone: the same
// name one level down a path is selected where the path says so only.
func TestStreamNameProgressByObject(t *testing.T) {
	p, err := Builtins().Pipeline([]string{"json.path:$.a.a", "json.path:$[*].b.b"}, Options{})
	if err != nil || p.stream == nil {
		t.Fatalf("not streamed: %v", err)
	}
	for doc, kept := range map[string][]string{
		`{"a": {"a": "x", "b": {"a": "y"}}, "c": {"a": "z"}}`:                 {`"y"`, `"z"`},
		`[{"b": {"b": "x", "c": {"b": "y"}}}, {"b": "z"}, {"c": {"b": "w"}}]`: {`"y"`, `"z"`, `"w"`},
	} {
		got, ok := p.JSON(NewState(), []byte(doc))
		want, _ := treeJSON(p, NewState(), []byte(doc))
		if !ok || !bytes.Equal(got, want) {
			t.Errorf("on %s:\nstreamed %s\ntree     %s", doc, got, want)
		}
		for _, k := range kept {
			if !bytes.Contains(got, []byte(k)) {
				t.Errorf("on %s: %s lost %s", doc, got, k)
			}
		}
		if bytes.Contains(got, []byte(`"x"`)) {
			t.Errorf("on %s: %s kept the selected \"x\"", doc, got)
		}
	}
}

// TestStreamNameSlotReused: where two names share a slot of the scanner's
// names, the second's verdict and progress along the paths are its own,
// not the answers kept for the first.
func TestStreamNameSlotReused(t *testing.T) {
	other := ""
	for i := 0; other == ""; i++ {
		if k := fmt.Sprintf("k%d", i); nameSlot(k) == nameSlot("id") {
			other = k
		}
	}
	p, err := Builtins().Pipeline([]string{"json.path:$[*].id"}, Options{})
	if err != nil || p.stream == nil {
		t.Fatalf("not streamed: %v", err)
	}
	doc := fmt.Sprintf(`[{"id": "a", %q: "b"}, {%q: "c", "id": "d"}, {"id": "e"}]`, other, other)
	got, _ := p.JSON(NewState(), []byte(doc))
	want, _ := treeJSON(p, NewState(), []byte(doc))
	if !bytes.Equal(got, want) {
		t.Errorf("on %s:\nstreamed %s\ntree     %s", doc, got, want)
	}
	for _, k := range []string{`"b"`, `"c"`} {
		if !bytes.Contains(got, []byte(k)) {
			t.Errorf("%s: the value under %s was taken for one under id", got, other)
		}
	}
}
