package diff

import (
	"reflect"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/normalize"
)

// TestPairNormalizesAsApart holds normalizePair, which normalizes the
// first request both sides share once, to the two normalizations it
// stands for: the same forms, the same numbers, whether or not the sides
// start alike.
func TestPairNormalizesAsApart(t *testing.T) {
	src := edit(t, httpYAML,
		"url: https://api.github.com/repos/octo/hello/issues\n", "url: https://api.github.com/repos/octo/hello/issues?trace=0b7e4f8c-5d1a-4e2b-8c3d-6f7a8b9c0d1e\n",
		`"request_uuid": "9f1c3a2e-1b7d-4c8e-9a55-0d1e2f3a4b5c"`, `"request_uuid": "9f1c3a2e-1b7d-4c8e-9a55-0d1e2f3a4b5c", "trace": "0b7e4f8c-5d1a-4e2b-8c3d-6f7a8b9c0d1e"`)
	want := parse(t, "want.yaml", src)
	// The fake answers with ids of its own: its first new id must be
	// numbered as the recording's first new id is, after the shared URL's.
	fake := parse(t, "got.yaml", edit(t, src, "9f1c3a2e-1b7d-4c8e-9a55-0d1e2f3a4b5c", "11111111-2222-4333-8444-555555555555"))
	p, err := normalize.Builtins().Pipeline(want.Normalizers, normalize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	alike := *want
	alike.Interactions = append([]cassettes.Interaction(nil), want.Interactions...)
	for i := range alike.Interactions {
		alike.Interactions[i].Response = fake.Interactions[i].Response
	}
	otherReq := alike
	otherReq.Interactions = append([]cassettes.Interaction(nil), alike.Interactions...)
	otherReq.Interactions[0].Request.URL += "&x=1"
	cli := parse(t, "cli.yaml", cliYAML)
	cliGot := *cli
	out := *cli.Output
	out.Stdout = cassettes.Body("commit 0000000000000000000000000000000000000000\n")
	cliGot.Output = &out
	for _, tc := range []struct {
		name      string
		want, got *cassettes.Cassette
	}{
		{"the same first request", want, &alike},
		{"another first request", want, &otherReq},
		{"itself", want, want},
		{"a CLI cassette", cli, &cliGot},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pp := p
			if tc.want == cli {
				if pp, err = normalize.Builtins().Pipeline(cli.Normalizers, normalize.Options{}); err != nil {
					t.Fatal(err)
				}
			}
			w, g := normalizePair(tc.want, tc.got, pp)
			if apart := Normalize(tc.want, pp); !reflect.DeepEqual(w, apart) {
				t.Errorf("want side:\n%+v\napart:\n%+v", w.Interactions, apart.Interactions)
			}
			if apart := normalizeLike(tc.got, tc.want, pp); !reflect.DeepEqual(g, apart) {
				t.Errorf("got side:\n%+v\napart:\n%+v", g.Interactions, apart.Interactions)
			}
		})
	}
}
