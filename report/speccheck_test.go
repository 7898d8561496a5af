package report

import (
	"testing"

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
				if probs := speccheck.Reports(dir, speccheck.Options{Shared: sharedSchema("..")}); len(probs) > 0 {
					t.Error(speccheck.Describe(probs))
				}
			})
		}
	}
}
