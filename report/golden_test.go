package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
)

// jitter returns a copy of r with every volatile value changed, as a second
// run over the same inputs would have them.
func jitter(r *Run, d time.Duration) *Run {
	r.Started = r.Started.Add(d)
	r.Finished = r.Finished.Add(3 * d)
	for i := range r.Cases {
		r.Cases[i].Duration += d
		for j := range r.Cases[i].Actions {
			r.Cases[i].Actions[j].Duration += d
		}
	}
	return r
}

func readAll(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, n := range []string{FileJUnit, FileSARIF, FileSummary, FileReport, FileLog, FileRun} {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		out[n] = b
	}
	return out
}

func TestGoldenModeIsByteIdenticalAcrossRuns(t *testing.T) {
	for _, tc := range sampleRuns {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{Golden: true, SARIFLimit: tc.limit}
			a := readAll(t, writeRun(t, tc.run(), opts))
			opts.Now = func() time.Time { return t0.Add(time.Hour) }
			opts.Host = "other-host"
			b := readAll(t, writeRun(t, jitter(tc.run(), 7*time.Second), opts))
			for n := range a {
				if !bytes.Equal(a[n], b[n]) {
					t.Errorf("%s differs between two golden runs:\n%s\n---\n%s", n, a[n], b[n])
				}
			}
			// and default mode does carry the volatile fields
			d := readAll(t, writeRun(t, tc.run(), Options{SARIFLimit: tc.limit}))
			if !bytes.Contains(d[FileReport], []byte(`"generated_at_utc"`)) || bytes.Contains(a[FileReport], []byte(`"duration_ms"`)) {
				t.Error("volatile fields: expected in default mode, absent in golden mode")
			}
		})
	}
}

// TestGoldenFiles compares the golden-mode outputs of the failing run with
// the reviewed files under testdata/ (regenerate with -update).
func TestGoldenFiles(t *testing.T) {
	dir := writeRun(t, failingRun(), Options{Golden: true})
	for n, got := range readAll(t, dir) {
		if n == FileRun {
			continue
		}
		golden := filepath.Join("testdata", "failing."+n)
		if *update {
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test ./report -update to create it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s (review, then go test ./report -update):\n%s", n, golden, got)
		}
	}
}

func TestGoldenKeysAreByteSorted(t *testing.T) {
	dir := writeRun(t, failingRun(), Options{Golden: true})
	data, _ := os.ReadFile(filepath.Join(dir, FileReport))
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	if !bytes.Contains(lines[0], []byte(`"k":"cassette_report"`)) || !bytes.Contains(lines[len(lines)-1], []byte(`"k":"summary"`)) {
		t.Fatal("report must start with the header and end with the summary")
	}
	for i, ln := range lines {
		keys := topLevelKeys(t, ln)
		for j := 1; j < len(keys); j++ {
			if keys[j-1] >= keys[j] {
				t.Errorf("line %d: key %q before %q", i+1, keys[j-1], keys[j])
			}
		}
	}
}

// topLevelKeys lists the keys of a JSON object in the order written.
func topLevelKeys(t *testing.T, line []byte) []string {
	t.Helper()
	dec := jsonDecoder(line)
	var keys []string
	depth := 0
	expectKey := false
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case jsonDelim:
			if v == '{' || v == '[' {
				depth++
				expectKey = v == '{' && depth == 1
			} else {
				depth--
				expectKey = depth == 1
			}
			continue
		case string:
			if depth == 1 && expectKey {
				keys = append(keys, v)
				expectKey = false
				continue
			}
		}
		if depth == 1 {
			expectKey = true
		}
	}
	return keys
}

func TestShardMergeEqualsUnsharded(t *testing.T) {
	for _, tc := range sampleRuns {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{Golden: true, SARIFLimit: tc.limit}
			whole := readAll(t, writeRun(t, tc.run(), opts))

			var dirs []string
			for i := range 2 {
				r := tc.run()
				r.Shard = []string{"1/2", "2/2"}[i]
				var mine []Case
				for j, c := range r.Cases {
					if j%2 == i {
						mine = append(mine, c)
					}
				}
				r.Cases = mine
				dirs = append(dirs, writeRun(t, jitter(r, time.Duration(i)*time.Second), opts))
			}
			out := t.TempDir()
			if _, err := mergeDirs(out, MergeOptions{}, dirs...); err != nil {
				t.Fatal(err)
			}
			merged := readAll(t, out)
			for n := range whole {
				if !bytes.Equal(whole[n], merged[n]) {
					t.Errorf("merged %s differs from the unsharded run's:\n%s\n---\n%s", n, whole[n], merged[n])
				}
			}
		})
	}
}

func TestMergeRejects(t *testing.T) {
	a := writeRun(t, failingRun(), Options{Golden: true})
	other := failingRun()
	other.Suite = "other"
	b := writeRun(t, other, Options{Golden: true})
	c := writeRun(t, failingRun(), Options{})
	tests := []struct {
		name string
		dirs []string
	}{
		{"the same case twice", []string{a, a}},
		{"another suite", []string{a, b}},
		{"other options", []string{a, c}},
		{"no run.json", []string{a, t.TempDir()}},
		{"nothing", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := mergeDirs(t.TempDir(), MergeOptions{}, tc.dirs...); err == nil {
				t.Error("merged")
			}
		})
	}
}

// shardDirs writes failingRun split into n shards (case k in shard k mod n)
// and returns their report directories.
func shardDirs(t *testing.T, n int) []string {
	var dirs []string
	for i := range n {
		r := failingRun()
		r.Shard = fmt.Sprintf("%d/%d", i+1, n)
		var mine []Case
		for j, c := range r.Cases {
			if j%n == i {
				mine = append(mine, c)
			}
		}
		r.Cases = mine
		dirs = append(dirs, writeRun(t, r, Options{Golden: true}))
	}
	return dirs
}

// TestMergeShardSet: a merge of every shard is the merged run, with its
// exit code and next step; an incomplete set is refused (exit 2, naming the
// missing shard) unless explicitly allowed; a shard given twice, shards of
// two matrices and a whole run mixed with shards are refused.
func TestMergeShardSet(t *testing.T) {
	three := shardDirs(t, 3)
	two := shardDirs(t, 2)
	whole := writeRun(t, failingRun(), Options{Golden: true})

	m, err := mergeDirs(t.TempDir(), MergeOptions{}, three...)
	if err != nil || m.Exit() != cassettes.ExitFail {
		t.Fatalf("complete drifting set: %v, %v; want exit 1", m, err)
	}
	if ns := m.NextStepCommand(); ns != "Run: cassette verify --case gh/pr-list" {
		t.Errorf("next step %q", ns)
	}

	refused := []struct {
		name, want string
		dirs       []string
	}{
		{"missing middle shard", "shard 2/3 is missing", []string{three[0], three[2]}},
		{"missing last shard", "shard 2/2 is missing", two[:1]},
		{"shard twice", "shard 1/3 is given twice", []string{three[0], three[0], three[1], three[2]}},
		{"two matrices", "is shard 1/2 but an earlier directory is a shard of 3", []string{three[0], two[0]}},
		{"whole run among shards", "is not a shard", []string{whole, two[0], two[1]}},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			_, err := mergeDirs(out, MergeOptions{}, tc.dirs...)
			ce := cassettes.AsError(err)
			if err == nil || ce.Exit() != cassettes.ExitUser || !strings.Contains(ce.Message, tc.want) || ce.NextStep == "" {
				t.Fatalf("got %v (next %q), want exit 2 with %q and a next step", err, ce.NextStep, tc.want)
			}
			if _, err := os.Stat(filepath.Join(out, FileSummary)); err == nil {
				t.Error("a refused merge wrote summary.json")
			}
		})
	}

	t.Run("allowed incomplete", func(t *testing.T) {
		out := t.TempDir()
		m, err := mergeDirs(out, MergeOptions{AllowIncomplete: true}, three[0], three[2])
		if err != nil || m.Exit() != cassettes.ExitFail {
			t.Fatalf("%v, %v", m, err)
		}
		r, _, err := ReadRun(os.DirFS(out), out)
		if err != nil || r.Shard != "1,3 of 3 (incomplete)" {
			t.Errorf("merged run.json shard %q, %v", r.Shard, err)
		}
	})
}

// mergeDirs merges the report directories into out as `cassette report
// merge` does: ReadShard each, Merge, Write.
func mergeDirs(out string, mo MergeOptions, dirs ...string) (*Run, error) {
	var shards []Shard
	for _, d := range dirs {
		s, err := ReadShard(os.DirFS(d), d)
		if err != nil {
			return nil, err
		}
		shards = append(shards, s)
	}
	m, opts, err := Merge(shards, mo)
	if err != nil {
		return nil, err
	}
	return m, Write(out, m, opts)
}

type jsonDelim = json.Delim

func jsonDecoder(b []byte) *json.Decoder { return json.NewDecoder(bytes.NewReader(b)) }
