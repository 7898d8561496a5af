package kind_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/kind"
)

// A nil registry and Builtins answer the same two kinds, in the same
// order; Register refuses a second kind of a name.
func TestRegistry(t *testing.T) {
	var none *kind.Registry
	reg := kind.Builtins()
	for _, r := range []*kind.Registry{none, reg} {
		if got := r.Names(); !slices.Equal(got, []string{"http", "cli"}) {
			t.Errorf("Names() = %v, want [http cli]", got)
		}
		for _, n := range []cfgschema.Kind{cfgschema.KindHTTP, cfgschema.KindCLI} {
			if k, ok := r.Lookup(n); !ok || k.Name() != n {
				t.Errorf("Lookup(%s) = %v, %v", n, k, ok)
			}
		}
		if k, ok := r.Lookup(""); !ok || k.Name() != cfgschema.KindHTTP {
			t.Errorf("Lookup(\"\") = %v, %v; want http, the loader's default", k, ok)
		}
		if _, ok := r.Lookup("line"); ok {
			t.Error("Lookup(line) found a kind nobody registered")
		}
	}
	if err := reg.Register(kind.CLI()); err == nil {
		t.Error("Register(cli) a second time: no error")
	}
	l := reg.Loading()
	if !l.Known(cfgschema.KindCLI) || l.Known("grpc") {
		t.Errorf("Loading: Known(cli) = %v, Known(grpc) = %v", l.Known(cfgschema.KindCLI), l.Known("grpc"))
	}
}

// A cli cassette's comparison leaves out the HTTP the command made
// (either side's), and copies rather than edits; an http cassette's is
// the cassette itself.
func TestCompared(t *testing.T) {
	want := &cassettes.Cassette{Kind: cfgschema.KindCLI, Interactions: make([]cassettes.Interaction, 2), Output: &cassettes.Output{}}
	got := &cassettes.Cassette{Kind: cfgschema.KindCLI, Output: &cassettes.Output{}}
	w, g := kind.CLI().Compared(want, got)
	if w.Interactions != nil || g.Interactions != nil || len(want.Interactions) != 2 {
		t.Errorf("cli Compared kept HTTP (%d, %d) or edited the recording (%d)", len(w.Interactions), len(g.Interactions), len(want.Interactions))
	}
	if w, g := kind.CLI().Compared(got, got); w != got || g != got {
		t.Error("cli Compared copied cassettes without HTTP")
	}
	if w, g := kind.HTTP().Compared(want, got); w != want || g != got {
		t.Error("http Compared changed its sides")
	}
}

// Calls: one per request of an http cassette; the command's one of a cli
// cassette, none of a cli cassette without input.
func TestCalls(t *testing.T) {
	h := &cassettes.Cassette{Kind: cfgschema.KindHTTP, Interactions: []cassettes.Interaction{
		{Request: cassettes.Request{Method: "GET", URL: "http://x/a"}}, {Request: cassettes.Request{Method: "POST", URL: "http://x/b", Body: "{}"}}}}
	if got := kind.HTTP().Calls(h); len(got) != 2 || got[1].Method != "POST" || string(got[1].Body) != "{}" || got[0].Proc {
		t.Errorf("http Calls = %+v", got)
	}
	c := &cassettes.Cassette{Kind: cfgschema.KindCLI, Input: &cassettes.Input{Command: "gh", Args: []string{"pr", "list"}, Stdin: "x"}}
	want := []kind.Call{{Proc: true, Argv: []string{"gh", "pr", "list"}, Stdin: true}}
	if got := kind.CLI().Calls(c); !reflect.DeepEqual(got, want) {
		t.Errorf("cli Calls = %+v, want %+v", got, want)
	}
	if got := kind.CLI().Calls(&cassettes.Cassette{Kind: cfgschema.KindCLI}); got != nil {
		t.Errorf("cli Calls without input = %+v", got)
	}
}

// Incomparable: an http re-recording with another number of interactions,
// a cli one without output; nil when the sides can be compared.
func TestIncomparable(t *testing.T) {
	one := &cassettes.Cassette{Kind: cfgschema.KindHTTP, Interactions: make([]cassettes.Interaction, 1)}
	two := &cassettes.Cassette{Kind: cfgschema.KindHTTP, Interactions: make([]cassettes.Interaction, 2)}
	if d := kind.HTTP().Incomparable(one, two); d == nil || d.Class != "interactions" ||
		d.Message != "the real service now makes 2 HTTP interactions for this scenario; the cassette has 1" {
		t.Errorf("http, 1 then 2 interactions: %+v", d)
	}
	if d := kind.HTTP().Incomparable(two, two); d != nil {
		t.Errorf("http, same number: %+v", d)
	}
	out := &cassettes.Cassette{Kind: cfgschema.KindCLI, Output: &cassettes.Output{}}
	none := &cassettes.Cassette{Kind: cfgschema.KindCLI}
	if d := kind.CLI().Incomparable(out, none); d == nil || d.Field != "output" || d.Message != "no output to compare" {
		t.Errorf("cli without output: %+v", d)
	}
	if d := kind.CLI().Incomparable(out, out); d != nil {
		t.Errorf("cli with output: %+v", d)
	}
}
