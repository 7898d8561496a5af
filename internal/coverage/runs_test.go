package coverage

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestRuns holds the runs of an observation directory: each subdirectory
// with observation files is a run, loose files one more, the latest by its
// newest file; PruneRuns removes every run but the one kept.
func TestRuns(t *testing.T) {
	dir := t.TempDir()
	write := func(rel string, at time.Time) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(`{"v":1,"adapter":"git","kind":"cli","call":{"argv":["git","status"]}}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	old, newer := RunName(t0, 7), RunName(t0.Add(time.Hour), 8)
	write(old+"/pytest-7.jsonl", t0)
	write(newer+"/pytest-8.jsonl", t0.Add(3*time.Hour))
	write("go-9.jsonl", t0.Add(2*time.Hour)) // a writer that names no run, written to while newer ran
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	runs, err := Runs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 || runs[0].Dir != filepath.Join(dir, old) || runs[1].Dir != dir || runs[2].Dir != filepath.Join(dir, newer) {
		t.Fatalf("runs: %+v", runs)
	}
	current, n, err := CurrentRuns(dir)
	if err != nil || n != 3 || len(current) != 2 || current[0].Dir != filepath.Join(dir, newer) || current[1].Dir != dir {
		t.Fatalf("current runs: %+v of %d, %v: want the latest and the loose files written during it", current, n, err)
	}
	latest, n, ok, err := LatestRun(dir)
	if err != nil || !ok || n != 3 || latest.Dir != filepath.Join(dir, newer) {
		t.Fatalf("latest: %+v %d %v %v", latest, n, ok, err)
	}
	if err := PruneRuns(dir, latest.Dir); err != nil {
		t.Fatal(err)
	}
	if runs, _ := Runs(dir); len(runs) != 1 || runs[0].Dir != latest.Dir {
		t.Fatalf("after pruning: %+v", runs)
	}
	if _, _, ok, _ := LatestRun(filepath.Join(dir, "missing")); ok {
		t.Error("a missing directory holds a run")
	}
	if got := RunName(t0, 42); got != "20261201T100000.000000Z-42" {
		t.Errorf("RunName: %s", got)
	}
}
