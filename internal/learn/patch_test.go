package learn

import (
	"os"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/normalize"
)

func TestPatchKeepsLayoutAndLoads(t *testing.T) {
	data, err := os.ReadFile("../../examples/prometheus/cassette.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := &Result{Names: []string{"headers.volatile", "timestamps.ISO8601", "prom.sample_time", "prom.machine", "ports", "prometheus.volatile", "uuid"},
		Proposals: []Proposal{{Name: "prometheus.volatile", Definition: normalize.Definition{JSONPaths: []string{"$.data.x", "$.data['a b']"}, Replace: "<volatile>"},
			Places: []*Place{{Scenario: "targets", Classes: []string{"counter"}}}}, {Name: "uuid", Builtin: true}}}
	out, err := Patch("cassette.yaml", data, "prometheus", r)
	if err != nil {
		t.Fatal(err)
	}
	d := Diff("cassette.yaml", data, out)
	want := []string{
		"-    normalizers: [headers.volatile, timestamps.ISO8601, prom.sample_time, prom.machine, ports]",
		"+    normalizers: [headers.volatile, timestamps.ISO8601, prom.sample_time, prom.machine, ports, prometheus.volatile, uuid]",
		"+  # learned by cassette learn: counter in 1 place(s) of targets",
		"+  prometheus.volatile: {json_paths: ['$.data.x', '$.data[''a b'']'], replace: '<volatile>'}",
	}
	for _, w := range want {
		if !strings.Contains(d, w+"\n") {
			t.Errorf("the diff lacks %q:\n%s", w, d)
		}
	}
	if n := strings.Count(d, "\n+") + strings.Count(d, "\n-"); n != 5 { // 2 added, 1 removed, and the two file header lines
		t.Errorf("the diff changes more than the list and the definition (%d lines):\n%s", n, d)
	}
	// The new entry ends the normalizers: mapping, before the comment-less refresh: key.
	if !strings.Contains(string(out), "replace: '<volatile>'}\nrefresh:") {
		t.Errorf("the definition is not at the end of normalizers:\n%s", out)
	}
}

func TestPatchAddsWhatIsAbsent(t *testing.T) {
	data := []byte("# a project\nadapters:\n  svc:\n    kind: http   # aligned\n    real: {base_url: 'http://127.0.0.1:1'}\n    fake: {command: [x]}\n\n# refresh it weekly\nrefresh:\n  schedule: \"@weekly\"\n")
	r := &Result{Names: []string{"svc.id", "sha:full"}, Proposals: []Proposal{{Name: "svc.id", Definition: normalize.Definition{JSONPaths: []string{"$.Id"}}}, {Name: "sha:full", Builtin: true}}}
	out, err := Patch("cassette.yaml", data, "svc", r)
	if err != nil {
		t.Fatal(err)
	}
	want := "# a project\nadapters:\n  svc:\n    normalizers: [svc.id, sha:full]   # learned by cassette learn\n    kind: http   # aligned\n" +
		"    real: {base_url: 'http://127.0.0.1:1'}\n    fake: {command: [x]}\nnormalizers:\n  # learned by cassette learn:  in 0 place(s) of \n  svc.id: {json_paths: ['$.Id']}\n\n# refresh it weekly\nrefresh:\n  schedule: \"@weekly\"\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s\n%s", out, want, Diff("x", []byte(want), out))
	}
}

// FuzzPatch: whatever cassette.yaml holds, Patch either refuses it or
// returns a file that loads (it checks so itself) and that keeps every
// line of the input that it did not mean to change.
func FuzzPatch(f *testing.F) {
	for _, s := range []string{"version: 1\nadapters:\n  svc:\n    kind: http\n    real: {base_url: 'http://x'}\n    fake: {command: [x]}\n",
		"version: 1\nadapters:\n  svc:\n    kind: cli\n    real: {command: [x]}\n    fake: {command: [y]}\n    normalizers:\n      - uuid\nnormalizers:\n  a.b: {regex: x}\n"} {
		f.Add(s)
	}
	r := &Result{Names: []string{"uuid", "svc.volatile"}, Proposals: []Proposal{{Name: "svc.volatile", Definition: normalize.Definition{JSONPaths: []string{"$.a"}, Replace: "<v>"}}, {Name: "uuid", Builtin: true}}}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := Patch("cassette.yaml", []byte(in), "svc", r)
		if err != nil {
			return
		}
		kept := map[string]bool{}
		for _, l := range strings.Split(string(out), "\n") {
			kept[l] = true
		}
		for _, l := range strings.Split(in, "\n") {
			if !kept[l] && !strings.Contains(l, "normalizers") {
				t.Fatalf("line %q of the input is gone:\n%s\n---\n%s", l, in, out)
			}
		}
	})
}
