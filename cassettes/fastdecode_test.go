package cassettes

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cassette-dev/cassette/internal/cfgschema"

	"go.yaml.in/yaml/v3"
)

// yamlItems decodes a block sequence of interactions as parseBatch's
// yaml.v3 path does; ok is false when that path would not take it whole.
func yamlItems(text []byte) ([]Interaction, bool) {
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.SequenceNode {
		return nil, false
	}
	out := make([]Interaction, len(doc.Content[0].Content))
	for i, n := range doc.Content[0].Content {
		if n.Kind != yaml.MappingNode || n.Decode(&out[i]) != nil {
			return nil, false
		}
	}
	return out, true
}

// itemCount is how many items the fast reader would be asked for: the
// lines that start "- " at the first line's indentation.
func itemCount(text []byte) int {
	n, ind := 0, -1
	for _, l := range bytes.Split(text, []byte("\n")) {
		t := bytes.TrimLeft(l, " ")
		if len(t) == 0 {
			continue
		}
		if ind < 0 {
			ind = len(l) - len(t)
		}
		if len(l)-len(t) == ind && bytes.HasPrefix(t, []byte("- ")) {
			n++
		}
	}
	return n
}

// interactionsOf is the interactions block of a cassette file's bytes, as
// the split parse hands it out, or nil.
func interactionsOf(data []byte) []byte {
	s := findSection(data)
	if s == nil || len(s.items) == 0 {
		return nil
	}
	return data[s.items[0].off:s.end]
}

// FuzzFastDecodeAgreesWithYAML: whatever the fast reader accepts, yaml.v3
// decodes to the same interactions (reflect.DeepEqual: nil and empty told
// apart). Seeds: the writer's output for odd values, and the interactions
// of every real go-vcr cassette under ../shared/testdata.
func FuzzFastDecodeAgreesWithYAML(f *testing.F) {
	for _, c := range oddCassettes() {
		data, err := Marshal(c)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(interactionsOf(data)))
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "shared", "testdata", "*", "*", "*.yaml"))
	more, _ := filepath.Glob(filepath.Join("..", "..", "shared", "testdata", "*", "*.yaml"))
	for _, p := range append(files, more...) {
		if data, err := os.ReadFile(p); err == nil {
			if b := interactionsOf(data); b != nil {
				f.Add(string(b))
			}
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		n := itemCount([]byte(text))
		got := make([]Interaction, n)
		shared := make([]Interaction, n)
		accepted, sharedOK := fastItems([]byte(text), got, false), fastItems([]byte(text), shared, true)
		if accepted != sharedOK || accepted && !reflect.DeepEqual(got, shared) {
			t.Fatalf("on\n%s\nsharing headers, the fast reader reads %v %#v, else %v %#v", text, sharedOK, shared, accepted, got)
		}
		if !accepted {
			return
		}
		want, ok := yamlItems([]byte(text))
		if !ok {
			t.Fatalf("the fast reader accepted what yaml.v3 does not decode:\n%s", text)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("on\n%s\nfast: %#v\nyaml: %#v", text, got, want)
		}
	})
}

// TestFastDecodeReadsTheWriter: the writer's output, for odd values and
// for generated ones, is read by the fast reader and comes back as it was
// written; it declines only what odd says.
func TestFastDecodeReadsTheWriter(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	list := oddCassettes()
	for range 300 {
		list = append(list, randomCassette(r))
	}
	for i, c := range list {
		breaks := false
		for _, it := range c.Interactions {
			for _, h := range []http.Header{it.Request.Headers, it.Response.Headers} {
				for _, vs := range h {
					breaks = breaks || odd(strings.Join(vs, ""))
				}
			}
			breaks = breaks || odd(it.Request.URL+it.Response.Status)
		}
		data, err := Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		text := interactionsOf(data)
		got := make([]Interaction, len(c.Interactions))
		if !fastItems(text, got, false) {
			if !breaks {
				t.Fatalf("cassette %d: the fast reader declined the writer's output:\n%s", i, text)
			}
			continue
		}
		if shared := make([]Interaction, len(got)); !fastItems(text, shared, true) || !reflect.DeepEqual(shared, got) {
			t.Fatalf("cassette %d: sharing headers, read %#v, else %#v", i, shared, got)
		}
		back := *c
		back.Interactions = got
		again, err := Marshal(&back)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, data) {
			t.Fatalf("cassette %d: read back differently:\nwrote\n%s\nread\n%s", i, data, again)
		}
		if want, ok := yamlItems(text); !ok || !reflect.DeepEqual(got, want) {
			t.Fatalf("cassette %d: yaml.v3 reads %#v, the fast reader %#v", i, want, got)
		}
	}
}

// odd reports whether the writer may put s in a form the fast reader
// leaves to yaml.v3: over several lines, !!binary, or raw characters YAML
// may read as line breaks (NEL, LS, PS) or a BOM.
func odd(s string) bool {
	return strings.ContainsAny(s, "\n\r\u0085\u2028\u2029\ufeff") || !utf8.ValidString(s)
}

// TestFastDecodeDeclines: what the writer never makes is left to yaml.v3.
func TestFastDecodeDeclines(t *testing.T) {
	for _, text := range []string{
		"- id: 0 # a comment\n",
		"- id: &a 0\n",
		"- id: 0\n  request:\n    url: !!str x\n",
		"- id: 0\n  request:\n    url: x\n    url: y\n",
		"- id: 0\n  request:\n    uri: x\n",
		"- id: 0\n  request:\n    url: a\n      b\n",
		"- id: 0\n  request:\n    url: ~\n",
		"- id: 0\n  request:\n    headers: {A: [b]}\n",
		"- id: 0\n  request:\n    url: \"a\n      b\"\n",
		"- id: 0\r\n",
		"- id: 007\n",
		"- id: 0\n  response:\n    body: |2\n        x\n",
		"- id: 0\n  response:\n    code: \"200\"\n",
	} {
		if fastItems([]byte(text), make([]Interaction, 1), false) {
			t.Errorf("accepted %q", text)
		}
	}
}

// oddCassettes hold the values at the edges of the writer's choices.
func oddCassettes() []*Cassette {
	h := http.Header{"X-Long": {strings.Repeat("abc def ", 30)}, "Empty": {""}, "Null": {"null"}, "Num": {"123"},
		"Colon": {"a: b"}, "Hash": {"a #b"}, "Quote": {`"q" 'q'`}, "Lead": {" x", "-", "- x", "?", ": x"}, "Tab": {"a\tb"},
		"Uni": {"é \u2028 \u0085 \ufeff"}, "Ctl": {"\x00\x07\x1b"}, "True": {"true", "yes", "~", "1.5", "0x1F"}, "A": {}}
	return []*Cassette{{Cassette: 1, Version: 2, Adapter: "a", Scenario: "s", Kind: cfgschema.KindHTTP, Interactions: []Interaction{
		{ID: 7, Request: Request{Method: "GET", URL: "https://x/y?a=1#f", Headers: h, Body: "line1\r\nline2  \n",
			Form: map[string][]string{"q": {"1"}, "e": {}}, TransferEncoding: []string{"chunked"}, Trailer: http.Header{"X-T": {"v"}},
			Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, ContentLength: -1, Host: "x:443", RemoteAddr: "1.2.3.4:5", RequestURI: "/y?a=1"},
			Response: Response{Code: 200, Status: "200 OK", Body: Body("\xff\xfe" + strings.Repeat("z", 200)), Headers: http.Header{},
				Duration: Duration(1500000), EventTimes: []Duration{1, 2000000}, Uncompressed: true, ContentLength: 202, BodyFile: ""}},
		{Request: Request{Method: "POST", URL: "u", Body: Body(strings.Repeat("a long single line body with spaces ", 10))},
			Response: Response{Code: 599, Body: "\n\nleading blank\nlines\n\n\n", Headers: http.Header{"A": {}}}},
		{Request: Request{Method: "POST", URL: "u", Body: "  indented\nsecond\n"},
			Response: Response{Code: 200, Body: "tab\there\nand é ü\n\n\nkept\n\n\n", Headers: http.Header{"Content-Type": {"text/plain"}}}},
		{Request: Request{Method: "PUT", URL: "u", Body: "no newline at the end\nof this"},
			Response: Response{Code: 204, Body: "x", Duration: Duration(-5), EventTimes: []Duration{}}},
		{Request: Request{Method: "GET", URL: "u", BodyFile: "bodies/sha256-00.bin"},
			Response: Response{Code: 200, Body: "{\n  \"a\": 1,\n    \"deep\": [\n\n      2\n    ]\n}\n"}},
	}}}
}

// randomCassette is a cassette of random printable and unprintable values.
func randomCassette(r *rand.Rand) *Cassette {
	alphabet := []string{"a", "Z", "0", " ", "\t", "\n", "\r", ":", "#", "-", "'", "\"", "\\", "|", "é", "\u2028", "\x00", "\xff", "{", "}", "[", "]", "&", "*", "!", "%", "@", "`", "~", "null", "true", "12", ": ", " #", "\n\n"}
	str := func(max int) string {
		var b strings.Builder
		for range r.IntN(max + 1) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	c := &Cassette{Cassette: 1, Version: 2, Adapter: "a", Scenario: "s"}
	for i := range 1 + r.IntN(4) {
		h := http.Header{}
		for range r.IntN(4) {
			h["X-"+fmt.Sprint(r.IntN(100))] = []string{str(6), str(3)}
		}
		c.Interactions = append(c.Interactions, Interaction{ID: i,
			Request:  Request{Method: "GET", URL: "https://x/" + str(4), Headers: h, Body: Body(str(12))},
			Response: Response{Code: 200 + r.IntN(300), Status: str(3), Body: Body(str(20)), Headers: h, Duration: Duration(r.Int64N(1e10))}})
	}
	return c
}

// FuzzFastDecodeWriterValues: any values written by the writer are read
// back by the fast reader as yaml.v3 reads them, and are read at all
// unless odd.
func FuzzFastDecodeWriterValues(f *testing.F) {
	f.Add("GET", "https://x/y?a=1", "X-A", "v", "body\n", "200 OK", int64(12))
	f.Add("", ": ", "\"Null\"", "- x", "  lead\n\n\ntrail\n\n", "", int64(-1))
	f.Fuzz(func(t *testing.T, method, u, hk, hv, body, status string, dur int64) {
		if hk == "" {
			hk = "X"
		}
		c := &Cassette{Cassette: 1, Version: 2, Interactions: []Interaction{{
			Request:  Request{Method: method, URL: u, Headers: http.Header{hk: {hv, hv + hv}}, Body: Body(body)},
			Response: Response{Code: 200, Status: status, Body: Body(body + body), Headers: http.Header{hk: {hv}}, Duration: Duration(dur)},
		}}}
		data, err := Marshal(c)
		if err != nil {
			return
		}
		text := interactionsOf(data)
		if text == nil {
			return // a key in a value fooled the scanner: the split parse is not used
		}
		got := make([]Interaction, 1)
		if !fastItems(text, got, false) {
			if !odd(method) && !odd(u) && !odd(hk) && !odd(hv) && !odd(status) {
				t.Fatalf("declined the writer's output:\n%s", text)
			}
			return
		}
		want, ok := yamlItems(text)
		if !ok || !reflect.DeepEqual(got, want) {
			t.Fatalf("on\n%s\nfast: %#v\nyaml: %#v", text, got, want)
		}
	})
}

// TestFastDecodeSharesHeaders: sharing, the blocks of headers with the
// same text get the same map, the others their own, and the interactions
// read are what they are without sharing.
func TestFastDecodeSharesHeaders(t *testing.T) {
	var its []Interaction
	for i := range 5 {
		it := benchInteraction(i)
		if i == 3 {
			it.Request.Headers = http.Header{"Accept": {"text/plain"}}
		}
		its = append(its, it)
	}
	data, err := Marshal(&Cassette{Cassette: 1, Version: 2, Adapter: "a", Scenario: "s", Kind: cfgschema.KindHTTP, Interactions: its})
	if err != nil {
		t.Fatal(err)
	}
	text := interactionsOf(data)
	got, plain := make([]Interaction, len(its)), make([]Interaction, len(its))
	if !fastItems(text, got, true) || !fastItems(text, plain, false) {
		t.Fatalf("declined:\n%s", text)
	}
	if !reflect.DeepEqual(got, plain) || !reflect.DeepEqual(got, its) {
		t.Fatalf("read %#v\nwithout sharing %#v", got, plain)
	}
	same := func(a, b http.Header) bool {
		return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
	}
	for i, it := range got {
		if want := i != 3; same(it.Request.Headers, got[0].Request.Headers) != want {
			t.Errorf("interaction %d: request headers shared with the first: %v, want %v", i, !want, want)
		}
		if i > 0 && same(it.Response.Headers, got[0].Response.Headers) {
			t.Errorf("interaction %d: response headers (another Etag) shared with the first", i)
		}
	}
	if same(plain[0].Request.Headers, plain[1].Request.Headers) {
		t.Error("headers shared when not asked for")
	}
}

// TestLoadShareHeaders: a large file loads the same with and without
// LoadOptions.ShareHeaders.
func TestLoadShareHeaders(t *testing.T) {
	p := writeBenchCassettes(t, t.TempDir(), 500, 1)[0]
	if st, err := os.Stat(p); err != nil || st.Size() < int64(splitBytes) {
		t.Fatalf("the file must be split: %v %v", st, err)
	}
	a, err := Load(p, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load(p, LoadOptions{ShareHeaders: true})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Interactions, b.Interactions) {
		t.Fatal("the interactions differ")
	}
	if reflect.ValueOf(b.Interactions[0].Request.Headers).UnsafePointer() != reflect.ValueOf(b.Interactions[1].Request.Headers).UnsafePointer() {
		t.Error("the same request headers are not shared")
	}
}
