package report

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// MergeRuns combines the runs of the shards of one matrix into the run an
// unsharded run would have been: cases and inventory are united, the bounds
// widened, and the most severe run-level error kept (the first on a tie).
// Shards must agree on the suite, command and configuration, and no case may
// appear in two shards.
func MergeRuns(runs ...*Run) (*Run, error) {
	if len(runs) == 0 {
		return nil, outcome.Errorf(outcome.EUsage, outcome.Command("cassette", "report", "merge", "--help"), "nothing to merge")
	}
	first := runs[0]
	m := *first
	m.Shard = ""
	m.Cases = nil
	m.Inventory = nil
	m.Err = nil
	seen := map[string]int{}     // case id → the run it came from
	paths := map[string]string{} // case id → its cassette
	inv := map[string]InventoryItem{}
	for i, r := range runs {
		if r.Suite != first.Suite || r.command() != first.command() || string(r.ConfigBytes) != string(first.ConfigBytes) {
			return nil, outcome.Errorf(outcome.EUsage, outcome.Command("cassette", "report", "merge", "--help"),
				"shard %d is of another run (suite %q, command %q, or a different configuration); merge only the shards of one run", i+1, r.Suite, r.command())
		}
		for _, c := range r.Cases {
			if j, dup := seen[c.ID()]; dup && paths[c.ID()] != c.CassettePath {
				// Two cassettes of one scenario: each shard read only its
				// own, so neither saw the other (validate reads both).
				return nil, outcome.Errorf(outcome.ECassetteInvalid, outcome.Command("cassette", "validate"),
					"case %s is the scenario of two cassettes, %s (shard %s) and %s (shard %s): one case would run twice; keep one of the two files",
					outcome.Printable(c.ID()), outcome.Printable(paths[c.ID()]), shardOf(runs, j), outcome.Printable(c.CassettePath), shardOf(runs, i))
			} else if dup {
				return nil, outcome.Errorf(outcome.EUsage, outcome.Command("cassette", "report", "merge", "--help"),
					"case %s is in shard %s and shard %s (check the --shard flags of the matrix: each i/n must be distinct)", c.ID(), shardOf(runs, j), shardOf(runs, i))
			}
			seen[c.ID()], paths[c.ID()] = i, c.CassettePath
			m.Cases = append(m.Cases, c)
		}
		for _, it := range r.Inventory {
			inv[it.Path] = it
		}
		m.Started = minTime(m.Started, r.Started)
		if r.Finished.After(m.Finished) {
			m.Finished = r.Finished
		}
		if r.Err != nil && (m.Err == nil || r.Err.Reason.Exit() > m.Err.Reason.Exit()) {
			m.Err = r.Err
		}
	}
	for _, it := range inv {
		m.Inventory = append(m.Inventory, it)
	}
	sort.Slice(m.Inventory, func(i, j int) bool { return m.Inventory[i].Path < m.Inventory[j].Path })
	sort.SliceStable(m.Cases, func(i, j int) bool {
		a, b := m.Cases[i], m.Cases[j]
		if a.Adapter != b.Adapter {
			return a.Adapter < b.Adapter
		}
		return a.Scenario < b.Scenario
	})
	return &m, nil
}

// shardOf names run k of runs: its i of --shard i/n, else its place.
func shardOf(runs []*Run, k int) string {
	if i, _, ok := parseShard(runs[k].Shard); ok {
		return strconv.Itoa(i)
	}
	return strconv.Itoa(k + 1)
}

func minTime(a, b time.Time) time.Time {
	switch {
	case a.IsZero():
		return b
	case b.IsZero() || a.Before(b):
		return a
	}
	return b
}

// MergeOptions controls [Merge].
type MergeOptions struct {
	// AllowIncomplete merges a set of shards that lacks some of 1..n; the
	// merged run's Shard then names the shards it holds ("1,3 of 4
	// (incomplete)").
	AllowIncomplete bool
}

// Command is the command line of the merge of dirs into out with these
// options (an interrupted merge's next step).
func (mo MergeOptions) Command(out string, dirs []string) string {
	args := append([]string{"cassette", "report", "merge", "--out", out}, dirs...)
	if mo.AllowIncomplete {
		args = append(args, "--allow-incomplete")
	}
	return outcome.Command(args...)
}

// Merge combines the shards of one matrix into the run one unsharded run
// would have been, and returns it with the options its reports are written
// with (the shards': they must agree), so that [Write] then writes the set
// an unsharded run writes (byte-identical in golden mode). The set must be
// complete (every i of i/n present once) unless mo.AllowIncomplete; the
// merged run's Shard then names the shards it holds. Merge reads nothing:
// [ReadShard] reads each shard's run.json.
func Merge(shards []Shard, mo MergeOptions) (*Run, Options, error) {
	runs := make([]*Run, len(shards))
	dirs := make([]string, len(shards))
	var opts Options
	for i, s := range shards {
		o := s.Options
		if i > 0 && (o.Golden != opts.Golden || o.SARIFLimit != opts.SARIFLimit || o.PreviewBytes != opts.PreviewBytes) {
			return nil, Options{}, outcome.Errorf(outcome.EUsage, outcome.Command("cassette", "report", "merge", "--help"),
				"%s was written with other report options than %s (run every shard with the same --golden and report flags)", s.Dir, shards[0].Dir)
		}
		opts, runs[i], dirs[i] = o, s.Run, s.Dir
	}
	held, err := checkShards(runs, dirs, mo.AllowIncomplete)
	if err != nil {
		return nil, Options{}, err
	}
	m, err := MergeRuns(runs...)
	if err != nil {
		return nil, Options{}, err
	}
	m.Shard = held
	return m, opts, nil
}

// checkShards checks that the runs are the complete shard set of one
// matrix: every run says "i/n" with one n, each i of 1..n exactly once.
// Runs that are no shard (unsharded runs, earlier merges) may only be
// merged with one another. With allowIncomplete, missing shards are
// accepted and held names the shards present ("1,3 of 4 (incomplete)");
// it is "" for a complete set.
func checkShards(runs []*Run, dirs []string, allowIncomplete bool) (held string, err error) {
	next := outcome.Command("cassette", "report", "merge", "--help") // with the report directory of every shard
	n := 0
	at := map[int]string{} // shard index → directory
	var plain []string     // directories of runs that are no shard
	for k, r := range runs {
		if r.Shard == "" {
			plain = append(plain, dirs[k])
			continue
		}
		i, sn, ok := parseShard(r.Shard)
		if !ok {
			if allowIncomplete {
				plain = append(plain, dirs[k])
				continue
			}
			return "", outcome.Errorf(outcome.EUsage, next, "%s: run.json has shard %q, expected i/n", dirs[k], r.Shard)
		}
		if n != 0 && sn != n {
			return "", outcome.Errorf(outcome.EUsage, next,
				"%s is shard %s but an earlier directory is a shard of %d (check the --shard flags of the matrix: every shard must use the same n)", dirs[k], r.Shard, n)
		}
		n = sn
		if d, dup := at[i]; dup {
			return "", outcome.Errorf(outcome.EUsage, next,
				"shard %d/%d is given twice: %s and %s (check the --shard flags of the matrix: each i/n must be distinct)", i, n, d, dirs[k])
		}
		at[i] = dirs[k]
	}
	if n == 0 {
		return "", nil // no shard at all: a merge of whole runs
	}
	if len(plain) > 0 && !allowIncomplete {
		return "", outcome.Errorf(outcome.EUsage, next, "%s is not a shard (no --shard i/%d), yet the others are", plain[0], n)
	}
	var missing, present []string
	for i := 1; i <= n; i++ {
		if _, ok := at[i]; ok {
			present = append(present, fmt.Sprint(i))
		} else {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if len(missing) == 0 {
		return "", nil
	}
	if !allowIncomplete {
		first := strings.SplitN(missing[0], "/", 2)[0]
		return "", &outcome.Error{Reason: outcome.EUsage,
			Message: fmt.Sprintf("incomplete shard set: shard %s is missing (have %s of %d); a merge of it would report only part of the run: run the missing shard, then merge again with its report directory (or pass --allow-incomplete)",
				strings.Join(missing, ", "), strings.Join(present, ", "), n),
			NextStep: outcome.Command("cassette", "verify", "--shard", first+"/"+strconv.Itoa(n), "--report-dir", missingShardDir(at, first))}
	}
	return fmt.Sprintf("%s of %d (incomplete)", strings.Join(present, ","), n), nil
}

// missingShardDir is where the missing shard's reports would go, named
// like the shards that were given (out/shard-2 given: out/shard-3), else
// shard-I beside them.
func missingShardDir(at map[int]string, missing string) string {
	given := slices.Sorted(maps.Keys(at))
	if len(given) == 0 {
		return "shard-" + missing
	}
	dir := filepath.Clean(at[given[0]])
	base, num := filepath.Base(dir), strconv.Itoa(given[0])
	if strings.Count(base, num) == 1 {
		return filepath.Join(filepath.Dir(dir), strings.Replace(base, num, missing, 1))
	}
	return filepath.Join(filepath.Dir(dir), "shard-"+missing)
}

func parseShard(s string) (i, n int, ok bool) {
	a, b, cut := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !cut || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, false
	}
	return i, n, true
}
