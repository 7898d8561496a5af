package coverage

import (
	"fmt"
	"io"
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/nextstep"
)

// Failure says what fails a coverage run (which adapters fall short, and
// by how much) and its next step: the record command of the first
// uncovered shape of the first failing adapter, in cassette.yaml's order
// (the order the console lists them in). Both are "" for a run that
// passes.
func (r *Report) Failure() (message, next string) {
	var parts []string
	for _, a := range r.Adapters {
		un := a.Uncovered()
		switch a.Status() {
		case StatusUnrecorded:
			parts = append(parts, fmt.Sprintf("adapter %s has no cassette for the %d call shapes its fake answered", a.Name, len(un)))
		case StatusFail:
			parts = append(parts, fmt.Sprintf("adapter %s covers %.1f%% of its call shapes (min %.1f%%): %d uncovered", a.Name, a.Percent(), a.Min, len(un)))
		default:
			continue
		}
		if next == "" && len(un) > 0 {
			next = un[0].Record
		}
	}
	return strings.Join(parts, "; "), next
}

// WarnUnrecorded tells verify's user about adapters (of those selected)
// that have a fake and no cassette: nothing proves such a fake.
func WarnUnrecorded(w io.Writer, cfg *cfgschema.Config, list []*cassettes.Cassette, selected []string) {
	for _, name := range Unrecorded(cfg, list, selected) {
		how := "record one from the real side with " + nextstep.Command(cfg.Path, "cassette", "record", "--adapter", name)
		if a := cfg.Adapters[name]; a != nil && a.Kind == cfgschema.KindCLI {
			// A CLI cassette is one call: the user names it.
			how = "record one from the real side with `cassette record --adapter " + name + " --scenario NAME -- COMMAND ARGS…` (a call your code makes)"
		}
		fmt.Fprintf(w, "warning: adapter %s has a fake and no cassette: nothing proves the fake answers like the real side (%s); %s, then run cassette observe and cassette coverage\n",
			name, RuleUnrecorded, how)
	}
}
