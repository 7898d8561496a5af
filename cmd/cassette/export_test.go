package main

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/cassette-dev/cassette/cassettes"
)

// TestExportHARThenImport: `cassette export har` of go-vcr's own cassettes
// is HAR 1.2 (checked against the schema har's tests use), and `cassette
// import har` of it gives back every method, URL, status, header and body.
func TestExportHARThenImport(t *testing.T) {
	bin, _, _ := proxyTestSetup(t)
	src := filepath.Join(sharedDir(), "testdata", "go-vcr-real")
	dir := t.TempDir()
	harFile := filepath.Join(dir, "out.har")
	if out, err := exec.Command(bin, "export", "har", src, "--out", harFile).CombinedOutput(); err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	sch, err := jsonschema.NewCompiler().Compile(filepath.Join("..", "..", "har", "testdata", "har-1.2.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(harFile)
	inst, err := jsonschema.UnmarshalJSON(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("the export is not HAR 1.2: %v", err)
	}
	imp := exec.Command(bin, "import", "har", harFile, "--adapter", "back")
	imp.Dir = dir
	if out, err := imp.CombinedOutput(); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	originals, err := cassettes.LoadTree([]string{src}, cassettes.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range originals {
		// A page per cassette, titled adapter/scenario, comes back as one
		// cassette named after the title.
		p := filepath.Join(dir, "cassettes", "back", cassettes.StrictName(o.ID())+".yaml")
		c, err := cassettes.Load(p, cassettes.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Interactions) != len(o.Interactions) {
			t.Fatalf("%s: %d interactions, want %d", p, len(c.Interactions), len(o.Interactions))
		}
		for i := range o.Interactions {
			a, b := o.Interactions[i], c.Interactions[i]
			ah, bh := a.Response.Headers.Clone(), b.Response.Headers.Clone()
			ah.Del("Content-Length") // import sets it to the body's length; go-vcr-real's json-content-type had a stale one
			bh.Del("Content-Length")
			aq, bq := a.Request.Headers.Clone(), b.Request.Headers.Clone()
			if aq.Get("Authorization") != "" && bq.Get("Authorization") != "[REDACTED]" {
				t.Errorf("%s interactions[%d]: Authorization imported as %q", p, i, bq.Get("Authorization"))
			}
			// Imported like any recording: headers named like credentials
			// (Authorization, Access-Control-Allow-Credentials) are redacted.
			for _, pair := range [][2]http.Header{{aq, bq}, {ah, bh}} {
				for k, vs := range pair[1] {
					if len(vs) == 1 && vs[0] == "[REDACTED]" {
						pair[0].Del(k)
						pair[1].Del(k)
					}
				}
			}
			if a.Request.Method != b.Request.Method || a.Request.URL != b.Request.URL || a.Response.Code != b.Response.Code ||
				a.Request.Body != b.Request.Body || a.Response.Body != b.Response.Body ||
				!sameHeaders(aq, bq) || !sameHeaders(ah, bh) {
				t.Errorf("%s interactions[%d] changed in the round trip", p, i)
			}
			if !strings.HasPrefix(b.Response.Status, a.Response.Status[:3]) {
				t.Errorf("%s interactions[%d] status %q, want %q", p, i, b.Response.Status, a.Response.Status)
			}
		}
	}
}
