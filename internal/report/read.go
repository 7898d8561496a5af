package report

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// Shard is the report directory of one run of a matrix, as [ReadShard]
// reads it back: the directory (it names the shard in messages), its run
// and the options its reports were written with.
type Shard struct {
	Dir     string
	Run     *Run
	Options Options
}

// ReadShard reads the run.json an earlier [Write] put at the root of fsys,
// the report directory dir (the command opens it: os.DirFS(dir)), for
// [Merge].
func ReadShard(fsys fs.FS, dir string) (Shard, error) {
	run, opts, err := ReadRun(fsys, dir)
	if err != nil {
		return Shard{}, err
	}
	return Shard{Dir: dir, Run: run, Options: opts}, nil
}

// ReadShards reads the report directories of a matrix's shards (each one's
// run.json), in order; the first that cannot be read is the error.
func ReadShards(dirs []string) ([]Shard, error) {
	shards := make([]Shard, len(dirs))
	for i, d := range dirs {
		var err error
		if shards[i], err = ReadShard(os.DirFS(d), d); err != nil {
			return nil, err
		}
	}
	return shards, nil
}

// ReadRun reads the run.json an earlier [Write] put at the root of fsys, the
// report directory dir (which names it in messages), with the options the
// reports were written with.
func ReadRun(fsys fs.FS, dir string) (*Run, Options, error) {
	path := filepath.Join(dir, FileRun)
	data, err := fs.ReadFile(fsys, FileRun)
	if err != nil {
		return nil, Options{}, &outcome.Error{Reason: outcome.EMissingConfig, Message: "no run.json in " + dir, Err: err,
			Problems: []outcome.Problem{{File: path, Message: "missing", Expected: "the report directory of a `cassette verify --report-dir` run"}},
			NextStep: outcome.Command("cassette", "verify", "--report-dir", dir)}
	}
	rf := runFile{Run: &Run{}}
	if err := json.Unmarshal(data, &rf); err != nil {
		return nil, Options{}, &outcome.Error{Reason: outcome.ECfgParse, Message: "run.json is not valid", Err: err,
			Problems: []outcome.Problem{{File: path, Line: jsonErrLine(data, err), Message: err.Error()}},
			NextStep: outcome.Command("cassette", "verify", "--report-dir", dir)}
	}
	if rf.SchemaVersion != 1 {
		return nil, Options{}, &outcome.Error{Reason: outcome.ECfgParse, Message: "unsupported run.json: run the shard again with this cassette version",
			Problems: []outcome.Problem{{File: path, Field: "schema_version", Message: fmt.Sprintf("schema_version %d", rf.SchemaVersion), Expected: "1"}},
			NextStep: outcome.Command("cassette", "version")}
	}
	if rf.Error != nil {
		rf.Run.Err = &outcome.Error{Reason: rf.Error.Reason, Message: rf.Error.Message, NextStep: rf.Error.NextStep}
		for _, p := range rf.Error.Problems {
			rf.Run.Err.Problems = append(rf.Run.Err.Problems, outcome.Problem(p))
		}
	}
	return rf.Run, rf.Options, nil
}
