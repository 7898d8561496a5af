package report

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
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
			NextStep: "Run: cassette verify --shard i/n --report-dir " + dir}
	}
	rf := runFile{Run: &Run{}}
	if err := json.Unmarshal(data, &rf); err != nil {
		return nil, Options{}, &cassettes.Error{Reason: cassettes.ECfgParse, Message: "run.json is not valid", Err: err,
			Problems: []cassettes.Problem{{File: path, Line: jsonErrLine(data, err), Message: err.Error()}},
			NextStep: "Run: cassette verify --shard i/n --report-dir " + dir}
	}
	if rf.SchemaVersion != 1 {
		return nil, Options{}, &cassettes.Error{Reason: cassettes.ECfgParse, Message: "unsupported run.json",
			Problems: []cassettes.Problem{{File: path, Field: "schema_version", Message: fmt.Sprintf("schema_version %d", rf.SchemaVersion), Expected: "1"}},
			NextStep: "Re-run the shard with this cassette version"}
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
		return nil, cassettes.Errorf(cassettes.EUsage, "Run: cassette report merge OUT DIR...", "nothing to merge")
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
			return nil, cassettes.Errorf(cassettes.EUsage, "Merge only the shards of one run: cassette report merge OUT DIR...",
				"shard %d is of another run (suite %q, command %q, or a different configuration)", i+1, r.Suite, r.command())
		}
		for _, c := range r.Cases {
			if j, dup := seen[c.ID()]; dup {
				return nil, cassettes.Errorf(cassettes.EUsage, "Check the --shard flags of the matrix: each i/n must be distinct",
					"case %s is in shard %d and shard %d", c.ID(), j+1, i+1)
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

// Merge combines the report directories of `--shard` runs into out, which
// then holds the set an unsharded run writes (byte-identical in golden
// mode). The shards must have been written with the same options.
func Merge(out string, dirs ...string) error {
	var runs []*Run
	var opts Options
	for i, d := range dirs {
		r, o, err := ReadRun(d)
		if err != nil {
			return err
		}
		if i > 0 && (o.Golden != opts.Golden || o.SARIFLimit != opts.SARIFLimit || o.PreviewBytes != opts.PreviewBytes) {
			return cassettes.Errorf(cassettes.EUsage, "Run every shard with the same --golden and report flags",
				"%s was written with other report options than %s", d, dirs[0])
		}
		opts = o
		runs = append(runs, r)
	}
	m, err := MergeRuns(runs...)
	if err != nil {
		return err
	}
	return Write(out, m, opts)
}

// CmdMerge is `cassette report merge OUT DIR...`: it merges and prints where
// the combined reports are and the run's outcome.
func CmdMerge(w io.Writer, out string, dirs []string) error {
	if err := Merge(out, dirs...); err != nil {
		return err
	}
	s, err := ReadSummary(filepath.Join(out, FileSummary))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "merged %d report directories into %s: %s\n", len(dirs), out, s.Message)
	return nil
}
