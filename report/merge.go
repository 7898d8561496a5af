package report

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
)

// ReadRun reads the run.json that Write put in dir, with the options the
// reports were written with.
func ReadRun(dir string) (*Run, Options, error) {
	path := filepath.Join(dir, FileRun)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, Options{}, &cassettes.Error{Reason: cassettes.EMissingConfig, Message: "no run.json in " + dir, Err: err,
			Problems: []cassettes.Problem{{File: path, Message: "missing", Expected: "the report directory of a `cassette verify --report-dir` run"}},
			NextStep: cassettes.Command("cassette", "verify", "--report-dir", dir)}
	}
	rf := runFile{Run: &Run{}}
	if err := json.Unmarshal(data, &rf); err != nil {
		return nil, Options{}, &cassettes.Error{Reason: cassettes.ECfgParse, Message: "run.json is not valid", Err: err,
			Problems: []cassettes.Problem{{File: path, Line: jsonErrLine(data, err), Message: err.Error()}},
			NextStep: cassettes.Command("cassette", "verify", "--report-dir", dir)}
	}
	if rf.SchemaVersion != 1 {
		return nil, Options{}, &cassettes.Error{Reason: cassettes.ECfgParse, Message: "unsupported run.json: run the shard again with this cassette version",
			Problems: []cassettes.Problem{{File: path, Field: "schema_version", Message: fmt.Sprintf("schema_version %d", rf.SchemaVersion), Expected: "1"}},
			NextStep: cassettes.Command("cassette", "version")}
	}
	if rf.Error != nil {
		rf.Run.Err = &cassettes.Error{Reason: rf.Error.Reason, Message: rf.Error.Message, NextStep: rf.Error.NextStep}
		for _, p := range rf.Error.Problems {
			rf.Run.Err.Problems = append(rf.Run.Err.Problems, cassettes.Problem(p))
		}
	}
	return rf.Run, rf.Options, nil
}

// MergeRuns combines the runs of the shards of one matrix into the run an
// unsharded run would have been: cases and inventory are united, the bounds
// widened, and the most severe run-level error kept (the first on a tie).
// Shards must agree on the suite, command and configuration, and no case may
// appear in two shards.
func MergeRuns(runs ...*Run) (*Run, error) {
	if len(runs) == 0 {
		return nil, cassettes.Errorf(cassettes.EUsage, cassettes.Command("cassette", "report", "merge", "--help"), "nothing to merge")
	}
	first := runs[0]
	m := *first
	m.Shard = ""
	m.Cases = nil
	m.Inventory = nil
	m.Err = nil
	seen := map[string]int{}
	inv := map[string]InventoryItem{}
	for i, r := range runs {
		if r.Suite != first.Suite || r.command() != first.command() || string(r.ConfigBytes) != string(first.ConfigBytes) {
			return nil, cassettes.Errorf(cassettes.EUsage, cassettes.Command("cassette", "report", "merge", "--help"),
				"shard %d is of another run (suite %q, command %q, or a different configuration); merge only the shards of one run", i+1, r.Suite, r.command())
		}
		for _, c := range r.Cases {
			if j, dup := seen[c.ID()]; dup {
				return nil, cassettes.Errorf(cassettes.EUsage, cassettes.Command("cassette", "report", "merge", "--help"),
					"case %s is in shard %d and shard %d (check the --shard flags of the matrix: each i/n must be distinct)", c.ID(), j+1, i+1)
			}
			seen[c.ID()] = i
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

func minTime(a, b time.Time) time.Time {
	switch {
	case a.IsZero():
		return b
	case b.IsZero() || a.Before(b):
		return a
	}
	return b
}

// MergeOptions controls [MergeDirs].
type MergeOptions struct {
	// AllowIncomplete merges a set of shards that lacks some of 1..n; the
	// merged run's Shard then names the shards it holds ("1,3 of 4
	// (incomplete)").
	AllowIncomplete bool
}

// Merge combines the report directories of `--shard` runs into out, which
// then holds the set an unsharded run writes (byte-identical in golden
// mode). The shards must have been written with the same options, and the
// set must be complete (every i of i/n present once).
func Merge(out string, dirs ...string) error {
	_, err := MergeDirs(out, MergeOptions{}, dirs...)
	return err
}

// MergeDirs is [Merge] with options; it returns the merged run, whose
// [Run.Exit] is the merged exit code.
func MergeDirs(out string, mo MergeOptions, dirs ...string) (*Run, error) {
	var runs []*Run
	var opts Options
	for i, d := range dirs {
		r, o, err := ReadRun(d)
		if err != nil {
			return nil, err
		}
		if i > 0 && (o.Golden != opts.Golden || o.SARIFLimit != opts.SARIFLimit || o.PreviewBytes != opts.PreviewBytes) {
			return nil, cassettes.Errorf(cassettes.EUsage, "Run every shard with the same --golden and report flags",
				"%s was written with other report options than %s", d, dirs[0])
		}
		opts = o
		runs = append(runs, r)
	}
	held, err := checkShards(runs, dirs, mo.AllowIncomplete)
	if err != nil {
		return nil, err
	}
	m, err := MergeRuns(runs...)
	if err != nil {
		return nil, err
	}
	m.Shard = held
	if err := Write(out, m, opts); err != nil {
		return nil, err
	}
	return m, nil
}

// checkShards checks that the runs are the complete shard set of one
// matrix: every run says "i/n" with one n, each i of 1..n exactly once.
// Runs that are no shard (unsharded runs, earlier merges) may only be
// merged with one another. With allowIncomplete, missing shards are
// accepted and held names the shards present ("1,3 of 4 (incomplete)");
// it is "" for a complete set.
func checkShards(runs []*Run, dirs []string, allowIncomplete bool) (held string, err error) {
	next := cassettes.Command("cassette", "report", "merge", "--help") // with the report directory of every shard
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
			return "", cassettes.Errorf(cassettes.EUsage, next, "%s: run.json has shard %q, expected i/n", dirs[k], r.Shard)
		}
		if n != 0 && sn != n {
			return "", cassettes.Errorf(cassettes.EUsage, next,
				"%s is shard %s but an earlier directory is a shard of %d (check the --shard flags of the matrix: every shard must use the same n)", dirs[k], r.Shard, n)
		}
		n = sn
		if d, dup := at[i]; dup {
			return "", cassettes.Errorf(cassettes.EUsage, next,
				"shard %d/%d is given twice: %s and %s (check the --shard flags of the matrix: each i/n must be distinct)", i, n, d, dirs[k])
		}
		at[i] = dirs[k]
	}
	if n == 0 {
		return "", nil // no shard at all: a merge of whole runs
	}
	if len(plain) > 0 && !allowIncomplete {
		return "", cassettes.Errorf(cassettes.EUsage, next, "%s is not a shard (no --shard i/%d), yet the others are", plain[0], n)
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
		return "", &cassettes.Error{Reason: cassettes.EUsage,
			Message: fmt.Sprintf("incomplete shard set: shard %s is missing (have %s of %d); a merge of it would report only part of the run: run the missing shard, then merge again with its report directory (or pass --allow-incomplete)",
				strings.Join(missing, ", "), strings.Join(present, ", "), n),
			NextStep: cassettes.Command("cassette", "verify", "--shard", first+"/"+strconv.Itoa(n), "--report-dir", "shard-"+first)}
	}
	return fmt.Sprintf("%s of %d (incomplete)", strings.Join(present, ","), n), nil
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

// CmdMerge is `cassette report merge --out OUT DIR...`: it merges, prints
// where the combined reports are and the merged run's outcome, and, when
// that run did not pass, its next step. It returns the merged run's exit
// code, which the command exits with.
func CmdMerge(w io.Writer, out string, dirs []string, mo MergeOptions) (cassettes.Exit, error) {
	m, err := MergeDirs(out, mo, dirs...)
	if err != nil {
		return cassettes.ExitUser, err
	}
	fmt.Fprintf(w, "merged %d shard report(s) into %s: %s\n", len(dirs), out, m.Message())
	if m.Shard != "" {
		fmt.Fprintf(w, "warning: shards %s: the merged reports cover only these shards\n", m.Shard)
	}
	if err := WriteNextStep(w, m); err != nil {
		return cassettes.ExitInfra, err
	}
	return m.Exit(), nil
}
