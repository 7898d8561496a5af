package verify

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// TestDiffPathsWithoutAProject: `cassette diff A B` reached without the
// process, outside a project: the same cassette passes, a changed body
// drifts, and the next step shows A's normalized form.
func TestDiffPathsWithoutAProject(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	save := func(name, body string) string {
		c := &cassettes.Cassette{Cassette: 1, Version: 2, Adapter: "shop", Scenario: "items", Kind: cassettes.KindHTTP, RecordedAt: &at, Path: filepath.Join(dir, name),
			Interactions: []cassettes.Interaction{{Request: cassettes.Request{Method: "GET", URL: "http://shop.test/items"},
				Response: cassettes.Response{Code: 200, Status: "200 OK", Headers: http.Header{"Content-Type": {"application/json"}}, Body: cassettes.Body(body)}}}}
		if err := cassettes.Save(c, cassettes.SaveOptions{}); err != nil {
			t.Fatal(err)
		}
		return c.Path
	}
	a, b := save("a.yaml", `{"items":[]}`), save("b.yaml", `{"items":[1]}`)
	same, err := DiffPaths(a, a, nil)
	if err != nil || same.Exit() != outcome.ExitPass {
		t.Fatalf("A against itself: %v, %v; want a pass", err, same)
	}
	d, err := DiffPaths(a, b, nil)
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
