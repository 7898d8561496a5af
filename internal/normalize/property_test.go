package normalize

import (
	"bytes"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"testing/quick"
	"unicode/utf8"
)

// every built-in and family, so that properties cover all of them at once.
var allNames = []string{
	"redact.credentials", "timestamps.ISO8601", "timestamps.RFC1123", "timestamps.ANSIC", "timestamps.unix",
	"sha:full", "sha:short", "uuid", "headers.volatile", "header:X-Foo", "ports", "paths.tmp",
	"whitespace.trailing", "json.path:$..id", "json.canonical", "pr",
}

func fullPipeline(tb testing.TB) *Pipeline {
	tb.Helper()
	r := Builtins()
	if err := r.Define("pr", Definition{Regex: `#\d+`}); err != nil {
		tb.Fatal(err)
	}
	p, err := r.Pipeline(allNames, Options{WorkDir: "/work/app", TempDirs: []string{"/tmp"}, Credentials: map[string]string{"TOKEN": "hunter2-secret"}})
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// volatileText builds text from fragments that the normalizers rewrite,
// mixed with noise, so that random inputs actually exercise them.
type volatileText string

func (volatileText) Generate(r *rand.Rand, size int) reflect.Value {
	frags := []string{
		"2026-11-22T14:00:00Z", "Sat, 22 Nov 2026 14:00:00 GMT", "Sat Nov 22 14:00:00 2026 +0000",
		"9f1c3a2e-1b7d-4c8e-9a55-0d1e2f3a4b5c", "6dcb09b5b57875f334f61aebed695e2e4193db5e", "6dcb09b",
		"127.0.0.1:8080", "/tmp/x1/y", "/work/app/z", "#12", "hunter2-secret", "ts=1763820000",
		" ", "\t", "\n", "\r\n", "{", "}", "\"", "<", ">", ":", "abc", "é", "\xff", "\x00", "-",
		`{"id":17,"created_at":1763820000}`, "data: ", "<uuid:1>",
	}
	var b strings.Builder
	for i := r.Intn(size + 1); i > 0; i-- {
		b.WriteString(frags[r.Intn(len(frags))])
	}
	return reflect.ValueOf(volatileText(b.String()))
}

func TestPropertiesQuick(t *testing.T) {
	p := fullPipeline(t)
	cfg := &quick.Config{MaxCount: 400}
	modes := []struct{ name, ctype string }{
		{"text", "text/plain"}, {"json", "application/json"}, {"sse", "text/event-stream"},
		{"jsonl", "application/x-ndjson"}, {"sniffed", ""},
	}
	for _, m := range modes {
		t.Run("idempotent "+m.name, func(t *testing.T) {
			f := func(in volatileText) bool {
				once := p.Body(NewState(), m.ctype, []byte(in))
				twice := p.Body(NewState(), m.ctype, once)
				if !bytes.Equal(once, twice) {
					t.Logf("in %q\nonce %q\ntwice %q", in, once, twice)
				}
				return bytes.Equal(once, twice)
			}
			if err := quick.Check(f, cfg); err != nil {
				t.Error(err)
			}
		})
		t.Run("deterministic "+m.name, func(t *testing.T) {
			f := func(in volatileText) bool {
				return bytes.Equal(p.Body(NewState(), m.ctype, []byte(in)), p.Body(NewState(), m.ctype, []byte(in)))
			}
			if err := quick.Check(f, cfg); err != nil {
				t.Error(err)
			}
		})
	}
	t.Run("binary-safe", func(t *testing.T) {
		// Bytes that are not UTF-8 pass through unchanged unless they hold a credential.
		f := func(in []byte) bool {
			in = append([]byte{0xff}, in...)
			if bytes.Contains(in, []byte("hunter2-secret")) {
				return true
			}
			out := p.Body(NewState(), "application/octet-stream", in)
			return bytes.Equal(out, in)
		}
		if err := quick.Check(f, cfg); err != nil {
			t.Error(err)
		}
	})
	t.Run("no credential survives", func(t *testing.T) {
		f := func(in volatileText) bool {
			return !bytes.Contains(p.Body(NewState(), "", []byte(in)), []byte("hunter2-secret"))
		}
		if err := quick.Check(f, cfg); err != nil {
			t.Error(err)
		}
	})
}

// FuzzBody checks, on arbitrary bytes and content types, that normalizing
// never panics, is idempotent, and leaves non-UTF-8 bodies alone apart from
// credential redaction.
func FuzzBody(f *testing.F) {
	for _, tc := range normCases() {
		f.Add(tc.ctype, []byte(tc.in))
	}
	f.Add("application/json", []byte(`{"a":[1,{"b":"\ud83d\ude00"}],"id":"x"}`))
	f.Add("text/event-stream", []byte("data: {\"id\":1}\r\n\r\n"))
	p := fullPipeline(f)
	f.Fuzz(func(t *testing.T, ctype string, in []byte) {
		once := p.Body(NewState(), ctype, in)
		twice := p.Body(NewState(), ctype, once)
		if !bytes.Equal(once, twice) {
			t.Fatalf("not idempotent:\nin    %q\nonce  %q\ntwice %q", in, once, twice)
		}
		if !utf8.Valid(in) && !bytes.Contains(in, []byte("hunter2-secret")) && !bytes.Equal(once, in) {
			// redaction of known key formats may still apply
			if bytes.Equal(once, p.redactOnly(in)) {
				return
			}
			t.Fatalf("binary body changed:\nin  %q\nout %q", in, once)
		}
	})
}

// FuzzJSONPath checks that the JSONPath parser never panics and that a
// query it accepts can be evaluated on any document.
func FuzzJSONPath(f *testing.F) {
	for _, s := range []string{"$", "$..a[1:2:-1]", "$['a','b'][*]", "$.a[-3]", "$[?x]", "$..*"} {
		f.Add(s, `{"a":[1,2,{"a":3}],"b":{"c":null}}`)
	}
	f.Fuzz(func(t *testing.T, path, doc string) {
		p, err := ParseJSONPath(path)
		if err != nil {
			return
		}
		if root, err := parseJSON([]byte(doc)); err == nil {
			_ = p.selectNodes(root)
		}
	})
}

func (p *Pipeline) redactOnly(b []byte) []byte { return []byte(p.redact.Text(string(b), nil)) }

func ExampleRegistry_Pipeline() {
	r := Builtins()
	_ = r.Define("pr_number", Definition{JSONPaths: []string{"$..number"}})
	p, err := r.Pipeline([]string{"uuid", "timestamps.ISO8601", "pr_number", "json.canonical"}, Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	st := NewState() // one per cassette
	fmt.Printf("%s\n", p.Body(st, "application/json", []byte(`{"number": 7, "id": "9f1c3a2e-1b7d-4c8e-9a55-0d1e2f3a4b5c", "at": "2026-11-22T14:00:00Z"}`)))
	fmt.Printf("%s\n", p.Body(st, "application/json", []byte(`{"parent": "9f1c3a2e-1b7d-4c8e-9a55-0d1e2f3a4b5c", "number": 8}`)))
	_, err = r.Pipeline([]string{"timestamps.iso"}, Options{})
	fmt.Println(err.(*UnknownError).Suggestion)
	// Output:
	// {"at":"<ISO8601>","id":"<uuid:1>","number":"<pr_number:1>"}
	// {"number":"<pr_number:2>","parent":"<uuid:1>"}
	// did you mean `timestamps.ISO8601`?
}
