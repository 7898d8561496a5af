package verify

import (
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/normalize"
)

// TestPipelineCacheKeyedByOptions: options that share a cache (copies of
// one Options) get one pipeline for one set of names, and a copy whose
// credentials changed gets its own, which redacts the new value.
func TestPipelineCacheKeyedByOptions(t *testing.T) {
	cfg := &cfgschema.Config{Dir: t.TempDir()}
	c := Case{Cassette: &cassettes.Cassette{Adapter: "a", Scenario: "s", Normalizers: []string{"uuid"}}}
	a := Options{Config: cfg, Normalizers: normalize.Builtins(), Credentials: map[string]string{"TOKEN": "first-secret-value"}, pipes: newPipelines()}
	p1, err := pipeline(c, a)
	if err != nil {
		t.Fatal(err)
	}
	if p2, _ := pipeline(c, a); p2 != p1 {
		t.Error("the same options and names built a second pipeline")
	}
	b := a
	b.Credentials = map[string]string{"TOKEN": "second-secret-value"}
	p3, err := pipeline(c, b)
	if err != nil {
		t.Fatal(err)
	}
	if p3 == p1 {
		t.Fatal("options with other credentials got the first options' pipeline")
	}
	if got := p3.Text(normalize.NewState(), "x second-secret-value x"); got == "x second-secret-value x" {
		t.Errorf("the second credentials' pipeline left their value: %q", got)
	}
	other := Case{Cassette: &cassettes.Cassette{Adapter: "a", Scenario: "t", Normalizers: []string{"sha:full"}}}
	if p4, _ := pipeline(other, a); p4 == p1 {
		t.Error("other names got the first names' pipeline")
	}
}
