package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// TestHelpURIsNameDocumentedPages: a SARIF rule's help link names a page
// of the docs that exists and, for a reason code, its section of the
// troubleshooting page.
func TestHelpURIsNameDocumentedPages(t *testing.T) {
	const base = "https://github.com/cassette-dev/cassette/blob/main/"
	ids := []string{"drift/body", RuleUncoveredCallShape}
	for _, r := range outcome.Reasons() {
		ids = append(ids, string(r))
	}
	for _, id := range ids {
		uri := helpURI("", id)
		page, anchor, _ := strings.Cut(strings.TrimPrefix(uri, base), "#")
		data, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(page)))
		if err != nil {
			t.Errorf("rule %s: help %s: %v", id, uri, err)
			continue
		}
		if anchor != "" && !strings.Contains(string(data), "\n## "+strings.ToUpper(anchor)+"\n") {
			t.Errorf("rule %s: help %s: the page has no section %s", id, uri, strings.ToUpper(anchor))
		}
	}
}
