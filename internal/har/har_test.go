package har

import (
	"bytes"
	"encoding/json"
	"net/http"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
)

func sample() []*cassettes.Cassette {
	at := time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC)
	return []*cassettes.Cassette{{
		Cassette: 1, Version: 2, Adapter: "shop", Scenario: "checkout", Kind: cfgschema.KindHTTP, RecordedAt: &at,
		Interactions: []cassettes.Interaction{
			{Request: cassettes.Request{Method: "GET", URL: "https://shop.example/api/cart?id=7&x=a%20b", Proto: "HTTP/1.1",
				Headers: http.Header{"Accept": {"application/json"}, "X-Multi": {"1", "2"}}},
				Response: cassettes.Response{Code: 200, Status: "200 OK", Proto: "HTTP/2.0", Duration: cassettes.Duration(12 * time.Millisecond),
					Headers: http.Header{"Content-Type": {"application/json"}}, Body: "{\"items\":[1,2]}\n"}},
			{Request: cassettes.Request{Method: "POST", URL: "https://shop.example/api/upload", Proto: "HTTP/1.1",
				Headers: http.Header{"Content-Type": {"application/octet-stream"}}, Body: "\x89PNG\r\n\x1a\n\x00\xff"},
				Response: cassettes.Response{Code: 201, Status: "201 Created", Proto: "HTTP/1.1",
					Headers: http.Header{"Content-Type": {"image/png"}}, Body: "\x00\x01\xfe\xff"}},
			{Request: cassettes.Request{Method: "POST", URL: "https://shop.example/api/pay", Proto: "HTTP/1.1",
				Headers: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, Body: "card=%5BREDACTED%5D&amount=3"},
				Response: cassettes.Response{Code: 402, Status: "402 Payment Required", Proto: "HTTP/1.1",
					Headers: http.Header{"Content-Type": {"text/plain; charset=utf-8"}}, Body: "no\r\n"}},
		},
	}}
}

func exportJSON(t *testing.T, cs []*cassettes.Cassette) []byte {
	t.Helper()
	data, err := json.MarshalIndent(FromCassettes(cs, ExportOptions{}), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestExportValidatesAgainstHARSchema checks the export against a JSON
// Schema of HAR 1.2 written from the spec (testdata/har-1.2.schema.json).
func TestExportValidatesAgainstHARSchema(t *testing.T) {
	sch, err := jsonschema.NewCompiler().Compile(filepath.Join("testdata", "har-1.2.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(exportJSON(t, sample())))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("the export is not HAR 1.2: %v", err)
	}
	// And the schema is not a rubber stamp: a HAR missing a required field fails.
	bad, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"log":{"version":"1.2","creator":{"name":"x","version":"1"},"entries":[{"startedDateTime":"2026-11-22T14:00:00Z","time":1,"request":{"method":"GET","url":"https://x/"},"response":{},"cache":{},"timings":{"send":0,"wait":0,"receive":0}}]}}`))
	if sch.Validate(bad) == nil {
		t.Error("the schema accepted an entry without request.httpVersion and response fields")
	}
}

// TestRoundTrip: cassette → HAR → cassette keeps method, URL, status,
// headers and every byte of both bodies.
func TestRoundTrip(t *testing.T) {
	in := sample()
	a, err := Read(bytes.NewReader(exportJSON(t, in)))
	if err != nil {
		t.Fatal(err)
	}
	ims, skipped, err := ToCassettes(a, ImportOptions{Adapter: "shop"})
	if err != nil || skipped != 0 || len(ims) != 1 {
		t.Fatalf("%d cassettes, %d skipped, %v", len(ims), skipped, err)
	}
	got := ims[0].Cassette
	if got.Scenario != "checkout" || got.Adapter != "shop" || !got.RecordedAt.Equal(*in[0].RecordedAt) {
		t.Errorf("names %s/%s at %v", got.Adapter, got.Scenario, got.RecordedAt)
	}
	for i, want := range in[0].Interactions {
		g := got.Interactions[i]
		if g.Request.Method != want.Request.Method || g.Request.URL != want.Request.URL || g.Request.Body != want.Request.Body {
			t.Errorf("[%d] request %s %s %q", i, g.Request.Method, g.Request.URL, g.Request.Body)
		}
		if !reflect.DeepEqual(g.Request.Headers, want.Request.Headers) || !reflect.DeepEqual(g.Response.Headers, want.Response.Headers) {
			t.Errorf("[%d] headers %v / %v", i, g.Request.Headers, g.Response.Headers)
		}
		if g.Response.Code != want.Response.Code || g.Response.Status != want.Response.Status || g.Response.Body != want.Response.Body {
			t.Errorf("[%d] response %d %q %q", i, g.Response.Code, g.Response.Status, g.Response.Body)
		}
		if g.Response.Proto != want.Response.Proto || g.Response.Duration != want.Response.Duration {
			t.Errorf("[%d] proto %s duration %v", i, g.Response.Proto, g.Response.Duration)
		}
	}
}

// chromiumLike is the shape Chromium's dev tools write: pages, HTTP/2
// pseudo-headers, "h2", a gzip-encoded response already decoded in
// content.text, base64 content, a blocked request (status 0), extra
// underscore fields.
const chromiumLike = `{"log":{"version":"1.2","creator":{"name":"WebInspector","version":"537.36"},
"pages":[{"startedDateTime":"2026-11-22T14:00:00.123Z","id":"page_1","title":"Example Shop","pageTimings":{"onContentLoad":10,"onLoad":20}}],
"entries":[
{"_initiator":{"type":"other"},"pageref":"page_1","startedDateTime":"2026-11-22T14:00:00.200Z","time":31.5,
 "request":{"method":"GET","url":"https://shop.example/","httpVersion":"h2","headers":[{"name":":authority","value":"shop.example"},{"name":":method","value":"GET"},{"name":"accept","value":"text/html"},{"name":"cookie","value":"session=abc123"}],"queryString":[],"cookies":[],"headersSize":-1,"bodySize":0},
 "response":{"status":200,"statusText":"","httpVersion":"h2","headers":[{"name":"content-encoding","value":"gzip"},{"name":"content-type","value":"text/html"},{"name":"content-length","value":"20"}],"cookies":[],"content":{"size":13,"mimeType":"text/html","compression":7,"text":"<p>hello</p>\n"},"redirectURL":"","headersSize":-1,"bodySize":20,"_transferSize":120},
 "cache":{},"timings":{"blocked":1,"dns":-1,"ssl":-1,"connect":-1,"send":0.1,"wait":30,"receive":1.4}},
{"pageref":"page_1","startedDateTime":"2026-11-22T14:00:00.300Z","time":5,
 "request":{"method":"GET","url":"https://cdn.example/logo.png","httpVersion":"http/2.0","headers":[],"queryString":[],"cookies":[],"headersSize":-1,"bodySize":0},
 "response":{"status":200,"statusText":"OK","httpVersion":"http/2.0","headers":[{"name":"content-type","value":"image/png"}],"cookies":[],"content":{"size":4,"mimeType":"image/png","text":"AAH+/w==","encoding":"base64"},"redirectURL":"","headersSize":-1,"bodySize":4},
 "cache":{},"timings":{"send":0,"wait":5,"receive":0}},
{"pageref":"page_1","startedDateTime":"2026-11-22T14:00:00.400Z","time":0,
 "request":{"method":"GET","url":"https://ads.example/t.js","httpVersion":"","headers":[],"queryString":[],"cookies":[],"headersSize":-1,"bodySize":0},
 "response":{"status":0,"statusText":"","httpVersion":"","headers":[],"cookies":[],"content":{"size":0,"mimeType":"x-unknown"},"redirectURL":"","headersSize":-1,"bodySize":-1,"_error":"net::ERR_BLOCKED_BY_CLIENT"},
 "cache":{},"timings":{"send":0,"wait":0,"receive":0}}
]}}`

func TestImportChromiumShapes(t *testing.T) {
	a, err := Read(strings.NewReader(chromiumLike))
	if err != nil {
		t.Fatal(err)
	}
	ims, skipped, err := ToCassettes(a, ImportOptions{Adapter: "shop"})
	if err != nil || skipped != 1 || len(ims) != 1 {
		t.Fatalf("%d cassettes, %d skipped, %v", len(ims), skipped, err)
	}
	c := ims[0].Cassette
	if c.Scenario != "example-shop" || len(c.Interactions) != 2 {
		t.Fatalf("%s with %d interactions", c.Scenario, len(c.Interactions))
	}
	page := c.Interactions[0]
	if _, ok := page.Request.Headers[":authority"]; ok || page.Request.Headers.Get("Accept") != "text/html" {
		t.Errorf("request headers %v", page.Request.Headers)
	}
	if page.Response.Headers.Get("Content-Encoding") != "" || page.Response.Headers.Get("Content-Length") != "13" || string(page.Response.Body) != "<p>hello</p>\n" {
		t.Errorf("decoded body announced as %v: %q", page.Response.Headers, page.Response.Body)
	}
	if page.Response.Status != "200 OK" || page.Response.Proto != "HTTP/2.0" || time.Duration(page.Response.Duration) != 31500*time.Microsecond {
		t.Errorf("status %q proto %q duration %v", page.Response.Status, page.Response.Proto, page.Response.Duration)
	}
	if img := c.Interactions[1]; string(img.Response.Body) != "\x00\x01\xfe\xff" {
		t.Errorf("base64 body %q", img.Response.Body)
	}
	ims, _, _ = ToCassettes(a, ImportOptions{Adapter: "shop", Group: ByHost})
	if len(ims) != 2 || ims[0].Cassette.Scenario != "shop.example" || ims[1].Cassette.Scenario != "cdn.example" {
		t.Errorf("by host: %d cassettes", len(ims))
	}
}

func TestReadRejects(t *testing.T) {
	for _, bad := range []string{``, `[]`, `{"log":{}}`, `{"log":{"entries":[{"request":{"url":"https://x/"}}]}}`} {
		if _, err := Read(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestImportNames: pages with the same title, or none a name can be made
// of, still get distinct strict names.
func TestImportNames(t *testing.T) {
	a := &Archive{Log: Log{Pages: []Page{{ID: "p1", Title: "Shop"}, {ID: "p2", Title: "shop"}, {ID: "p3", Title: "日本"}, {ID: "p4", Title: "!!"}}}}
	for _, id := range []string{"p1", "p2", "p3", "p4"} {
		a.Log.Entries = append(a.Log.Entries, Entry{Pageref: id, Request: Request{Method: "GET", URL: "https://x.example/"}, Response: Response{Status: 200}})
	}
	ims, _, err := ToCassettes(a, ImportOptions{Adapter: "a"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, im := range ims {
		names = append(names, im.Cassette.Scenario)
	}
	if got := strings.Join(names, ","); got != "shop,shop-2,har,har-2" {
		t.Errorf("names %s", got)
	}
}

// TestRoundTripKeepsNames: export and import again, and again, keep the
// scenario (it became shop-vm-1, then shop-shop-vm-1: the page title,
// adapter/scenario, was made a name); a scenario from a go-vcr tree keeps
// its case and folders; a HAR an earlier version exported (no _scenario)
// loses the adapter it is imported as from the title.
func TestRoundTripKeepsNames(t *testing.T) {
	for _, scenario := range []string{"vm-1", "TestLogin/Should_work"} {
		c := sample()
		c[0].Scenario = scenario
		for round := range 3 {
			a, err := Read(bytes.NewReader(exportJSON(t, c)))
			if err != nil {
				t.Fatal(err)
			}
			ims, _, err := ToCassettes(a, ImportOptions{Adapter: "shop"})
			if err != nil || len(ims) != 1 {
				t.Fatalf("%d cassettes, %v", len(ims), err)
			}
			if got := ims[0].Cassette.Scenario; got != scenario {
				t.Fatalf("round %d: %s became %s", round+1, scenario, got)
			}
			c = []*cassettes.Cassette{ims[0].Cassette}
		}
	}
	old := &Archive{Log: Log{Pages: []Page{{ID: "p1", Title: "shop/vm-1"}},
		Entries: []Entry{{Pageref: "p1", Request: Request{Method: "GET", URL: "https://x.example/"}, Response: Response{Status: 200}}}}}
	if ims, _, err := ToCassettes(old, ImportOptions{Adapter: "shop"}); err != nil || ims[0].Cassette.Scenario != "vm-1" {
		t.Errorf("an export without _scenario imports as %v (%v), want vm-1", ims[0].Cassette.Scenario, err)
	}
}

// TestExportPageIDsAreUnique: two cassettes with the same adapter/scenario
// (nested folders loaded without a config) stay two pages.
func TestExportPageIDsAreUnique(t *testing.T) {
	a, b := sample()[0], sample()[0]
	h := FromCassettes([]*cassettes.Cassette{a, b}, ExportOptions{})
	if len(h.Log.Pages) != 2 || h.Log.Pages[0].ID == h.Log.Pages[1].ID {
		t.Fatalf("pages %+v", h.Log.Pages)
	}
	ims, _, err := ToCassettes(h, ImportOptions{Adapter: "shop"})
	if err != nil || len(ims) != 2 || len(ims[1].Cassette.Interactions) != len(b.Interactions) {
		t.Fatalf("%d cassettes, %v", len(ims), err)
	}
}
