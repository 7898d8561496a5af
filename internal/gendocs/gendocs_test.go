package gendocs

import (
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/matching"
	"github.com/cassette-dev/cassette/internal/normalize"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// TestEveryRegisteredNameIsDocumented: each page has a section or row for
// every name its registry holds.
func TestEveryRegisteredNameIsDocumented(t *testing.T) {
	page, err := Troubleshooting()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range outcome.Reasons() {
		if !strings.Contains(string(page), "\n## "+string(r)+"\n") {
			t.Errorf("troubleshooting has no section for %s", r)
		}
	}
	page, err = Normalizers()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range normalize.Builtins().Names() {
		if !strings.Contains(string(page), "| `"+n+"` |") {
			t.Errorf("normalizers has no row for %s", n)
		}
	}
	page, _ = Presets()
	for _, n := range matching.PresetNames() {
		if !strings.Contains(string(page), "| `"+n+"` |") {
			t.Errorf("presets has no row for %s", n)
		}
	}
}

// TestSameNames: a registered name without an entry, or an entry for a name
// no longer registered, is an error naming the table to mend.
func TestSameNames(t *testing.T) {
	if err := sameNames("reason code", "t.go", []string{"E_A", "E_B"}, []string{"E_A", "E_B"}); err != nil {
		t.Errorf("same names: %v", err)
	}
	err := sameNames("reason code", "t.go", []string{"E_A", "E_NEW"}, []string{"E_A", "E_OLD"})
	if err == nil || !strings.Contains(err.Error(), "E_NEW is registered but has no entry in t.go") || !strings.Contains(err.Error(), "E_OLD has an entry in t.go but is not registered") {
		t.Errorf("got %v", err)
	}
}
