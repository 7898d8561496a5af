package normalize

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDocumentedSHAPlaceholders: the placeholders the README's (or a
// docs/ page's) normalizer table lists for sha:full and sha:short are the
// ones those normalizers write, and no others.
func TestDocumentedSHAPlaceholders(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	pages, _ := filepath.Glob(filepath.Join("..", "..", "docs", "*", "*.md")) // docs/concepts/normalizers.md
	files = append(files, pages...)
	files = append([]string{filepath.Join("..", "..", "README.md")}, files...)
	var row string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "| `sha:full`") {
				row = line
			}
		}
	}
	if row == "" {
		t.Fatal("no normalizer table row for sha:full in README.md or docs/")
	}
	documented := regexp.MustCompile("`(<[^`]+>)`").FindAllStringSubmatch(row, -1)
	var want []string
	for _, m := range documented {
		want = append(want, strings.ReplaceAll(m[1], "N", "1"))
	}
	p, err := Builtins().Pipeline([]string{"sha:full", "sha:short"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const full40 = "e5bd3914e2e596debea16f433f57875b5b90bcd6"
	const full64 = "3f1c0e5b9d7a4c2e8f6b1a0d9c8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e"
	out := p.Text(NewState(), "commit "+full40+" (e5bd391) image "+full64)
	got := regexp.MustCompile(`<[^<>]+>`).FindAllString(out, -1)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(slices.Compact(got), slices.Compact(want)) {
		t.Fatalf("the normalizers write %v (%q); the docs list %v (%s)", got, out, want, row)
	}
}
