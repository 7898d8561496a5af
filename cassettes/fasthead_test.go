package cassettes

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/internal/cfgschema"
)

// cliCassettes are CLI cassettes of odd values, for the writer to write.
func cliCassettes() []*Cassette {
	at := time.Date(2026, 12, 2, 3, 4, 5, 6, time.UTC)
	zone := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("", 5400))
	yes, no := true, false
	return []*Cassette{
		{Cassette: 1, Version: 2, Adapter: "git", Scenario: "status", Kind: cfgschema.KindCLI, RecordedAt: &at,
			Recorder: &Recorder{Version: "1.0", SHA: "abc"}, Replayable: &yes, Mutating: true, Normalizers: []string{"a", "b"},
			Input:  &Input{Command: "git", Args: []string{"status", "--short", "a b", "", "null", "- x", "é"}, Env: []string{"HOME"}, Stdin: "in\n"},
			Output: &Output{Stdout: "hello\n\nworld\n", Stderr: "", ExitCode: -3}, Interactions: []Interaction{}},
		{Cassette: 1, Version: 2, Adapter: "x", Scenario: "y", Kind: cfgschema.KindCLI, RecordedAt: &zone, Replayable: &no,
			Compare: "modelled", Required: []string{"$.id"}, Stream: "content", StreamText: []string{},
			Input:  &Input{Command: "x", Stdin: Body("\xff\x00")},
			Output: &Output{Stdout: Body("  lead\n"), Stderr: "tab\there: #x", ExitCode: 2}},
	}
}

// handWritten are files as people write them: flow lists, other orders,
// and what the fast reader must decline.
var handWritten = []string{
	"cassette: 1\nversion: 2\nadapter: echo\nscenario: case-00001\nkind: cli\ninput:\n  command: echo\n  args: [hello, case-00001]\noutput:\n  stdout: |\n    hello case-00001\n  stderr: \"\"\n  exit_code: 0\ninteractions: []\n",
	"cassette: 1\nversion: 2\nadapter: e\nscenario: s\nkind: cli\ninput:\n  command: echo\n  args: [ 'a,b' , \"c d\",e.f/g ]\noutput:\n  stdout: x\n  stderr: ''\n  exit_code: 0\n",
	"version: 2\ninteractions:\n- id: 0\n  request:\n    url: http://x/\n    method: GET\n  response:\n    body: ok\n    headers: {}\n    status: 200 OK\n    code: 200\nadapter: a\nscenario: s\n",
	"cassette: 1\nversion: 2\nadapter: a\nscenario: s\ninput:\n  command: c\n  args: [a: b]\n",
	"cassette: 1\nversion: 2\nadapter: a\nscenario: s\ninput:\n  command: c\n  args: [a, [b]]\n",
	"cassette: 1\nversion: 2\nadapter: a\nscenario: s\ninput:\n  command: c\n  args: [a, ]\n",
	"cassette: 1\nversion: 2\nadapter: a\nscenario: s\ninput:\n  command: c\n  args: [a #b]\n",
	"cassette: 1\nversion: 2\nadapter: a\nscenario: s # a comment\n",
	"cassette: 1\nversion: 2\nadapter: a\nscenario: s\nmutating: yes\n",
	"cassette: 1\nversion: 2\nadapter: a\nadapter: b\n",
	"cassette: 1\nversion: 2\nadaptr: a\n",
	"version: 2\ninteractions: []\n",
	"cassette: 1\nversion: 2\nrecorded_at: 2026-12-02\n",
	"cassette: 1\nversion: 2\nrecorded_at: \"2026-12-02T01:02:03Z\"\n",
	"cassette: 1\nversion: 2\nrecorded_at: 2026-12-02T01:02:03+01:00\n",
	"---\ncassette: 1\nversion: 2\n",
	"cassette: 1\nversion: 2\ninput: {}\n",
	"cassette: 1\nversion: 2\noutput:\n  stdout:\n  exit_code: 0\n",
	"cassette: 1\r\nversion: 2\r\n",
	"cassette: 1\nversion: 2",
	"cassette: 1\nversion: 2\ninteractions:\n  - id: 0\n    request:\n      url: u\n      method: GET\n    response:\n      body: |\n        - not an item\n      headers: {}\n      status: \"\"\n      code: 0\n  - id: 1\n    request:\n      url: u\n      method: GET\n    response:\n      body: x\n      headers: {}\n      status: \"\"\n      code: 0\nkind: http\n",
}

// fastHeadSeeds are the writer's output for odd cassettes, hand-written
// files and every real cassette under ../shared/testdata.
func fastHeadSeeds(t testing.TB) []string {
	var out []string
	list := append(cliCassettes(), oddCassettes()...)
	r := rand.New(rand.NewPCG(3, 4))
	for range 50 {
		list = append(list, randomCassette(r))
	}
	for _, c := range list {
		data, err := Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(data))
	}
	out = append(out, handWritten...)
	files, _ := filepath.Glob(filepath.Join("..", "..", "shared", "testdata", "*", "*", "*.yaml"))
	more, _ := filepath.Glob(filepath.Join("..", "..", "shared", "testdata", "*", "*.yaml"))
	for _, p := range append(files, more...) {
		if data, err := os.ReadFile(p); err == nil && len(data) < 1<<20 {
			out = append(out, string(data))
		}
	}
	return out
}

// agreeWithYAML fails t unless what the fast reader makes of data (when it
// takes it) is what yaml.v3 decodes: the cassette, the lines of its fields
// and its top-level keys. It reports whether the fast reader took it.
func agreeWithYAML(t *testing.T, data string) bool {
	got := fastCassette("c.yaml", []byte(data), false)
	if got == nil {
		return false
	}
	want, probs := decodeWhole("c.yaml", []byte(data))
	if want == nil || len(probs) > 0 || want.Plain || len(want.Warnings) > 0 {
		t.Fatalf("the fast reader took what yaml.v3 refuses or reads as a plain cassette (%v):\n%s", probs, data)
	}
	if shared := fastCassette("c.yaml", []byte(data), true); shared == nil {
		t.Fatalf("sharing headers, the fast reader declines:\n%s", data)
	}
	a, b := *got, *want
	a.loc, b.loc = nil, nil
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("on\n%s\nfast: %#v\nyaml: %#v", data, a, b)
	}
	fields := slices.Clone(topKeys)
	fields = append(fields, "input.args", "input.args[1]", "output.stdout", "output.exit_code", "recorder.sha", "nosuch",
		"interactions[0]", "interactions[1].response.body", "interactions[0].request.headers")
	for _, f := range fields {
		if g, w := got.Line(f), want.Line(f); g != w {
			t.Fatalf("on\n%s\nline of %s: fast %d, yaml %d", data, f, g, w)
		}
		if g, w := got.hasTopKey(f), want.hasTopKey(f); g != w {
			t.Fatalf("on\n%s\nhas %s: fast %v, yaml %v", data, f, g, w)
		}
	}
	return true
}

// FuzzFastCassetteAgreesWithYAML: whatever whole file the fast reader
// takes, yaml.v3 decodes to the same cassette, with the same lines.
func FuzzFastCassetteAgreesWithYAML(f *testing.F) {
	for _, s := range fastHeadSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) { agreeWithYAML(t, data) })
}

// TestFastCassetteReadsTheWriter: the writer's CLI cassettes and the
// hand-written layout of bench/check-batch.sh are taken by the fast
// reader (else it would not be what loads them), and what it declines is
// what it must.
func TestFastCassetteReadsTheWriter(t *testing.T) {
	for _, c := range cliCassettes() {
		data, err := Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if !agreeWithYAML(t, string(data)) {
			t.Errorf("the fast reader declines the writer's\n%s", data)
		}
	}
	for i, s := range handWritten {
		took := agreeWithYAML(t, s)
		if want := i < 3 || i == 14 || i == len(handWritten)-1; took != want {
			t.Errorf("hand-written file %d: taken %v, want %v:\n%s", i, took, want, s)
		}
	}
}

// TestFastCassetteKnowsEveryKey: the fast reader's top-level keys are the
// Cassette's yaml fields, so that a new field is not left to decline.
func TestFastCassetteKnowsEveryKey(t *testing.T) {
	fields := keysOf(yamlFields(reflect.TypeOf(Cassette{})))
	if !reflect.DeepEqual(sortedKeys(fields), sortedKeys(slices.Clone(topKeys))) {
		t.Fatalf("topKeys %v; the Cassette's yaml fields %v", topKeys, fields)
	}
	for _, k := range metadataKeys {
		if !slices.Contains(topKeys, k) {
			t.Errorf("metadata key %s is not in topKeys", k)
		}
	}
}

// TestLoadFastKeepsLines: a cassette the fast reader loaded points a
// problem below the top level at its line (the tree is parsed on asking).
func TestLoadFastKeepsLines(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(p, []byte(handWritten[0]), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(p, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.loc == nil || c.loc.src == nil {
		t.Fatal("the bench's layout was not loaded by the fast reader")
	}
	for f, want := range map[string]int{"scenario": 4, "output.stdout": 10, "input.args[1]": 8, "output.exit_code": 13} {
		if got := c.Line(f); got != want {
			t.Errorf("line of %s: %d, want %d", f, got, want)
		}
	}
	if !strings.Contains(string(c.Output.Stdout), "hello case-00001") {
		t.Errorf("stdout %q", c.Output.Stdout)
	}
}
