package importer

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
)

// rename gives every cassette whose scenario breaks the name rule (a
// go-vcr file named after a test: `TestFoo/it's ok (v2)`) the name
// cassettes.WildName maps it to, and returns what it renamed. The names
// that keep the rule are kept and come first; a mapped name that another
// scenario already has (ignoring case, as some file systems do) gets the
// first 8 hex digits of its original name's SHA-256 appended. The same
// source always gives the same names.
func rename(list []*cassettes.Cassette) []Rename {
	taken := map[string]bool{}
	for _, c := range list {
		if cassettes.ValidName(c.Scenario) {
			taken[strings.ToLower(c.Scenario)] = true
		}
	}
	var out []Rename
	for _, c := range list {
		if cassettes.ValidName(c.Scenario) {
			continue
		}
		name := cassettes.WildName(c.Scenario)
		if name == "" || taken[strings.ToLower(name)] {
			sum := sha256.Sum256([]byte(c.Scenario))
			name = strings.TrimPrefix(name+"-"+hex.EncodeToString(sum[:4]), "-") // a bare hash is a valid name too
		}
		taken[strings.ToLower(name)] = true
		out = append(out, Rename{From: c.Scenario, To: name})
		c.Scenario = name
	}
	return out
}
