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
	"github.com/cassette-dev/cassette/internal/redact"
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
	sch, err := jsonschema.NewCompiler().Compile(filepath.Join("..", "..", "internal", "har", "testdata", "har-1.2.schema.json"))
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
		// A page per cassette comes back as one cassette with its scenario
		// (under the adapter it is imported as).
		p := filepath.Join(dir, "cassettes", "back", filepath.FromSlash(o.Scenario)+".yaml")
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
			// Bodies too: a value under a credential-named key (httpbin's
			// echoed "Authorization") is redacted on the way in.
			redacted := func(h http.Header, body cassettes.Body) cassettes.Body {
				out, _ := redact.NewRules(nil).RedactByName(h.Get("Content-Type"), []byte(body))
				return cassettes.Body(out)
			}
			if a.Request.Method != b.Request.Method || a.Request.URL != b.Request.URL || a.Response.Code != b.Response.Code ||
				redacted(aq, a.Request.Body) != b.Request.Body || redacted(ah, a.Response.Body) != b.Response.Body ||
				!sameHeaders(aq, bq) || !sameHeaders(ah, bh) {
				t.Errorf("%s interactions[%d] changed in the round trip", p, i)
			}
			if !strings.HasPrefix(b.Response.Status, a.Response.Status[:3]) {
				t.Errorf("%s interactions[%d] status %q, want %q", p, i, b.Response.Status, a.Response.Status)
			}
		}
	}
}

// TestImportHARLearnsAcrossPages: a refresh token answered on the first
// page and posted (under its credential name) on the second is learned on
// the second and scrubbed from both; the import succeeds.
func TestImportHARLearnsAcrossPages(t *testing.T) {
	dir := t.TempDir()
	harFile := filepath.Join(dir, "s.har")
	const tok = "rt-91b2c7d4e5f6a7b8"
	os.WriteFile(harFile, []byte(`{"log":{"version":"1.2","creator":{"name":"x","version":"1"},
"pages":[{"startedDateTime":"2026-11-22T14:00:00Z","id":"p1","title":"login","pageTimings":{}},{"startedDateTime":"2026-11-22T14:00:01Z","id":"p2","title":"refresh","pageTimings":{}}],
"entries":[
{"pageref":"p1","startedDateTime":"2026-11-22T14:00:00Z","time":1,"request":{"method":"POST","url":"https://auth.example/token","httpVersion":"HTTP/1.1","headers":[],"queryString":[],"cookies":[],"headersSize":-1,"bodySize":0},
 "response":{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1","headers":[{"name":"Content-Type","value":"application/json"}],"cookies":[],"content":{"size":1,"mimeType":"application/json","text":"{\"refresh_token\":\"`+tok+`\"}"},"redirectURL":"","headersSize":-1,"bodySize":-1},"cache":{},"timings":{"send":0,"wait":1,"receive":0}},
{"pageref":"p2","startedDateTime":"2026-11-22T14:00:01Z","time":1,"request":{"method":"POST","url":"https://auth.example/token","httpVersion":"HTTP/1.1","headers":[{"name":"Content-Type","value":"application/x-www-form-urlencoded"}],"queryString":[],"cookies":[],"headersSize":-1,"bodySize":0,
  "postData":{"mimeType":"application/x-www-form-urlencoded","text":"grant_type=refresh_token&refresh_token=`+tok+`"}},
 "response":{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1","headers":[],"cookies":[],"content":{"size":2,"mimeType":"application/json","text":"{}"},"redirectURL":"","headersSize":-1,"bodySize":-1},"cache":{},"timings":{"send":0,"wait":1,"receive":0}}
]}}`), 0o644)
	var out, errw strings.Builder
	code := Main([]string{"import", "har", harFile, "--adapter", "auth", "--out", filepath.Join(dir, "cassettes"), "--config", filepath.Join(dir, "none.yaml")},
		strings.NewReader(""), &out, &errw)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errw.String())
	}
	for _, name := range []string{"login", "refresh"} {
		data, err := os.ReadFile(filepath.Join(dir, "cassettes", "auth", name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		// The placeholder is percent-encoded inside a form body.
		if strings.Contains(string(data), tok) || !(strings.Contains(string(data), "[REDACTED]") || strings.Contains(string(data), "%5BREDACTED%5D")) {
			t.Errorf("%s:\n%s", name, data)
		}
	}
}
