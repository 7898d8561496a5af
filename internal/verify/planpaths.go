package verify

import (
	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/nextstep"
)

// PlanRun is what `cassette verify` plans over: the paths given (none:
// the project's cassette directory), the selection, and how to load.
type PlanRun struct {
	Paths []string
	Sel   Selection
	Named nextstep.Selection // the --case and --adapter given, for the error of an empty selection
	Load  cassettes.LoadOptions
	// Unrecorded, when set, is given the cassettes of a run over the whole
	// corpus (no shard, the project's cassette directory), to warn about
	// the adapters that have none.
	Unrecorded func([]*cassettes.Cassette)
}

// PlanPaths loads the cassettes of r.Paths (a shard's own only) and plans
// the selected cases. A missing cassette directory and a selection that
// holds no case are errors whose next step records or names one.
func PlanPaths(cfg *cfgschema.Config, r PlanRun) ([]Case, error) {
	paths, sel := r.Paths, r.Sel
	if len(paths) == 0 {
		paths = []string{cfg.CassetteDir()}
	}
	var err error
	if sel.Shards > 1 { // a shard reads only its own cassettes
		if paths, err = ShardPaths(cfg.Dir, paths, sel.Shard, sel.Shards); err != nil {
			return nil, err
		}
	}
	list, err := cassettes.LoadTree(paths, r.Load)
	if err != nil {
		return nil, nextstep.NoCassetteDir(cfg, err, paths)
	}
	if sel.Shards <= 1 && len(paths) == 1 && paths[0] == cfg.CassetteDir() && r.Unrecorded != nil {
		r.Unrecorded(list)
	}
	cases, err := Plan(cfg, list, sel)
	if err != nil {
		return nil, err
	}
	if len(cases) == 0 && sel.Shards <= 1 {
		return nil, nextstep.NoCase(cfg, r.Named, list)
	}
	return cases, nil
}
