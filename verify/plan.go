package verify

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
)

// Case is one cassette to verify.
type Case struct {
	Cassette *cassettes.Cassette
	Adapter  *cassettes.Adapter // nil for a cassette whose adapter is not declared
}

// ID is "adapter/scenario".
func (c Case) ID() string { return c.Cassette.ID() }

// Selection narrows the cases of a run.
type Selection struct {
	Adapters []string       // only these adapters (nil: all)
	Run      *regexp.Regexp // only case ids matching (nil: all)
	Shard    int            // 1-based shard index; 0: no sharding
	Shards   int            // number of shards
}

// ParseShard parses "i/n" (1 ≤ i ≤ n).
func ParseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, cassettes.Errorf(cassettes.EUsage, "cassette verify --shard 1/4", "--shard %q: expected i/n with 1 ≤ i ≤ n, e.g. 2/4", s)
	}
	return i, n, nil
}

// Plan orders the cassettes into cases — adapter order in the config, then
// scenario, then path — and applies the selection. With --shard i/n a case
// runs in shard ShardOf(its id, n): n shards together run every case exactly
// once, and a case stays on its shard when cassettes are added or removed.
func Plan(cfg *cassettes.Config, list []*cassettes.Cassette, sel Selection) ([]Case, error) {
	rank := map[string]int{}
	for i, name := range cfg.Order {
		rank[name] = i
	}
	for _, a := range sel.Adapters {
		if _, ok := cfg.Adapters[a]; !ok {
			return nil, &cassettes.Error{Reason: cassettes.EUsage, Message: fmt.Sprintf("--adapter %s: no such adapter in %s", a, cfg.Path),
				Problems: []cassettes.Problem{{File: cfg.Path, Line: cfg.Line("adapters"), Field: "adapters", Message: "declared adapters: " + strings.Join(cfg.Order, ", "), Suggestion: cassettes.Suggest(a, cfg.Order)}},
				NextStep: "cassette verify --adapter " + firstOr(cfg.Order, "NAME")}
		}
	}
	sorted := append([]*cassettes.Cassette(nil), list...)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		ra, oka := rank[a.Adapter]
		rb, okb := rank[b.Adapter]
		if oka != okb {
			return oka // declared adapters first
		}
		if ra != rb {
			return ra < rb
		}
		if a.Adapter != b.Adapter {
			return a.Adapter < b.Adapter
		}
		if a.Scenario != b.Scenario {
			return a.Scenario < b.Scenario
		}
		return a.Path < b.Path
	})
	var out []Case
	for _, c := range sorted {
		if len(sel.Adapters) > 0 && !slices.Contains(sel.Adapters, c.Adapter) {
			continue
		}
		if sel.Run != nil && !sel.Run.MatchString(c.ID()) {
			continue
		}
		if sel.Shards > 1 && ShardOf(c.ID(), sel.Shards) != sel.Shard {
			continue
		}
		out = append(out, Case{Cassette: c, Adapter: cfg.Adapters[c.Adapter]})
	}
	return out, nil
}

// ShardOf is the shard (1…n) that runs the case with this id
// ("adapter/scenario") in a matrix of n shards. It depends on the id and n
// alone, never on the other cassettes, so adding a cassette moves no other
// case, every machine of a matrix computes the same split, and a case's
// history stays with one shard. The split is a uniform hash: k cases land
// k/n per shard give or take a few √(k/n) (with 10,000 cassettes and 4 shards
// the largest shard is about 1–2 % above the mean); a handful of cassettes
// may leave a shard empty, which then reports zero cases. The id, not the
// file path, is hashed: it is what reports and merge key a case on, and a
// cassette moved to another directory keeps its shard. SHA-256 rather than
// FNV: FNV's low bits depend only on the low bits of the input bytes, so
// "x-1" and "x-5" would always share a shard of 4.
func ShardOf(id string, n int) int {
	if n <= 1 {
		return 1
	}
	h := sha256.Sum256([]byte(id))
	return int(binary.BigEndian.Uint64(h[:8])%uint64(n)) + 1
}

func firstOr(xs []string, def string) string {
	if len(xs) > 0 {
		return xs[0]
	}
	return def
}
