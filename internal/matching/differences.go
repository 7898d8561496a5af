package matching

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/match"
)

// differences lists the fields the rules compare in which got differs
// from the recorded view, each with a small diff.
func (c *compiled) differences(rec, got view) []Difference {
	var ds []Difference
	line := func(field, r, g string) {
		if r != g {
			ds = append(ds, Difference{Field: field, Recorded: r, Got: g, Diff: "- " + r + "\n+ " + g})
		}
	}
	if !c.IgnoreMethod {
		line("method", rec.method, got.method)
	}
	if !c.IgnoreHost {
		line("host", rec.origin, got.origin)
	}
	line("path", rec.path, got.path)
	if !c.IgnoreQuery && rec.query != got.query {
		ds = append(ds, Difference{Field: "query", Recorded: rec.query, Got: got.query, Diff: queryDiff(rec.query, got.query)})
	}
	for i, name := range c.headers {
		line("header "+name, rec.headers[i], got.headers[i])
	}
	if c.Body != match.BodyIgnore && rec.bodyKey != got.bodyKey {
		d := Difference{Field: "body", Recorded: preview(rec.body), Got: preview(got.body), Diff: bodyDiff(rec, got)}
		if len(c.IgnoreJSON) > 0 && rec.isJSON && got.isJSON && !rec.multipart {
			d.Diff += "\n(left out of both sides: " + strings.Join(c.IgnoreJSON, ", ") + ")"
		}
		switch {
		case rec.multipart && got.multipart:
			d.Diff += "\n(multipart: compared part by part, by name, filename, content type and content; the boundary does not count)"
		case onlyBoundaryDiffers(rec.body, got.body, rec.boundary, got.boundary):
			d.Diff = "only the multipart boundary differs (recorded " + rec.boundary + ", request " + got.boundary + "): a body that does not parse as multipart is compared byte for byte\n" + d.Diff
		}
		ds = append(ds, d)
	}
	return ds
}

// queryDiff lists the parameters that differ, by name: "- name=recorded"
// and "+ name=got" lines.
func queryDiff(rec, got string) string {
	qr, _ := url.ParseQuery(rec)
	qg, _ := url.ParseQuery(got)
	keys := map[string]bool{}
	for k := range qr {
		keys[k] = true
	}
	for k := range qg {
		keys[k] = true
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		r, g := strings.Join(qr[k], ","), strings.Join(qg[k], ",")
		_, inR := qr[k]
		_, inG := qg[k]
		if r == g && inR == inG {
			continue
		}
		if inR {
			fmt.Fprintf(&b, "- %s=%s\n", k, r)
		}
		if inG {
			fmt.Fprintf(&b, "+ %s=%s\n", k, g)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

const (
	maxDiffLines   = 24
	maxPreviewSize = 200
)

// bodyDiff is a unified diff of the bodies as compared (JSON indented),
// cut at maxDiffLines; binary bodies are shown by their sizes.
func bodyDiff(rec, got view) string {
	if !isText(rec.body) || !isText(got.body) {
		return fmt.Sprintf("- %d bytes (binary)\n+ %d bytes (binary)", len(rec.body), len(got.body))
	}
	a, b := string(rec.body), string(got.body)
	if rec.isJSON && got.isJSON {
		a, b = indentJSON(rec.body), indentJSON(got.body)
	}
	if !strings.HasSuffix(a, "\n") {
		a += "\n"
	}
	if !strings.HasSuffix(b, "\n") {
		b += "\n"
	}
	d := udiff.Unified("recorded", "request", a, b)
	lines := strings.Split(strings.TrimSuffix(d, "\n"), "\n")
	if len(lines) > maxDiffLines {
		lines = append(lines[:maxDiffLines], fmt.Sprintf("… (%d more diff lines)", len(lines)-maxDiffLines))
	}
	return strings.Join(lines, "\n")
}

func indentJSON(b []byte) string {
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return string(b)
	}
	return out.String()
}

func isText(b []byte) bool {
	return !bytes.ContainsRune(b, 0) && !cassettes.Body(b).IsBinary()
}

func preview(b []byte) string {
	if !isText(b) {
		return fmt.Sprintf("%d bytes (binary)", len(b))
	}
	if len(b) > maxPreviewSize {
		return string(b[:maxPreviewSize]) + "…"
	}
	return string(b)
}
