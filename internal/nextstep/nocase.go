package nextstep

import (
	"slices"
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// Selection is what a verify selected cases by: --case and --adapter.
type Selection struct {
	Cases, Adapters []string
}

// NoCase is the error of a verify that selected no case of list: a --case
// that names no cassette is said to be one (with the nearest that exists),
// not that nothing matched.
func NoCase(cfg *cfgschema.Config, sel Selection, list []*cassettes.Cassette) *outcome.Error {
	e := &outcome.Error{Reason: outcome.ECassetteNotFound, Message: "no cassette matches: nothing to verify", NextStep: noCaseStep(cfg, sel, list)}
	if len(list) == 0 {
		e.Message = "no cassette under " + cfg.CassetteDir() + ": nothing to verify; record a first one" + RecordFirstNeeds(cfg, "")
	}
	ids := caseIDs(list)
	for _, c := range sel.Cases {
		if slices.Contains(ids, c) {
			continue
		}
		pr := outcome.Problem{Field: "--case", Message: "no case " + c, Expected: "adapter/scenario of a cassette under " + cfg.CassetteDir()}
		if near := nearestCase(c, ids); near != "" {
			pr.Suggestion = "did you mean `" + near + "`?"
		}
		e.Problems = append(e.Problems, pr)
		e.Message = "no such case: " + c
	}
	return e
}

// noCaseStep is the next step of a verify that selected nothing: with
// --case, the nearest existing case; with --adapter, a first recording of
// that adapter; with --run, every case; with no cassette at all, a first
// recording.
func noCaseStep(cfg *cfgschema.Config, sel Selection, list []*cassettes.Cassette) string {
	ids := caseIDs(list)
	switch {
	case len(ids) == 0:
		first := ""
		if len(sel.Adapters) > 0 {
			first = sel.Adapters[0]
		}
		return RecordFirst(cfg, first)
	case len(sel.Cases) > 0:
		if near := nearestCase(sel.Cases[0], ids); near != "" {
			return Command(cfg.Path, "cassette", "verify", "--case", near)
		}
		return Command(cfg.Path, "cassette", "verify")
	case len(sel.Adapters) > 0:
		for _, a := range sel.Adapters {
			if !slices.ContainsFunc(list, func(c *cassettes.Cassette) bool { return c.Adapter == a }) {
				return RecordFirst(cfg, a)
			}
		}
	}
	return Command(cfg.Path, "cassette", "verify")
}

// nearestCase is the existing case id nearest to want: the one it names
// when want is only an adapter or a scenario, else the closest spelling.
func nearestCase(want string, ids []string) string {
	for _, id := range ids {
		adapter, scenario, _ := strings.Cut(id, "/")
		if want == adapter || want == scenario {
			return id
		}
	}
	return outcome.Closest(want, ids)
}

// caseIDs are the ids (adapter/scenario) of the cassettes, in order.
func caseIDs(list []*cassettes.Cassette) []string {
	out := make([]string, 0, len(list))
	for _, c := range list {
		out = append(out, c.ID())
	}
	return out
}
