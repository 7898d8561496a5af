package importer

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/har"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
)

// realGoVCR is a folder of real go-vcr cassettes, read in place.
var realGoVCR = filepath.Join("..", "..", "..", "shared", "testdata", "go-vcr-real")

// harWith is a HAR of two pages: the first shows a token in its text that
// only the second reveals as one (by its field's name), and a declared
// credential sits in a query.
func harWith(t *testing.T, dir string) string {
	t.Helper()
	return writeHAR(t, filepath.Join(dir, "Shop Session.har"),
		[]any{
			map[string]any{"id": "p1", "title": "Orders", "startedDateTime": "2026-01-02T03:04:05Z"},
			map[string]any{"id": "p2", "title": "Log in", "startedDateTime": "2026-01-02T03:05:05Z"},
		},
		entry("p1", "GET", "https://shop.example/orders", "text/plain", "two orders for learned-tok-abcdef"),
		entry("p2", "POST", "https://shop.example/login?key=declared-key-123456", "application/json", `{"access_token":"learned-tok-abcdef"}`))
}

// writeHAR writes a HAR 1.2 of these pages and entries at path.
func writeHAR(t *testing.T, path string, pages []any, entries ...any) string {
	t.Helper()
	a := map[string]any{"log": map[string]any{
		"version": "1.2", "creator": map[string]any{"name": "test", "version": "1"},
		"pages": pages, "entries": entries,
	}}
	data, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func entry(page, method, url, ctype, body string) map[string]any {
	return map[string]any{
		"pageref": page, "startedDateTime": "2026-01-02T03:04:05Z", "time": 1,
		"request": map[string]any{"method": method, "url": url, "httpVersion": "HTTP/1.1", "headers": []any{},
			"queryString": []any{}, "cookies": []any{}, "headersSize": -1, "bodySize": 0},
		"response": map[string]any{"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
			"headers": []any{map[string]any{"name": "Content-Type", "value": ctype}}, "cookies": []any{},
			"content": map[string]any{"size": len(body), "mimeType": ctype, "text": body}, "redirectURL": "", "headersSize": -1, "bodySize": len(body)},
		"cache": map[string]any{}, "timings": map[string]any{"send": 0, "wait": 1, "receive": 0},
	}
}

// TestImportHARRedactsAcrossPages: a HAR is placed under dir/<adapter>/,
// one cassette per page, the adapter named after the file; the declared
// value and a token learned on page 2 are gone from every cassette written,
// page 1's included, and the files load strictly.
func TestImportHARRedactsAcrossPages(t *testing.T) {
	dir := t.TempDir()
	src := harWith(t, dir)
	res, err := Import(Options{From: HAR, Source: src, Dir: filepath.Join(dir, "cassettes"),
		Credentials: map[string]string{"SHOP_KEY": "declared-key-123456"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Adapter != "shop-session" || res.Dir != filepath.Join(dir, "cassettes", "shop-session") || len(res.Saved) != 2 {
		t.Fatalf("result %+v", res)
	}
	for _, c := range res.Saved {
		data, err := os.ReadFile(c.Path)
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{"declared-key-123456", "learned-tok-abcdef"} {
			if strings.Contains(string(data), secret) {
				t.Errorf("%s holds %s:\n%s", c.Path, secret, data)
			}
		}
		if _, err := cassettes.Load(c.Path, cassettes.LoadOptions{}); err != nil {
			t.Errorf("%s does not load: %v", c.Path, err)
		}
	}
	if want := filepath.Join(res.Dir, "log-in.yaml"); res.Saved[1].Path != want {
		t.Errorf("page 2 saved at %s, want %s", res.Saved[1].Path, want)
	}
}

// TestImportHARProjectNames: a field named only in the project's
// redact.names (Options.Rules) is redacted, and its value learned and
// scrubbed from the other page, as a built-in name would be.
func TestImportHARProjectNames(t *testing.T) {
	dir := t.TempDir()
	src := writeHAR(t, filepath.Join(dir, "tenant.har"),
		[]any{map[string]any{"id": "p1", "title": "Tenant", "startedDateTime": "2026-01-02T03:04:05Z"}},
		entry("p1", "GET", "https://shop.example/who", "application/json", `{"tenant_pin":"pin-0123456789"}`),
		entry("p1", "GET", "https://shop.example/echo", "text/plain", "your pin is pin-0123456789"))
	res, err := Import(Options{From: HAR, Source: src, Dir: filepath.Join(dir, "cassettes"), Rules: redact.NewRules([]string{"tenant_pin"})})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(res.Saved[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(got), "pin-0123456789") || !strings.Contains(string(got), `{"tenant_pin":"[REDACTED]"}`) {
		t.Errorf("the pin named in redact.names is in the import:\n%s", got)
	}
}

// TestImportWritesNothingWhenRefused: an existing cassette (without Force)
// or a credential left in any go-vcr cassette stops the import before the
// first write; with Force the same import overwrites.
func TestImportWritesNothingWhenRefused(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "cassettes")
	if _, err := Import(Options{From: GoVCR, Source: realGoVCR, Adapter: "real", Dir: out}); err != nil {
		t.Fatal(err)
	}
	before := tree(t, out)
	_, err := Import(Options{From: GoVCR, Source: realGoVCR, Adapter: "real", Dir: out})
	if ce := asError(t, err); ce.Reason != outcome.EUsage || !strings.Contains(ce.NextStep, "--force") {
		t.Errorf("second import: %v (next %q), want E_USAGE with --force", err, ce.NextStep)
	}
	if after := tree(t, out); after != before {
		t.Errorf("a refused import changed the tree:\n%s\n→\n%s", before, after)
	}
	if _, err := Import(Options{From: GoVCR, Source: realGoVCR, Adapter: "real", Dir: out, Force: true}); err != nil {
		t.Errorf("with Force: %v", err)
	}

	// A value of theirs declared as a credential is redacted, in every
	// file that holds it.
	data, err := os.ReadFile(filepath.Join(realGoVCR, "etcd-f0c6.yaml"))
	const secret = "createdIndex" // a word of its response bodies
	if err != nil || !strings.Contains(string(data), secret) {
		t.Fatalf("etcd-f0c6.yaml has no %s (%v)", secret, err)
	}
	fresh := filepath.Join(dir, "fresh")
	res, err := Import(Options{From: GoVCR, Source: realGoVCR, Adapter: "real", Dir: fresh, Credentials: map[string]string{"ETCD": secret}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Saved {
		if b, _ := os.ReadFile(c.Path); strings.Contains(string(b), secret) {
			t.Errorf("%s holds the declared value", c.Path)
		}
	}
}

// TestImportRefusesBadOptions: each wrong option is a usage error naming
// it, before anything is read or written.
func TestImportRefusesBadOptions(t *testing.T) {
	dir := t.TempDir()
	src := harWith(t, dir)
	for _, tc := range []struct {
		name string
		opts Options
		want outcome.Reason
		msg  string
	}{
		{"format", Options{From: "pcap", Source: src}, outcome.EUsage, "expected govcr or har"},
		{"missing", Options{From: HAR, Source: filepath.Join(dir, "nope.har")}, outcome.ECassetteNotFound, "nothing to import"},
		{"adapter", Options{From: HAR, Source: src, Adapter: "Bad Name"}, outcome.EUsage, "not a valid name"},
		{"by", Options{From: HAR, Source: src, By: "day"}, outcome.EUsage, "expected page or host"},
	} {
		_, err := Import(tc.opts)
		if ce := asError(t, err); ce.Reason != tc.want || !strings.Contains(ce.Message, tc.msg) {
			t.Errorf("%s: %v, want %s with %q", tc.name, err, tc.want, tc.msg)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("refused imports wrote files: %v", entries)
	}
}

// TestExportHARRoundTrip: what ExportHAR writes imports back with the same
// interactions.
func TestExportHARRoundTrip(t *testing.T) {
	x, err := ExportHAR([]string{realGoVCR}, har.Creator{Name: "cassette", Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	list, err := cassettes.LoadTree([]string{realGoVCR}, cassettes.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range list {
		n += len(c.Interactions)
	}
	if x.Cassettes != len(list) || x.Entries != n || !strings.HasSuffix(string(x.JSON), "}\n") {
		t.Errorf("export: %d cassettes, %d entries; want %d, %d", x.Cassettes, x.Entries, len(list), n)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "out.har")
	if err := os.WriteFile(p, x.JSON, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Import(Options{From: HAR, Source: p, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	for _, c := range res.Saved {
		got += len(c.Interactions)
	}
	if got != n || len(res.Saved) != len(list) {
		t.Errorf("import of the export: %d cassettes, %d interactions; want %d, %d", len(res.Saved), got, len(list), n)
	}
}

func asError(t *testing.T, err error) *outcome.Error {
	t.Helper()
	var ce *outcome.Error
	if !errors.As(err, &ce) {
		t.Fatalf("error %v (%T), want a *outcome.Error", err, err)
	}
	return ce
}

// tree lists the files under dir with their sizes and modification times.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		b.WriteString(p + " " + fi.ModTime().String() + "\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
