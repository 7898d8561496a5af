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

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verdict"
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

// A fake that never became ready (its port, new each run, in the message;
// its log under an absolute report directory) and a refresh's drift history
// (dated cycles) are byte-stable in golden mode, wherever the reports go.
func TestGoldenModeNormalizesPortsPathsAndDates(t *testing.T) {
	run := func(dir, port, day string) *Run {
		r := failingRun()
		r.Cases[1].Status, r.Cases[1].Reason = verdict.StatusError, outcome.EFakeUnavailable
		r.Cases[1].Message = "adapter gh: fake did not become ready at http://127.0.0.1:" + port + "/healthz"
		r.Cases[1].Artifacts = []verdict.Artifact{{Name: "gh fake log", Kind: "log", Path: filepath.Join(dir, "fakes", "gh.log")}}
		r.Err = &outcome.Error{Reason: outcome.EFakeUnavailable, Message: r.Cases[1].Message,
			Problems: []outcome.Problem{{File: "cassette.yaml", Line: 9, Field: "adapters.gh.fake", Message: filepath.Join(dir, "fakes", "gh.log") + ": the fake's log"},
				{File: filepath.Join(dir, "fakes", "gh.log"), Message: "boom (dial tcp [::1]:" + port + ")"}}}
		r.History = []AdapterHistory{{Adapter: "gh", Threshold: 3, Consecutive: 1, Cycles: []HistoryCycle{{At: day + "T06:00:00Z", Drifts: 1, Consecutive: 1}}}}
		return r
	}
	write := func(port, day string) (string, map[string][]byte) {
		dir := t.TempDir() // absolute, and new for each run
		if err := Write(dir, run(dir, port, day), Options{Golden: true, Now: func() time.Time { return t0 }}); err != nil {
			t.Fatal(err)
		}
		files := readAll(t, dir)
		html, err := os.ReadFile(filepath.Join(dir, FileHTML))
		if err != nil {
			t.Fatal(err)
		}
		files[FileHTML] = html
		return dir, files
	}
	dirA, a := write("41873", "2026-11-16")
	_, b := write("35211", "2026-11-23")
	for n := range a {
		if !bytes.Equal(a[n], b[n]) {
			t.Errorf("%s differs between two golden runs", n)
		}
		for _, volatile := range []string{dirA, "41873", "2026-11-16"} {
			if bytes.Contains(a[n], []byte(volatile)) {
				t.Errorf("%s holds %q in golden mode", n, volatile)
			}
		}
	}
	if !bytes.Contains(a[FileSummary], []byte(`"message": "fakes/gh.log: the fake's log"`)) || !bytes.Contains(a[FileSummary], []byte("127.0.0.1:<port>")) {
		t.Errorf("summary.json should name the log relative to the report directory and the port as <port>:\n%s", a[FileSummary])
	}
	// Default mode keeps what the run said.
	dir := t.TempDir()
	if err := Write(dir, run(dir, "41873", "2026-11-16"), Options{}); err != nil {
		t.Fatal(err)
	}
	if d := readAll(t, dir); !bytes.Contains(d[FileSummary], []byte("127.0.0.1:41873")) || !bytes.Contains(d[FileRun], []byte("2026-11-16T06:00:00Z")) {
		t.Error("default mode must keep the port and the dates")
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
				var mine []verdict.Case
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
		var mine []verdict.Case
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
	if err != nil || m.Exit() != outcome.ExitFail {
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
			ce := outcome.AsError(err)
			if err == nil || ce.Exit() != outcome.ExitUser || !strings.Contains(ce.Message, tc.want) || ce.NextStep == "" {
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
		if err != nil || m.Exit() != outcome.ExitFail {
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

// TestMergeNamesOneScenarioInTwoCassettes: two cassettes that name one
// scenario, each on another shard, are seen by no shard (each reads only
// its own files); the merge sees both and refuses them as validate would,
// naming both files, not the matrix's --shard flags.
func TestMergeNamesOneScenarioInTwoCassettes(t *testing.T) {
	one, two := failingRun(), failingRun()
	one.Shard, two.Shard = "1/2", "2/2"
	one.Cases[0].CassettePath = "cassettes/" + one.Cases[0].Adapter + "/" + one.Cases[0].Scenario + ".yaml"
	c := one.Cases[0]
	c.CassettePath = "cassettes/copy/" + c.Scenario + ".yaml"
	one.Cases, two.Cases = one.Cases[:1], []verdict.Case{c}
	// Given in the other order: the shards are named by their --shard.
	_, err := mergeDirs(t.TempDir(), MergeOptions{}, writeRun(t, two, Options{Golden: true}), writeRun(t, one, Options{Golden: true}))
	ce := outcome.AsError(err)
	if ce == nil || ce.Reason != outcome.ECassetteInvalid || ce.NextStep != "cassette validate" {
		t.Fatalf("err = %v, want E_CASSETTE_INVALID with the next step cassette validate", err)
	}
	for _, want := range []string{one.Cases[0].CassettePath + " (shard 1)", c.CassettePath + " (shard 2)"} {
		if !strings.Contains(ce.Message, want) {
			t.Errorf("message %q does not name %s", ce.Message, want)
		}
	}
}
