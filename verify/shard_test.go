package verify_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/verify"
)

// shardsOf plans list as n shards and returns each case's shard.
func shardsOf(t *testing.T, cfg *cassettes.Config, list []*cassettes.Cassette, n int) map[string]int {
	t.Helper()
	got := map[string]int{}
	for i := 1; i <= n; i++ {
		part, err := verify.Plan(cfg, list, verify.Selection{Shard: i, Shards: n})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range part {
			if j, dup := got[c.ID()]; dup {
				t.Fatalf("%s is in shard %d and shard %d", c.ID(), j, i)
			}
			got[c.ID()] = i
		}
	}
	return got
}

// copies returns the demo's cassettes under scenario names "<scenario>-<suffix>".
func copies(list []*cassettes.Cassette, suffixes ...string) []*cassettes.Cassette {
	var out []*cassettes.Cassette
	for _, s := range suffixes {
		for _, c := range list {
			cc := *c
			cc.Scenario = c.Scenario + "-" + s
			out = append(out, &cc)
		}
	}
	return out
}

// TestShardStable: a case stays on its shard when cassettes are added, before
// and after it in plan order, and when the list comes in another order. (By
// position in the plan, as shards were assigned before, the cassettes added
// ahead of a case moved it.)
func TestShardStable(t *testing.T) {
	cfg, list, _ := demo(t)
	before := copies(list, "b", "d", "f")
	// "a", "c", "e" sort between and ahead of the existing scenarios.
	after := append(copies(list, "a", "c", "e", "g"), before...)
	slices.Reverse(after)
	for _, n := range []int{2, 3, 4, 7} {
		was := shardsOf(t, cfg, before, n)
		now := shardsOf(t, cfg, after, n)
		if len(was) != len(before) || len(now) != len(after) {
			t.Fatalf("%d shards ran %d of %d and %d of %d cases", n, len(was), len(before), len(now), len(after))
		}
		for id, s := range was {
			if now[id] != s {
				t.Errorf("%d shards: %s moved from shard %d to %d when cassettes were added", n, id, s, now[id])
			}
			if s != verify.ShardOf(id, n) {
				t.Errorf("%d shards: %s ran in shard %d, ShardOf says %d", n, id, s, verify.ShardOf(id, n))
			}
		}
	}
}

// TestShardBalance: 10,000 ids of the shape cassettes have split evenly. The
// hash is fixed, so this is exact, not statistical; it guards against a hash
// whose low bits follow the input's (FNV: "x-1" and "x-5" would share a shard).
func TestShardBalance(t *testing.T) {
	for _, n := range []int{2, 4, 8, 16} {
		count := make([]int, n+1)
		const total = 10000
		for k := range total {
			count[verify.ShardOf(fmt.Sprintf("petstore/list-%05d", k), n)]++
		}
		if count[0] != 0 {
			t.Fatalf("ShardOf returned 0 for %d ids", count[0])
		}
		largest := slices.Max(count[1:])
		if ratio := float64(largest) / (float64(total) / float64(n)); ratio > 1.05 {
			t.Errorf("%d shards: %v; largest ÷ mean = %.3f, want ≤ 1.05", n, count[1:], ratio)
		}
	}
	if verify.ShardOf("any/id", 1) != 1 {
		t.Error("one shard must run everything")
	}
}
