package verify_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/verify"
)

// shardsOf plans list as n shards and returns each case's shard.
func shardsOf(t *testing.T, cfg *cfgschema.Config, list []*cassettes.Cassette, n int) map[string]int {
	t.Helper()
	got := map[string]int{}
	for i := 1; i <= n; i++ {
		part, err := verify.Plan(cfg, list, verify.Selection{Shard: i, Shards: n})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range part {
			if j, dup := got[c.Cassette.Path]; dup {
				t.Fatalf("%s is in shard %d and shard %d", c.Cassette.Path, j, i)
			}
			got[c.Cassette.Path] = i
		}
	}
	return got
}

// copies returns the demo's cassettes as if recorded again under scenario
// names "<scenario>-<suffix>", in files of those names.
func copies(list []*cassettes.Cassette, suffixes ...string) []*cassettes.Cassette {
	var out []*cassettes.Cassette
	for _, s := range suffixes {
		for _, c := range list {
			cc := *c
			cc.Scenario = c.Scenario + "-" + s
			cc.Path = filepath.Join(filepath.Dir(c.Path), cc.Scenario+".yaml")
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
		for path, s := range was {
			if now[path] != s {
				t.Errorf("%d shards: %s moved from shard %d to %d when cassettes were added", n, path, s, now[path])
			}
			if want := verify.ShardOf(verify.ShardKey(cfg.Dir, path), n); s != want {
				t.Errorf("%d shards: %s ran in shard %d, ShardOf says %d", n, path, s, want)
			}
		}
	}
}

// TestShardBalance: 10,000 keys of the shape cassette paths have split
// as evenly as a uniform hash splits them: no shard above the mean by more
// than 4 standard deviations (√mean, roughly). The hash is fixed, so the test
// is deterministic; it guards against a hash whose low bits follow the
// input's (FNV: "x-1" and "x-5" would share a shard).
func TestShardBalance(t *testing.T) {
	for _, n := range []int{2, 4, 8, 16} {
		count := make([]int, n+1)
		const total = 10000
		for k := range total {
			count[verify.ShardOf(fmt.Sprintf("cassettes/petstore/list-%05d.yaml", k), n)]++
		}
		if count[0] != 0 {
			t.Fatalf("ShardOf returned 0 for %d keys", count[0])
		}
		mean := float64(total) / float64(n)
		largest := float64(slices.Max(count[1:]))
		if limit := 1 + 4/math.Sqrt(mean); largest/mean > limit {
			t.Errorf("%d shards: %v; largest ÷ mean = %.3f, want ≤ %.3f", n, count[1:], largest/mean, limit)
		}
	}
	// Keys that differ in one character whose low two bits are the same
	// (a e i m q u y): FNV-1a puts them all in one shard of 4.
	seen := map[int]bool{}
	for _, c := range "aeimquy" {
		seen[verify.ShardOf("cassettes/greet/hello-"+string(c)+".yaml", 4)] = true
	}
	if len(seen) < 2 {
		t.Errorf("7 keys differing in one letter all went to one shard of 4")
	}
	if verify.ShardOf("any/key.yaml", 1) != 1 {
		t.Error("one shard must run everything")
	}
}

// TestShardKey: the key is the path under the config's directory, however
// the two are spelled, so every machine of a matrix agrees.
func TestShardKey(t *testing.T) {
	abs, err := filepath.Abs(filepath.Join("..", "..", "examples", "demo"))
	if err != nil {
		t.Fatal(err)
	}
	rel := filepath.Join("..", "..", "examples", "demo")
	file := filepath.Join("cassettes", "greet", "hello.yaml")
	tests := []struct{ dir, path, want string }{
		{rel, filepath.Join(rel, file), "cassettes/greet/hello.yaml"},
		{abs, filepath.Join(rel, file), "cassettes/greet/hello.yaml"},
		{rel, filepath.Join(abs, file), "cassettes/greet/hello.yaml"},
		{abs, filepath.Join(abs, "..", "demo", file), "cassettes/greet/hello.yaml"},
		{filepath.Join(abs, "cassettes"), filepath.Join(rel, "x.yaml"), filepath.ToSlash(filepath.Join(rel, "x.yaml"))}, // not under dir
	}
	for _, tt := range tests {
		if got := verify.ShardKey(tt.dir, tt.path); got != tt.want {
			t.Errorf("ShardKey(%q, %q) = %q, want %q", tt.dir, tt.path, got, tt.want)
		}
	}
}

// TestShardPaths: a shard's files, chosen before anything is loaded, are the
// files Plan gives that shard; a file of another shard is never read (an
// invalid one does not fail this shard), and a missing path is kept for the
// loader to report.
func TestShardPaths(t *testing.T) {
	cfg, list, reg := demo(t)
	opts := cassettes.LoadOptions{Config: cfg, Normalizers: reg}
	for _, n := range []int{2, 3, 4} {
		for i := 1; i <= n; i++ {
			files, err := verify.ShardPaths(cfg.Dir, []string{cfg.CassetteDir()}, i, n)
			if err != nil {
				t.Fatal(err)
			}
			loaded, err := cassettes.LoadTree(files, opts)
			if err != nil {
				t.Fatal(err)
			}
			fromFiles, _ := verify.Plan(cfg, loaded, verify.Selection{})
			fromAll, _ := verify.Plan(cfg, list, verify.Selection{Shard: i, Shards: n})
			var a, b []string
			for _, c := range fromFiles {
				a = append(a, c.Cassette.Path)
			}
			for _, c := range fromAll {
				b = append(b, c.Cassette.Path)
			}
			if !slices.Equal(a, b) {
				t.Errorf("shard %d/%d: ShardPaths gives %v, Plan gives %v", i, n, a, b)
			}
		}
	}

	dir := t.TempDir()
	bad := filepath.Join(dir, "cassettes", "greet", "broken.yaml")
	if err := os.MkdirAll(filepath.Dir(bad), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("not: [a cassette"), 0o644); err != nil {
		t.Fatal(err)
	}
	mine := verify.ShardOf(verify.ShardKey(dir, bad), 2)
	other := 3 - mine
	if got, _ := verify.ShardPaths(dir, []string{filepath.Join(dir, "cassettes")}, other, 2); len(got) != 0 {
		t.Errorf("shard %d of 2 would read %v, which is shard %d's", other, got, mine)
	}
	if got, _ := verify.ShardPaths(dir, []string{filepath.Join(dir, "cassettes")}, mine, 2); !slices.Equal(got, []string{bad}) {
		t.Errorf("shard %d of 2 reads %v, want %s", mine, got, bad)
	}
	missing := filepath.Join(dir, "nowhere")
	if got, _ := verify.ShardPaths(dir, []string{missing}, 1, 2); !slices.Equal(got, []string{missing}) {
		t.Errorf("a missing path: got %v, want it kept for the loader to report", got)
	}
}
