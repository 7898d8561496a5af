package diff

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/normalize"
	"github.com/cassette-dev/cassette/internal/outcome"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// httpYAML is a recorded GitHub interaction pair: create an issue, then
// fetch it. The second response repeats the id the first one created.
const httpYAML = `cassette: 1
version: 2
adapter: github
scenario: issue-roundtrip
kind: http
normalizers: [timestamps.ISO8601, headers.volatile, uuid, json.path:$..id]
interactions:
  - id: 0
    request:
      url: https://api.github.com/repos/octo/hello/issues
      method: POST
      headers:
        Content-Type: [application/json]
      body: '{"title":"Bug"}'
    response:
      code: 201
      status: 201 Created
      content_length: 0
      headers:
        Content-Type: [application/json; charset=utf-8]
        Date: ["Sat, 22 Nov 2026 14:00:00 GMT"]
        X-Github-Request-Id: [C0DE:1234]
      body: |
        {
          "id": 3001,
          "number": 12,
          "state": "open",
          "title": "Bug",
          "labels": [{"id": 7, "name": "bug"}, {"id": 8, "name": "p1"}],
          "created_at": "2026-11-22T14:00:00Z",
          "request_uuid": "9f1c3a2e-1b7d-4c8e-9a55-0d1e2f3a4b5c"
        }
  - id: 1
    request:
      url: https://api.github.com/repos/octo/hello/issues/12
      method: GET
    response:
      code: 200
      status: 200 OK
      content_length: 0
      headers:
        Content-Type: [application/json; charset=utf-8]
        Date: ["Sat, 22 Nov 2026 14:00:01 GMT"]
      body: |
        {
          "id": 3001,
          "number": 12,
          "state": "open",
          "comments": 0
        }
  - id: 2
    request:
      url: https://api.github.com/repos/octo/hello/events
      method: GET
    response:
      code: 200
      status: 200 OK
      content_length: 0
      headers:
        Content-Type: [application/x-ndjson]
      body: |
        {"type":"opened","issue":12}
        {"type":"labeled","label":"bug"}
        {"type":"labeled","label":"p1"}
`

const cliYAML = `cassette: 1
version: 2
adapter: git
scenario: log
kind: cli
normalizers: [sha:full, timestamps.ANSIC]
input:
  command: git
  args: [log, -2]
output:
  stdout: |
    commit 6dcb09b5b57875f334f61aebed695e2e4193db5e
    Date:   Sat Nov 22 14:00:00 2026 +0000

        Fix the frobnicator

    commit e5bd3914e2e596debea16f433f57875b5b90bcd6
    Date:   Fri Nov 21 09:30:12 2026 +0000

        Start
  stderr: ""
  exit_code: 0
interactions: []
`

func parse(t *testing.T, name, src string) *cassettes.Cassette {
	t.Helper()
	c, err := cassettes.Parse(name, []byte(src), cassettes.LoadOptions{})
	if err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
	return c
}

// edit applies old→new replacements to a fixture and fails if one does not apply.
func edit(t *testing.T, src string, pairs ...string) string {
	t.Helper()
	for i := 0; i+1 < len(pairs); i += 2 {
		if !strings.Contains(src, pairs[i]) {
			t.Fatalf("fixture edit: %q not found", pairs[i])
		}
		src = strings.Replace(src, pairs[i], pairs[i+1], 1)
	}
	return src
}

func TestCompareGolden(t *testing.T) {
	tests := []struct {
		name    string
		base    string
		got     []string // replacements turning the recording into what the fake returned
		headers []string
		classes []Class // the classes the drifts must have, in order
	}{
		{name: "equal-fresh-volatile-values", base: httpYAML, got: []string{
			"2026-11-22T14:00:00Z", "2026-12-01T08:00:00Z", "C0DE:1234", "BEEF:9", "3001,\n          \"number\": 12,\n          \"state\": \"open\",\n          \"title\"", "4242,\n          \"number\": 12,\n          \"state\": \"open\",\n          \"title\"",
			"\"id\": 3001,\n          \"number\": 12,\n          \"state\": \"open\",\n          \"comments\"", "\"id\": 4242,\n          \"number\": 12,\n          \"state\": \"open\",\n          \"comments\"",
			"9f1c3a2e-1b7d-4c8e-9a55-0d1e2f3a4b5c", "00000000-1111-4222-8333-444444444444"}},
		{name: "status", base: httpYAML, got: []string{"code: 200\n      status: 200 OK", "code: 404\n      status: 404 Not Found"}, classes: []Class{ClassStatus}},
		{name: "headers", base: httpYAML, got: []string{`Content-Type: [application/json; charset=utf-8]` + "\n        " + `Date: ["Sat, 22 Nov 2026 14:00:00 GMT"]`,
			`Content-Type: [text/html]` + "\n        " + `Date: ["Sun, 23 Nov 2026 10:00:00 GMT"]` + "\n        X-Frame-Options: [deny]"}, classes: []Class{ClassHeaders, ClassHeaders}},
		{name: "headers-contract-only", base: httpYAML, headers: []string{"content-type"}, got: []string{"X-Github-Request-Id: [C0DE:1234]", "X-Other: [1]"}},
		{name: "schema", base: httpYAML, got: []string{`"title": "Bug",`, `"title": ["Bug"], "assignee": null,`, `"comments": 0`, `"locked": false`},
			classes: []Class{ClassSchema, ClassSchema, ClassSchema, ClassSchema}},
		{name: "value", base: httpYAML, got: []string{"\"state\": \"open\",\n          \"title\"", "\"state\": \"closed\",\n          \"title\"", `{"id": 8, "name": "p1"}`, `{"id": 9, "name": "wontfix"}, {"id": 8, "name": "P1"}`},
			classes: []Class{ClassValue, ClassValue, ClassValue}},
		{name: "identity-wrong-id", base: httpYAML, got: []string{"\"id\": 3001,\n          \"number\": 12,\n          \"state\": \"open\",\n          \"comments\"", "\"id\": 3002,\n          \"number\": 12,\n          \"state\": \"open\",\n          \"comments\""},
			classes: []Class{ClassValue}},
		{name: "stream", base: httpYAML, got: []string{`{"type":"labeled","label":"bug"}` + "\n        " + `{"type":"labeled","label":"p1"}`,
			`{"type":"labeled","label":"p1","by":"octocat"}` + "\n        " + `{"type":"closed","issue":12}`}, classes: []Class{ClassStream, ClassSchema, ClassStream}},
		{name: "stream-reordered", base: httpYAML, got: []string{`{"type":"labeled","label":"bug"}` + "\n        " + `{"type":"labeled","label":"p1"}`,
			`{"type":"labeled","label":"p1"}` + "\n        " + `{"type":"labeled","label":"bug"}`}, classes: []Class{ClassStream}},
		{name: "interaction-removed", base: httpYAML, got: []string{"  - id: 2\n", "  - id: 2\n    x: 1\n"}, classes: []Class{ClassInteraction}},
		{name: "exit-code", base: cliYAML, got: []string{"exit_code: 0", "exit_code: 128"}, classes: []Class{ClassExitCode}},
		{name: "body-text", base: cliYAML, got: []string{"    Fix the frobnicator", "    Fix the frobnicator (#12)", "e5bd3914e2e596debea16f433f57875b5b90bcd6", "0123456789abcdef0123456789abcdef01234567"},
			classes: []Class{ClassBody}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := parse(t, "cassettes/"+tc.name+".yaml", tc.base)
			src := edit(t, tc.base, tc.got...)
			var got *cassettes.Cassette
			if tc.name == "interaction-removed" {
				got = parse(t, "got.yaml", tc.base)
				got.Interactions = got.Interactions[:2]
			} else {
				got = parse(t, "got.yaml", src)
			}
			res, err := Compare(want, got, Options{Headers: tc.headers})
			if err != nil {
				t.Fatal(err)
			}
			var classes []Class
			for _, d := range res.Drifts {
				classes = append(classes, d.Class)
				if d.Line == 0 {
					t.Errorf("drift %s %s has no line", d.Field, d.Path)
				}
			}
			if strings.Join(toStrings(classes), ",") != strings.Join(toStrings(tc.classes), ",") {
				t.Errorf("classes = %v, want %v", classes, tc.classes)
			}
			if res.Equal != (len(tc.classes) == 0) {
				t.Errorf("Equal = %v with drifts %v", res.Equal, classes)
			}
			var out bytes.Buffer
			if err := Render(&out, res, false); err != nil {
				t.Fatal(err)
			}
			out.WriteString("---- json\n")
			if err := WriteJSON(&out, res); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", tc.name+".golden"), out.Bytes())
		})
	}
}

func toStrings(cs []Class) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = string(c)
	}
	return out
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./diff -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (review, then go test ./diff -update):\n%s", path, got)
	}
}

// TestLinesPointIntoTheBody checks that a drift inside a literal JSON body
// names the line of the differing field in the file, not only the body key.
func TestLinesPointIntoTheBody(t *testing.T) {
	want := parse(t, "w.yaml", httpYAML)
	got := parse(t, "g.yaml", edit(t, httpYAML, `"comments": 0`, `"comments": 3`))
	res, err := Compare(want, got, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Drifts) != 1 {
		t.Fatalf("drifts = %+v", res.Drifts)
	}
	lines := strings.Split(httpYAML, "\n")
	if l := res.Drifts[0].Line; l < 1 || !strings.Contains(lines[l-1], `"comments": 0`) {
		t.Errorf("line %d is %q, want the comments line", l, lines[max(l-1, 0)])
	}
}

func TestUnknownNormalizerIsLocated(t *testing.T) {
	c := parse(t, "cassettes/github/x.yaml", strings.Replace(httpYAML, "headers.volatile", "header.volatile", 1))
	_, err := Compare(c, c, Options{})
	var ce *outcome.Error
	if !errors.As(err, &ce) {
		t.Fatalf("error = %v, want a *outcome.Error", err)
	}
	p := ce.Problems[0]
	if ce.Reason.Exit() != outcome.ExitUser || p.Field != "normalizers[1]" || p.Line != 6 || !strings.Contains(p.Suggestion, "headers.volatile") {
		t.Errorf("got %s (reason %s)", p, ce.Reason)
	}
}

func TestWriteNormalizedGolden(t *testing.T) {
	for _, tc := range []struct{ name, src string }{{"normalized-http", httpYAML}, {"normalized-cli", cliYAML}} {
		t.Run(tc.name, func(t *testing.T) {
			c := parse(t, tc.name+".yaml", tc.src)
			p, err := Pipeline(c, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := WriteNormalized(&out, c, p); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", tc.name+".golden"), out.Bytes())
			// The normalized form is a fixed point and loads as a cassette.
			again := parse(t, "again.yaml", out.String())
			var out2 bytes.Buffer
			if err := WriteNormalized(&out2, again, p); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), out2.Bytes()) {
				t.Errorf("normalizing the normalized form changed it:\n%s", out2.String())
			}
		})
	}
}

func TestCompareSets(t *testing.T) {
	a := parse(t, "a/github/issue-roundtrip.yaml", httpYAML)
	b := parse(t, "b/github/issue-roundtrip.yaml", edit(t, httpYAML, `"comments": 0`, `"comments": 1`))
	cli := parse(t, "a/git/log.yaml", cliYAML)
	other := parse(t, "b/git/status.yaml", strings.Replace(cliYAML, "scenario: log", "scenario: status", 1))
	for _, tc := range []struct {
		name       string
		want, got  []*cassettes.Cassette
		equal      bool
		added, rem string
	}{
		{"same", []*cassettes.Cassette{a, cli}, []*cassettes.Cassette{cli, a}, true, "", ""},
		{"drift and membership", []*cassettes.Cassette{a, cli}, []*cassettes.Cassette{b, other}, false, "git/status", "git/log"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := CompareSets(tc.want, tc.got, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if s.Equal != tc.equal || strings.Join(s.Added, ",") != tc.added || strings.Join(s.Removed, ",") != tc.rem {
				t.Errorf("got equal=%v added=%v removed=%v", s.Equal, s.Added, s.Removed)
			}
			if want := map[bool]outcome.Exit{true: 0, false: 1}[tc.equal]; s.Exit() != want {
				t.Errorf("Exit() = %d, want %d", s.Exit(), want)
			}
			var out bytes.Buffer
			if err := RenderSet(&out, s, false); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", "set-"+strings.ReplaceAll(tc.name, " ", "-")+".golden"), out.Bytes())
		})
	}
}

func TestAlign(t *testing.T) {
	for _, tc := range []struct{ w, g, want string }{
		{"abc", "abc", "00 11 22"},
		{"abc", "axc", "00 11 22"}, // x paired with b, then recursed into
		{"abc", "ac", "00 1- 21"},
		{"ac", "abc", "00 -1 12"},
		{"abcd", "dabc", "-0 01 12 23 3-"},
		{"", "ab", "-0 -1"},
	} {
		t.Run(tc.w+"→"+tc.g, func(t *testing.T) {
			var parts []string
			for _, op := range align(len(tc.w), len(tc.g), func(i, j int) bool { return tc.w[i] == tc.g[j] }, nil) {
				s := ""
				for _, v := range []int{op.i, op.j} {
					if v < 0 {
						s += "-"
					} else {
						s += string(rune('0' + v))
					}
				}
				parts = append(parts, s)
			}
			if got := strings.Join(parts, " "); got != tc.want {
				t.Errorf("align = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestRenderColor(t *testing.T) {
	want := parse(t, "w.yaml", cliYAML)
	got := parse(t, "g.yaml", edit(t, cliYAML, "exit_code: 0", "exit_code: 1"))
	res, err := Compare(want, got, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var plain, color bytes.Buffer
	_ = Render(&plain, res, false)
	_ = Render(&color, res, true)
	if strings.Contains(plain.String(), "\x1b[") || !strings.Contains(color.String(), red) {
		t.Errorf("colour handling wrong:\n%q\n%q", plain.String(), color.String())
	}
}

var _ = normalize.Builtins

// TestLineWithCanonicalJSON: with json.canonical the compared body is one
// line, but the drift still points at the member's line in the file.
func TestLineWithCanonicalJSON(t *testing.T) {
	src := "cassette: 1\nversion: 2\nadapter: a\nscenario: s\nkind: http\nnormalizers: [json.canonical]\ninteractions:\n  - id: 0\n    request: {url: 'http://x/', method: GET}\n    response:\n      code: 200\n      headers: {Content-Type: [application/json]}\n      body: |\n        {\n          \"name\": \"Rex\",\n          \"tag\": \"dog\"\n        }\n"
	want, err := cassettes.Parse("cassettes/a/s.yaml", []byte(src), cassettes.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := *want
	got.Interactions = append([]cassettes.Interaction(nil), want.Interactions...)
	got.Interactions[0].Response.Body = `{"tag":"cat","name":"Rex"}`
	res, err := Compare(want, &got, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Drifts) != 1 || res.Drifts[0].Path != "$.tag" || res.Drifts[0].Line != 16 {
		t.Fatalf("drifts = %+v, want one at $.tag on line 16", res.Drifts)
	}
}

// TestWrongIDIsOneChange: an array item whose identity member alone differs
// is paired with its counterpart, so the drift is the id, not a removal and
// an addition.
func TestWrongIDIsOneChange(t *testing.T) {
	w := []any{map[string]any{"id": "<uuid:1>", "name": "Rex", "tag": "dog"}, map[string]any{"id": "<uuid:2>", "name": "Tom", "tag": "cat"}}
	g := []any{map[string]any{"id": "<uuid:1>", "name": "Rex", "tag": "dog"}, map[string]any{"id": "<uuid:3>", "name": "Tom", "tag": "cat"}}
	ch := arrayChanges(nil, nil, w, g)
	if len(ch) != 1 || ch[0].kind != ValueChanged {
		t.Fatalf("changes = %+v, want one value change of [1].id", ch)
	}
}

// TestKeyOrderHint: JSON that differs only in key order (a fake that
// writes its fields in another order, the adapter without json.canonical)
// is a drift, and it says so and names the normalizer that compares it as
// JSON; with json.canonical it is no drift. A real value change gets no
// such hint.
func TestKeyOrderHint(t *testing.T) {
	src := func(normalizers string) string {
		return "cassette: 1\nversion: 2\nadapter: a\nscenario: s\nkind: http\nnormalizers: [" + normalizers + "]\ninteractions:\n  - id: 0\n    request: {url: 'http://x/', method: GET}\n    response:\n      code: 200\n      headers: {Content-Type: [application/json]}\n      body: '{\"name\":\"Rex\",\"tag\":\"dog\",\"owner\":{\"id\":1,\"city\":\"Oslo\"}}'\n"
	}
	for _, c := range []struct {
		normalizers, body string
		hint, equal       bool
	}{
		{"", `{"tag":"dog","owner":{"city":"Oslo","id":1},"name":"Rex"}`, true, false},
		{"", `{"name": "Rex", "tag": "dog", "owner": {"id": 1, "city": "Oslo"}}`, true, false},
		{"json.canonical", `{"tag":"dog","owner":{"city":"Oslo","id":1},"name":"Rex"}`, false, true},
		{"", `{"tag":"cat","owner":{"city":"Oslo","id":1},"name":"Rex"}`, false, false},
	} {
		want, err := cassettes.Parse("cassettes/a/s.yaml", []byte(src(c.normalizers)), cassettes.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got := *want
		got.Interactions = append([]cassettes.Interaction(nil), want.Interactions...)
		got.Interactions[0].Response.Body = cassettes.Body(c.body)
		res, err := Compare(want, &got, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Equal != c.equal {
			t.Fatalf("%s with [%s]: equal %v, want %v: %+v", c.body, c.normalizers, res.Equal, c.equal, res.Drifts)
		}
		hinted := len(res.Drifts) == 1 && res.Drifts[0].Hint == LayoutHint
		if hinted != c.hint {
			t.Errorf("%s with [%s]: hint %v, want %v: %+v", c.body, c.normalizers, hinted, c.hint, res.Drifts)
		}
		var out bytes.Buffer
		if err := Render(&out, res, false); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.String(), "json.canonical") != c.hint {
			t.Errorf("rendered hint %v, want %v:\n%s", !c.hint, c.hint, out.String())
		}
	}
}

// TestRenderDataStaysData: a path, a JSON key and a value that hold a line
// break or an escape sequence are shown escaped: no line of the rendering
// is one the data forged (a `next:` step in a CI log), and no escape
// reaches the terminal.
func TestRenderDataStaysData(t *testing.T) {
	res := &Result{Cassette: "a/s", File: "p\nnext: touch FORGED\nq/cassettes/a/s.yaml", Drifts: []Drift{
		{Class: ClassValue, Change: ValueChanged, Field: "interactions[0].response.body", Path: "$['k\nnext: touch FORGED']",
			File: "p\nnext: touch FORGED\nq/cassettes/a/s.yaml", Line: 7, Want: "\"a\x1b]0;owned\x07\"", Got: "\"b\""},
	}}
	var out bytes.Buffer
	if err := Render(&out, res, false); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "next:") {
			t.Errorf("a line was forged: %q\n%s", line, out.String())
		}
	}
	if strings.ContainsAny(out.String(), "\x1b\x07") || !strings.Contains(out.String(), `(p\nnext: touch FORGED\nq/cassettes/a/s.yaml:7)`) {
		t.Errorf("rendering:\n%s", out.String())
	}
}

// A value over several lines (a text body's value, a CLI's output shown
// whole) keeps its lines, each indented under the value: none reaches the
// margin, where `error[…]` and `next:` lines are.
func TestRenderMultiLineValueStaysIndented(t *testing.T) {
	for _, ch := range []string{ValueChanged, Added, Removed, Reordered} {
		res := &Result{Cassette: "a/s", Drifts: []Drift{{Class: ClassValue, Change: ch, Field: "stdout",
			Want: "one\nnext: touch WANT", Got: "two\nnext: touch GOT"}}}
		var out bytes.Buffer
		if err := Render(&out, res, false); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(line, "next:") || strings.HasPrefix(line, "error[") {
				t.Errorf("change %v: a value's line reached the margin: %q\n%s", ch, line, out.String())
			}
		}
		if ch != Added && ch != Reordered && !strings.Contains(out.String(), "        next: touch WANT") {
			t.Errorf("change %v: the value's second line is not kept, indented:\n%s", ch, out.String())
		}
	}
}
