package importer

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/har"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
)

// Refusal, one file at a time: a go-vcr tree from another project often
// holds a key in a few of its files (a documentation example, a test
// account's token); the others import, and the refused ones are listed
// with where the key is in the source and the command that imports them
// redacted.

// sourceOf is the file a converted cassette came from: the HAR, or the
// go-vcr file whose path below Source is its scenario.
func (o Options) sourceOf(c *cassettes.Cassette) string {
	if st, err := os.Stat(o.Source); err != nil || !st.IsDir() {
		return o.Source
	}
	base := filepath.Join(o.Source, filepath.FromSlash(c.Scenario))
	for _, ext := range []string{".yaml", ".yml"} {
		if _, err := os.Stat(base + ext); err == nil {
			return base + ext
		}
	}
	return base + ".yaml"
}

// refused is the refusal of c (saved at c.Path) for err, CheckLeaks' error.
// Its problems point into the source file (a scan of its bytes for the
// kinds found) where they can; a kind only seen after decoding a body
// keeps the field it was found in.
func (o Options) refused(source string, c *cassettes.Cassette, err error, red *redact.Redactor, scans map[string][]redact.Finding) Refused {
	ce := outcome.AsError(err)
	kinds := map[string]bool{}
	var inBodies []outcome.Problem
	for _, p := range ce.Problems {
		if p.Field != "" {
			inBodies = append(inBodies, outcome.Problem{File: source, Field: p.Field, Message: p.Message, Expected: p.Expected})
			continue
		}
		if k, ok := strings.CutPrefix(p.Message, "a secret ("); ok {
			kinds[strings.TrimSuffix(k, ") would be written")] = true
		}
	}
	var probs []outcome.Problem
	if len(kinds) > 0 {
		found, ok := scans[source]
		if !ok {
			if data, err := os.ReadFile(source); err == nil {
				found = red.Scan(data)
			}
			scans[source] = found
		}
		for _, f := range found {
			if kinds[f.Kind] {
				probs = append(probs, outcome.Problem{File: source, Line: f.Line, Column: f.Column,
					Message: "a credential of kind " + f.Kind + " (the value is not shown)", Expected: redact.Redacted})
			}
		}
	}
	if len(probs) == 0 && len(kinds) > 0 { // found only once converted (a HAR's decoded text)
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range kinds {
				if !yield(k) {
					return
				}
			}
		}) {
			probs = append(probs, outcome.Problem{File: source, Field: c.Scenario, Message: "a credential of kind " + k + " (the value is not shown)", Expected: redact.Redacted})
		}
	}
	probs = append(probs, inBodies...)
	return Refused{Source: source, Path: c.Path, Err: &outcome.Error{Reason: outcome.ESecretLeak, Problems: probs,
		Message: fmt.Sprintf("%s not imported: it holds a credential of a known format", source), NextStep: o.redactAgain()}}
}

// refusedError is the error of an import that refused some of its n
// cassettes: every refused file's problems, and the one command that
// imports them redacted.
func (o Options) refusedError(res *Result, n int) error {
	e := &outcome.Error{Reason: outcome.ESecretLeak, NextStep: o.redactAgain(),
		Message: fmt.Sprintf("%d of %d cassette(s) not imported: each holds a credential of a known format (listed below); the other %d were imported; import them redacted (below), or remove the keys from the files, rotating any that is live",
			len(res.Refused), n, len(res.Saved))}
	seen := map[string]bool{} // a HAR's refused pages point at the same lines of it
	for _, r := range res.Refused {
		for _, p := range r.Err.Problems {
			if key := fmt.Sprintf("%+v", p); !seen[key] {
				seen[key] = true
				e.Problems = append(e.Problems, p)
			}
		}
	}
	return e
}

// redactAgain is the command that imports the same source with the key
// formats redacted, over what this run saved.
func (o Options) redactAgain() string {
	more := []string{"--out", o.Dir}
	if o.From == HAR && o.By != har.ByPage {
		more = append(more, "--by", string(o.By))
	}
	return o.again(append(more, "--redact", "--force")...)
}
