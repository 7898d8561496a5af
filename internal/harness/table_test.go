package harness

import (
	"strings"
	"testing"
)

// TestListingWriteTable: a CLI case shows its command line, shell-quoted;
// an HTTP case its requests, in order.
func TestListingWriteTable(t *testing.T) {
	l := &Listing{Cases: []Case{
		{ID: "git/log", Kind: "cli", File: "cassettes/git/log.yaml", Line: 1, CLI: &CLIInput{Command: "git", Args: []string{"log", "-n", "1 2"}}},
		{ID: "shop/items", Kind: "http", File: "cassettes/shop/items.yaml", Line: 3, HTTP: &HTTPInput{Requests: []Request{{Method: "POST", Target: "/items"}, {Method: "GET", Target: "/items/1"}}}},
	}}
	var b strings.Builder
	if err := l.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	want := "git/log     cli   cassettes/git/log.yaml:1     git log -n '1 2'\nshop/items  http  cassettes/shop/items.yaml:3  POST /items, GET /items/1\n"
	if b.String() != want {
		t.Errorf("WriteTable:\n got %q\nwant %q", b.String(), want)
	}
}
