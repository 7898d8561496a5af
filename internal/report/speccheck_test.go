package report

import (
	"slices"
	"testing"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/speccheck"
)

// TestSpecCheckers runs the checkers written from the spec texts (package
// speccheck, which knows none of our types) on every sample run, in default
// and golden mode: each file follows its spec and the files of one run agree.
func TestSpecCheckers(t *testing.T) {
	for _, tc := range sampleRuns {
		for _, golden := range []bool{false, true} {
			name := tc.name
			if golden {
				name += "/golden"
			}
			t.Run(name, func(t *testing.T) {
				dir := writeRun(t, tc.run(), Options{SARIFLimit: tc.limit, Golden: golden})
				if probs := speccheck.Reports(dir, speccheck.Options{Shared: sharedSchema(".."), README: "../../docs/reference/exit-codes.md"}); len(probs) > 0 {
					t.Error(speccheck.Describe(probs))
				}
			})
		}
	}
}

// TestEveryReasonIsDocumented: every reason code cassette can emit is in
// the registry the spec checkers read (specs/002 §5 and README.md's Exit
// codes table) under its exit code, and has a declared root cause other
// than unknown.
func TestEveryReasonIsDocumented(t *testing.T) {
	reg, err := speccheck.ReadRegistry("../../docs/reference/exit-codes.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, rc := range outcome.Reasons() {
		if exit, ok := reg.Exit[string(rc)]; !ok || exit != int(rc.Exit()) {
			t.Errorf("%s (exit %d): docs/reference/exit-codes.md documents it under exit %d (listed: %v)", rc, rc.Exit(), exit, ok)
		}
		if rootCause(rc) == RootUnknown || !slices.Contains(reg.RootCauses, rootCause(rc)) {
			t.Errorf("%s: root cause %q is unknown or undeclared", rc, rootCause(rc))
		}
	}
}
