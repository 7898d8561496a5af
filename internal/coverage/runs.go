package coverage

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// A run is the observations of one test session: a directory below the
// project's .cassette/observed named after the time it began
// (20261201T193215.123456Z-4242, the writer's pid last), written by
// `cassette observe` (one run for the whole test command, every process
// under it sharing it through CASSETTE_OBSERVE_DIR) or by a binding's
// session run without it (pytest, node:test: one run each, xdist workers
// included). Coverage reads the latest run, and the runs written to while
// it was (an observing proxy's files beside a pytest session's run), so
// that the calls of an earlier session, which the code may no longer
// make, are never counted; files directly in .cassette/observed (writers
// that name no run) are one run of their own, dated by their files.

// RunName is the name of a run that begins at t in process pid.
func RunName(t time.Time, pid int) string {
	return t.UTC().Format("20060102T150405.000000Z") + fmt.Sprintf("-%d", pid)
}

// OwnRun is the run directory, below the observation directory dir, of a
// writer that no session gave one (no CASSETTE_OBSERVE_DIR): a run of its
// own that begins at t in process pid, as a binding's session run has
// (an observing proxy, a Go test binary). Files written directly in dir
// would be one run with every earlier such writer's files.
func OwnRun(dir string, t time.Time, pid int) string {
	return filepath.Join(dir, RunName(t, pid))
}

// StartRun is the run an observe that begins at t in process pid writes: a
// new one in dir (made), or with appendLatest the latest one (a new one
// when there is none). Nothing is removed here: the earlier runs go once
// the test command has run (PruneRuns).
func StartRun(dir string, appendLatest bool, t time.Time, pid int) (string, error) {
	if appendLatest {
		if run, _, ok, err := LatestRun(dir); err == nil && ok && run.Dir != dir {
			return run.Dir, nil
		}
	}
	run := OwnRun(dir, t, pid)
	if err := os.MkdirAll(run, 0o755); err != nil {
		return "", &outcome.Error{Reason: outcome.EIO, Message: "cannot make the directory of this run's observations", Err: err, NextStep: outcome.Command("ls", "-ld", dir)}
	}
	return run, nil
}

// Run is one run of observations found in an observation directory.
type Run struct {
	// Dir is the run's directory (the observation directory itself for
	// loose files).
	Dir string
	// Began is when the run began (from its name; else its oldest file's
	// time), Latest the modification time of its newest observation file.
	Began, Latest time.Time
	// Files counts its observation files.
	Files int
}

// Runs lists the runs of an observation directory, the latest last: each
// subdirectory holding observation files, and the directory itself when it
// holds some. A missing directory has none.
func Runs(dir string) ([]Run, error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var runs []Run
	if r := runOf(dir); r.Files > 0 {
		runs = append(runs, r)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if r := runOf(filepath.Join(dir, e.Name())); r.Files > 0 {
			runs = append(runs, r)
		}
	}
	slices.SortStableFunc(runs, func(a, b Run) int {
		if c := a.Latest.Compare(b.Latest); c != 0 {
			return c
		}
		return strings.Compare(a.Dir, b.Dir)
	})
	return runs, nil
}

// runOf is the run of one directory (Files 0 when it holds none).
func runOf(dir string) Run {
	r := Run{Dir: dir}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	for _, f := range files {
		st, err := os.Lstat(f)
		if err != nil {
			continue
		}
		r.Files++
		if st.ModTime().After(r.Latest) {
			r.Latest = st.ModTime()
		}
		if r.Began.IsZero() || st.ModTime().Before(r.Began) {
			r.Began = st.ModTime()
		}
	}
	name, _, _ := strings.Cut(filepath.Base(dir), "-")
	if t, err := time.Parse("20060102T150405.000000Z", name); err == nil && t.Before(r.Began) {
		r.Began = t
	}
	return r
}

// CurrentRuns are the runs coverage reads: the latest run, and the other
// runs written to after it began (a writer that shared the session
// without sharing its run), the latest first; n counts every run of dir.
func CurrentRuns(dir string) (current []Run, n int, err error) {
	runs, err := Runs(dir)
	if err != nil || len(runs) == 0 {
		return nil, 0, err
	}
	latest := runs[len(runs)-1]
	current = []Run{latest}
	for i := len(runs) - 2; i >= 0; i-- {
		if !runs[i].Latest.Before(latest.Began) {
			current = append(current, runs[i])
		}
	}
	return current, len(runs), nil
}

// LatestRun is the run of dir that coverage reads, and how many runs dir
// holds; ok is false when it holds none.
func LatestRun(dir string) (run Run, n int, ok bool, err error) {
	runs, err := Runs(dir)
	if err != nil || len(runs) == 0 {
		return Run{}, 0, false, err
	}
	return runs[len(runs)-1], len(runs), true, nil
}

// PruneRuns removes the runs of dir other than keep (a run directory):
// `cassette observe` calls it once its test command has run, so that
// nothing is deleted before the new run exists. Loose files count as a
// run.
func PruneRuns(dir, keep string) error {
	runs, err := Runs(dir)
	if err != nil {
		return err
	}
	for _, r := range runs {
		if filepath.Clean(r.Dir) == filepath.Clean(keep) {
			continue
		}
		if filepath.Clean(r.Dir) == filepath.Clean(dir) {
			files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
			for _, f := range files {
				if err := os.Remove(f); err != nil {
					return err
				}
			}
			continue
		}
		if err := os.RemoveAll(r.Dir); err != nil {
			return err
		}
	}
	return nil
}
