package normalize

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// stepwiseJSON is what Pipeline.JSON's grouped, prefiltered, incremental
// passes stand for: the redaction, then each normalizer in turn applied to
// the whole document (its JSON part, then its text part on every string
// value, no feature consulted), passes until the output stops changing,
// the redaction again.
func stepwiseJSON(p *Pipeline, st *State, data []byte) ([]byte, bool) {
	root, err := parseJSON(data)
	if err != nil {
		return nil, false
	}
	p.jsonStep(root, st, p.redact)
	prev := root.write(nil, data)
	for range maxPasses {
		for _, n := range p.steps {
			p.jsonStep(root, st, n)
		}
		out := root.write(nil, data)
		if bytes.Equal(out, prev) {
			break
		}
		prev = out
	}
	p.jsonStep(root, st, p.redact)
	if p.canonical {
		return root.writeCanonical(nil), true
	}
	out := append([]byte(nil), data[:root.start]...)
	out = root.write(out, data)
	return append(out, data[root.end:]...), true
}

// FuzzJSONMatchesStepwise: the pipeline's output on a JSON document is the
// stepwise application's, byte for byte (numbers included), whatever the
// document.
func FuzzJSONMatchesStepwise(f *testing.F) {
	f.Add(string(jsonBody(8 << 10)))
	for _, s := range fastSeeds {
		b, _ := json.Marshal(map[string]any{"s": s, "created_at": 1763820000, "id": s, "list": []string{s, s + " " + s}})
		f.Add(string(b))
	}
	f.Add(`["abc1234f", "9f1c3a2e-1b7d-4c8e-9a55-0d1e2f3a4b5c", "6dcb09b5b57875f334f61aebed695e2e4193db5e", {"id": {"x": 1}}]`)
	f.Add(`{"token": "hunter2-secret", "a": "Sat, 22 Nov 2026 14:00:00 GMT+0000", "b": "x   \n", "ts": "1763820000"}`)
	pipes := map[string]*Pipeline{"all": fullPipeline(f)}
	for _, names := range [][]string{benchNames, append(append([]string(nil), benchNames...), "json.canonical")} {
		p, err := Builtins().Pipeline(names, Options{WorkDir: "/work/app", TempDirs: []string{"/tmp"}, Credentials: map[string]string{"TOKEN": "hunter2-secret"}})
		if err != nil {
			f.Fatal(err)
		}
		pipes[strings.Join(names, ",")] = p
	}
	f.Fuzz(func(t *testing.T, doc string) {
		for name, p := range pipes {
			got, ok := p.JSON(NewState(), []byte(doc))
			want, wok := stepwiseJSON(p, NewState(), []byte(doc))
			if ok != wok || !bytes.Equal(got, want) {
				t.Fatalf("%s on %q:\ngot  %q\nwant %q", name, doc, got, want)
			}
		}
	})
}
