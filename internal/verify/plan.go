package verify

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// Case is one cassette to verify.
type Case struct {
	Cassette *cassettes.Cassette
	Adapter  *cfgschema.Adapter // nil for a cassette whose adapter is not declared
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
		return 0, 0, outcome.Errorf(outcome.EUsage, outcome.Command("cassette", "verify", "--shard", "1/4"), "--shard %q: expected i/n with 1 ≤ i ≤ n, e.g. 2/4", s)
	}
	return i, n, nil
}

// Plan orders the cassettes into cases — adapter order in the config, then
// scenario, then path — and applies the selection. With --shard i/n a case
// runs in shard ShardOf(its id, n): n shards together run every case exactly
// once, and a case stays on its shard when cassettes are added or removed.
// The key is the cassette's path relative to the config's directory
// (ShardKey), so that a shard can leave the other shards' files unread
// (ShardPaths).
func Plan(cfg *cfgschema.Config, list []*cassettes.Cassette, sel Selection) ([]Case, error) {
	rank := map[string]int{}
	for i, name := range cfg.Order {
		rank[name] = i
	}
	for _, a := range sel.Adapters {
		if _, ok := cfg.Adapters[a]; !ok {
			return nil, &outcome.Error{Reason: outcome.EUsage, Message: fmt.Sprintf("--adapter %s: no such adapter in %s", a, cfg.Path),
				Problems: []outcome.Problem{{File: cfg.Path, Line: cfg.Line("adapters"), Field: "adapters", Message: "declared adapters: " + strings.Join(cfg.Order, ", "), Suggestion: outcome.Suggest(a, cfg.Order)}},
				NextStep: outcome.Command("cassette", "verify", "--adapter", cmp.Or(outcome.Closest(a, cfg.Order), firstOr(cfg.Order, "")))}
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
		if sel.Shards > 1 && ShardOf(ShardKey(cfg.Dir, c.Path), sel.Shards) != sel.Shard {
			continue
		}
		out = append(out, Case{Cassette: c, Adapter: cfg.Adapters[c.Adapter]})
	}
	return out, nil
}

// ShardOf is the shard (1…n) that runs the cassette with this ShardKey in a
// matrix of n shards. It depends on the key and n alone, never on the other
// cassettes: adding a cassette moves no other one, every machine of a matrix
// computes the same split, and a case's history stays with one shard. The
// split is a uniform hash: k cassettes land k/n per shard give or take a few
// √(k/n) (with 10,000 cassettes and 4 shards the largest shard is about 1 %
// above the mean); a handful of cassettes may leave a shard empty, which then
// reports zero cases. SHA-256 rather than FNV: FNV's low bits depend only on
// the low bits of the input bytes, so "x-1" and "x-5" would always share a
// shard of 4.
func ShardOf(key string, n int) int {
	if n <= 1 {
		return 1
	}
	h := sha256.Sum256([]byte(key))
	return int(binary.BigEndian.Uint64(h[:8])%uint64(n)) + 1
}

// ShardKey is the key a cassette file is sharded by: its path relative to
// dir (the directory of cassette.yaml), with slashes, e.g.
// "cassettes/github/list-pulls.yaml"; the path as given when it is not under
// dir. It is the same on every machine and operating system of a matrix.
func ShardKey(dir, path string) string {
	ad, ap := filepath.Clean(dir), filepath.Clean(path)
	if filepath.IsAbs(ad) != filepath.IsAbs(ap) { // as filepath.Abs makes them, with one Getwd for both
		wd, err := os.Getwd()
		if err != nil {
			return filepath.ToSlash(path)
		}
		if !filepath.IsAbs(ad) {
			ad = filepath.Join(wd, ad)
		}
		if !filepath.IsAbs(ap) {
			ap = filepath.Join(wd, ap)
		}
	}
	if rel, err := filepath.Rel(ad, ap); err == nil && filepath.IsLocal(rel) {
		path = rel
	}
	return filepath.ToSlash(path)
}

// ShardPaths narrows the paths verify was given (cassette files and
// directories) to the files of shard i of n, so that a shard reads, parses
// and validates only its own cassettes: with thousands of cassettes, loading
// all of them would be a cost every shard pays again. A path that does not
// exist is kept, for the loader to report.
func ShardPaths(dir string, paths []string, i, n int) ([]string, error) {
	var out []string
	for _, p := range paths {
		files := []string{p}
		if st, err := os.Stat(p); err != nil {
			out = append(out, p)
			continue
		} else if st.IsDir() {
			if files, err = cassettes.Discover(p); err != nil {
				return nil, err
			}
		}
		for _, f := range files {
			if ShardOf(ShardKey(dir, f), n) == i {
				out = append(out, f)
			}
		}
	}
	return out, nil
}

func firstOr(xs []string, def string) string {
	if len(xs) > 0 {
		return xs[0]
	}
	return def
}
