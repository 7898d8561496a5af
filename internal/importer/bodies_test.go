package importer

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// bodiless is entry without the body texts, as a HAR saved without
// content holds it: the sizes are there, the texts are not.
func bodiless(page, method, url, ctype string, size int) map[string]any {
	e := entry(page, method, url, ctype, "")
	e["response"].(map[string]any)["content"] = map[string]any{"size": size, "mimeType": ctype}
	if method == "POST" {
		e["request"].(map[string]any)["bodySize"] = 17
	}
	return e
}

func writeHARFile(t *testing.T, path string, entries ...any) {
	t.Helper()
	data, err := json.Marshal(map[string]any{"log": map[string]any{"version": "1.2", "creator": map[string]any{"name": "test", "version": "1"},
		"pages": []any{map[string]any{"id": "p1", "title": "Shop", "startedDateTime": "2026-01-02T03:04:05Z"}}, "entries": entries}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestImportHARWithoutBodies: a HAR saved without content imported
// silently and replayed empty 200s. It is refused, nothing written, each
// problem naming the entry and field; a HAR missing only some bodies is
// imported, each missing one a warning naming the cassette, interaction
// and entry.
func TestImportHARWithoutBodies(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "shop.har")
	writeHARFile(t, src, bodiless("p1", "GET", "https://shop.example/", "text/html", 1234),
		bodiless("p1", "POST", "https://shop.example/api/cart", "application/json", 56))
	out := filepath.Join(dir, "cassettes")
	_, err := Import(Options{From: HAR, Source: src, Dir: out})
	ce := asError(t, err)
	if ce.Reason != outcome.ECassetteInvalid || !strings.Contains(ce.Message, "saved without its bodies") || ce.NextStep != "cassette import har "+src+" --adapter shop" {
		t.Fatalf("a HAR without bodies: %v (next %q)", err, ce.NextStep)
	}
	var fields []string
	for _, p := range ce.Problems {
		if p.File != src {
			t.Errorf("problem in %q, want %s", p.File, src)
		}
		fields = append(fields, p.Field+": "+p.Message)
	}
	if got := strings.Join(fields, "; "); got != "log.entries[0].response.content.text: absent; its size says 1234 bytes; "+
		"log.entries[1].response.content.text: absent; its size says 56 bytes; log.entries[1].request.postData.text: absent; its size says 17 bytes" {
		t.Errorf("problems: %s", got)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused import wrote %s (%v)", out, err)
	}

	writeHARFile(t, src, entry("p1", "GET", "https://shop.example/", "text/html", "<p>hi</p>"),
		bodiless("p1", "GET", "https://shop.example/logo.svg", "image/svg+xml", 300))
	res, err := Import(Options{From: HAR, Source: src, Dir: out})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(out, "shop", "shop.yaml") + " interactions[1]: " + src + " log.entries[1].response.content.text is absent (its size says 300 bytes): it replays empty"
	if len(res.Saved) != 1 || strings.Join(res.Warnings, "\n") != want {
		t.Errorf("saved %d, warnings:\n%s\nwant:\n%s", len(res.Saved), strings.Join(res.Warnings, "\n"), want)
	}
}
