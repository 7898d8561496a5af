package verify

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// TestDiffPathsWithoutAProject: `cassette diff A B` reached without the
// process, outside a project: the same cassette passes, a changed body
// drifts, and the next step shows A's normalized form.
func TestDiffPathsWithoutAProject(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	save := func(name, body string) string {
		c := &cassettes.Cassette{Cassette: 1, Version: 2, Adapter: "shop", Scenario: "items", Kind: cfgschema.KindHTTP, RecordedAt: &at, Path: filepath.Join(dir, name),
			Interactions: []cassettes.Interaction{{Request: cassettes.Request{Method: "GET", URL: "http://shop.test/items"},
				Response: cassettes.Response{Code: 200, Status: "200 OK", Headers: http.Header{"Content-Type": {"application/json"}}, Body: cassettes.Body(body)}}}}
		if err := cassettes.Save(c, cassettes.SaveOptions{}); err != nil {
			t.Fatal(err)
		}
		return c.Path
	}
	a, b := save("a.yaml", `{"items":[]}`), save("b.yaml", `{"items":[1]}`)
	same, err := DiffPaths(a, a, nil, "")
	if err != nil || same.Exit() != outcome.ExitPass {
		t.Fatalf("A against itself: %v, %v; want a pass", err, same)
	}
	d, err := DiffPaths(a, b, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := d.Render(&out, false); err != nil {
		t.Fatal(err)
	}
	if d.Exit() != outcome.ExitFail || d.NextStep != "cassette normalize "+a || !strings.Contains(out.String(), "items") {
		t.Fatalf("A against B: exit %d, next %q, diff:\n%s\nwant a drift naming the field and `cassette normalize A`", d.Exit(), d.NextStep, out.String())
	}
}

// TestDiffPathsModelled: `cassette diff --compare modelled A B` holds B to
// A as verify holds a fake in modelled mode: what B leaves out is listed
// with the figure, not a drift (it drifts in exact mode); a field B
// invents still drifts; an unknown mode is a usage error naming the flag.
func TestDiffPathsModelled(t *testing.T) {
	dir := t.TempDir()
	save := func(name, body string) string {
		c := &cassettes.Cassette{Cassette: 1, Version: 2, Adapter: "shop", Scenario: "item", Kind: cfgschema.KindHTTP, Path: filepath.Join(dir, name),
			Interactions: []cassettes.Interaction{{Request: cassettes.Request{Method: "GET", URL: "http://shop.test/items/1"},
				Response: cassettes.Response{Code: 200, Status: "200 OK", Headers: http.Header{"Content-Type": {"application/json"}}, Body: cassettes.Body(body)}}}}
		if err := cassettes.Save(c, cassettes.SaveOptions{}); err != nil {
			t.Fatal(err)
		}
		return c.Path
	}
	real := save("real.yaml", `{"id":1,"name":"lamp","price":12,"tags":["a"],"vendor":{"id":9,"name":"v"}}`)
	fake := save("fake.yaml", `{"id":1,"name":"lamp","price":12}`)
	invents := save("invents.yaml", `{"id":1,"name":"lamp","price":12,"colour":"red"}`)
	if d, err := DiffPaths(real, fake, nil, ""); err != nil || d.Exit() != outcome.ExitFail {
		t.Fatalf("exact: %v, exit %v; want a drift", err, d)
	}
	d, err := DiffPaths(real, fake, nil, cfgschema.CompareModelled)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	d.Render(&out, false)
	if d.Exit() != outcome.ExitPass || !strings.Contains(out.String(), "shop/item: 42.9% of response fields modelled (3 of 7), 0 required missing") ||
		!strings.Contains(out.String(), "not modelled  interactions[0].response.body $.vendor") {
		t.Errorf("modelled: exit %d\n%s\nwant a pass listing $.vendor and the figure", d.Exit(), out.String())
	}
	// Two directories: each pair with its figure.
	set, err := DiffPaths(dir, dir, nil, cfgschema.CompareModelled)
	out.Reset()
	if err != nil || set.Render(&out, false) != nil || !strings.Contains(out.String(), "of response fields modelled") {
		t.Errorf("modelled, two directories: %v\n%s", err, out.String())
	}
	if d, err := DiffPaths(real, invents, nil, cfgschema.CompareModelled); err != nil || d.Exit() != outcome.ExitFail {
		t.Errorf("modelled, an invented field: %v, exit %v; want a drift", err, d)
	}
	_, err = DiffPaths(real, fake, nil, "loose")
	if ce := outcome.AsError(err); ce == nil || ce.Reason != outcome.EUsage || ce.Problems[0].Field != "--compare" {
		t.Errorf("--compare loose: %v, want E_USAGE naming --compare", err)
	}
}
