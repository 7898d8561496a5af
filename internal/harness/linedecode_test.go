package harness

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// jsonLine decodes a line as check did before lineDecoder: Decoder with
// DisallowUnknownFields; end is the offset after the value.
func jsonLine(data []byte) (l Line, end int, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err = dec.Decode(&l)
	return l, int(dec.InputOffset()), err
}

// The lines the bindings write (Python's json with its ASCII escapes,
// Node's JSON.stringify with UTF-8 as it is), and strings that need care.
var bindingLines = []string{
	// python/cassette_pytest/case.py: _line, check_cli, check_error
	`{"id":"greet/hello","file":"cassettes/greet/hello.yaml","replay":"tests/test_greet.py::test_hello","test":"tests/test_greet.py::test_hello","cli":{"exit_code":0,"stdout":"Hello, Ada!\n","stderr":""},"duration_ms":0.8123409999999999}` + "\n",
	`{"id":"greet/hello","file":"cassettes/greet/hello.yaml","cli":{"exit_code":1,"stdout":"caf\u00e9 \ud83d\ude00 \u2028","stderr":"boom\r\n\t\"q\" \\"},"duration_ms":1.2e-05}` + "\n",
	`{"id":"greet/hello","file":"cassettes/greet/hello.yaml","error":"FileNotFoundError: [Errno 2] No such file: 'x'","duration_ms":3.0}` + "\n",
	`{"id":"greet/hello","file":"cassettes/greet/hello.yaml","cli":{"exit_code":0,"stdout_base64":"/w==","stderr":""}}` + "\n",
	`{"type":"cases","adapter":"greet","protocol":1}` + "\n",
	`{"id":"items/create-then-get","file":"cassettes/items/create-then-get.yaml","type":"next","http":{"responses":[{"status":201,"headers":{"Content-Type":["application/json"]},"body":"{\"id\":7}"}]}}` + "\n",
	// js/cassette.mjs: lineOf, checkCLI
	`{"id":"greet/hello","file":"cassettes/greet/hello.yaml","replay":"--test-name-pattern=\"^hello$\"","test":"greets \"Ada\"","cli":{"exit_code":0,"stdout":"Hello, Ada! é ✓ 😀\n","stderr":""},"duration_ms":12.345600000000001}` + "\n",
	`{"id":"greet/hello","file":"cassettes/greet/hello.yaml","cli":{"exit_code":-1,"stdout":"lone \udc00 \ud800","stderr":""},"duration_ms":0}`,
	// strings and numbers that need care
	"{\"id\":\"a\xffb\xc3\",\"error\":\"\xed\xa0\x80 \xef\xbf\xbd\"}",
	`{"id":"\ud83d\u0041\ud800\ud800\udc00\udc00\ud83d"}`,
	`{"id":"\u00E9\u00e9\/\b\f"}`,
	` { "id" : "x" , "cli" : { } , "duration_ms" : -0.5E+3 } ` + "\r\n",
	`{"duration_ms":1e400}`,
	`{"duration_ms":-0}`,
	`{"protocol":2,"type":"check","id":"x"}`,
	`{"protocol":1.0}`,
	`{"cli":{"exit_code":1e2}}`,
	`{"cli":{"exit_code":99999999999999999999}}`,
	`{"cli":{"exit_code":-9223372036854775808}}`,
	`{"id":"x"} {"id":"y"}`,
	`{"id":"x"}}`,
	`{"id":"x","id":"y"}`,
	`{"ID":"x"}`,
	`{"id":null}`,
	`{"id":"x","extra":1}`,
	`{"id":"x",}`,
	`{"id":"a` + "\t" + `b"}`,
	`{"id":"\x"}`,
	`{"id":"\u12"}`,
	`["id"]`,
	`{"id":"x"`,
	`{"cli":{"stdout":"a","stdout":"b"}}`,
	`{"cli":{"stdout":"a"},"cli":{"stderr":"b"}}`,
	`{"duration_ms":01}`,
	`{"duration_ms":1.}`,
	`{"duration_ms":.5}`,
	`{"duration_ms":1e}`,
	`{"duration_ms":+1}`,
	`{"duration_ms":1x}`,
	`{"duration_ms":"1"}`,
	`{"cli":{"exit_code":true}}`,
	`{"i\u0064":"x"}`,
}

// TestFastLineDecodesTheBindingsLines: the bindings' usual lines are
// decoded by lineDecoder, to what encoding/json gives; the others are left
// to encoding/json.
func TestFastLineDecodesTheBindingsLines(t *testing.T) {
	stdout := "Hello, Ada!\n"
	emoji, lone := "caf\u00e9 \U0001F600 \u2028", "lone \uFFFD \uFFFD"
	empty := ""
	for _, tc := range []struct {
		line string
		want *Line // nil: declined
	}{
		{bindingLines[0], &Line{ID: "greet/hello", File: "cassettes/greet/hello.yaml", Replay: "tests/test_greet.py::test_hello", Test: "tests/test_greet.py::test_hello",
			CLI: &CLIOutput{Stdout: &stdout, Stderr: &empty}, DurationMS: 0.8123409999999999}},
		{bindingLines[1], &Line{ID: "greet/hello", File: "cassettes/greet/hello.yaml",
			CLI: &CLIOutput{Stdout: &emoji, Stderr: ptr("boom\r\n\t\"q\" \\"), ExitCode: 1}, DurationMS: 1.2e-05}},
		{bindingLines[2], &Line{ID: "greet/hello", File: "cassettes/greet/hello.yaml", Error: "FileNotFoundError: [Errno 2] No such file: 'x'", DurationMS: 3}},
		{bindingLines[3], nil}, // stdout_base64
		{bindingLines[4], &Line{Type: "cases", Adapter: "greet", Protocol: 1}},
		{bindingLines[5], nil}, // http
		{bindingLines[7], &Line{ID: "greet/hello", File: "cassettes/greet/hello.yaml", CLI: &CLIOutput{Stdout: &lone, Stderr: &empty, ExitCode: -1}}},
		{bindingLines[8], &Line{ID: "a\uFFFDb\uFFFD", Error: "\uFFFD\uFFFD\uFFFD \uFFFD"}},
		{bindingLines[9], &Line{ID: "\uFFFDA\uFFFD\U00010000\uFFFD\uFFFD"}},
		{bindingLines[11], &Line{ID: "x", CLI: &CLIOutput{}, DurationMS: -500}},
		{`{"duration_ms":1e400}`, nil},
		{`{"protocol":1.0}`, nil},
		{`{"cli":{"exit_code":1e2}}`, nil},
		{`{"id":"x","id":"y"}`, nil},
		{`{"ID":"x"}`, nil},
		{`{"id":null}`, nil},
		{`{"id":"x","extra":1}`, nil},
		{`{"cli":{"stdout":"a"},"cli":{"stderr":"b"}}`, nil},
		{`{"duration_ms":1x}`, nil},
		{`{"id":"x"} {"id":"y"}`, &Line{ID: "x"}}, // the rest is check's to refuse, as before
	} {
		var d lineDecoder
		var got Line
		end, ok := d.decode([]byte(tc.line), &got)
		if tc.want == nil {
			if ok {
				t.Errorf("lineDecoder took %q, which is encoding/json's to decode", tc.line)
			}
			continue
		}
		if !ok {
			t.Errorf("lineDecoder left %q to encoding/json", tc.line)
			continue
		}
		if !reflect.DeepEqual(got, *tc.want) {
			t.Errorf("%q:\ngot  %s\nwant %s", tc.line, show(got), show(*tc.want))
		}
		want, wantEnd, err := jsonLine([]byte(tc.line))
		if err != nil || !reflect.DeepEqual(got, want) || end != wantEnd {
			t.Errorf("%q: lineDecoder %s (end %d), encoding/json %s (end %d, %v)", tc.line, show(got), end, show(want), wantEnd, err)
		}
	}
}

func ptr(s string) *string { return &s }

func show(l Line) string {
	b, _ := json.Marshal(l)
	return string(b)
}

// FuzzFastLineAgreesWithJSON: for any line lineDecoder either declines or
// gives what encoding/json gives, which accepts the line, and ends where
// Decoder ends (so that the rest of the line is judged alike).
func FuzzFastLineAgreesWithJSON(f *testing.F) {
	for _, l := range bindingLines {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line string) {
		var d lineDecoder
		var got Line
		end, ok := d.decode([]byte(line), &got)
		if !ok {
			return
		}
		want, wantEnd, err := jsonLine([]byte(line))
		if err != nil {
			t.Fatalf("lineDecoder took %q, which encoding/json refuses: %v", line, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\nlineDecoder  %#v %s\nencoding/json %#v %s", line, got, show(got), want, show(want))
		}
		if end != wantEnd {
			t.Fatalf("%q: lineDecoder ends at %d, encoding/json at %d", line, end, wantEnd)
		}
	})
}

// BenchmarkLineDecode: a line as the Python binding writes it, by
// lineDecoder and by the Decoder check used before it.
func BenchmarkLineDecode(b *testing.B) {
	line := []byte(bindingLines[0])
	b.Run("fast", func(b *testing.B) {
		var d lineDecoder
		for b.Loop() {
			var l Line
			if _, ok := d.decode(line, &l); !ok {
				b.Fatal("declined")
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := jsonLine(line); err != nil {
				b.Fatal(err)
			}
		}
	})
}
