package cassettes

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/internal/cfgschema"
)

// benchInteraction is interaction i of a generated cassette: a GET with
// the headers a client sends and a ~600-byte pretty-printed JSON answer.
func benchInteraction(i int) Interaction {
	var body strings.Builder
	body.WriteString("{\n")
	fmt.Fprintf(&body, "  \"id\": %d,\n  \"node_id\": \"U%07d\",\n", i, i)
	fmt.Fprintf(&body, "  \"name\": \"item-%d\",\n  \"full_name\": \"owner/item-%d\",\n", i, i)
	body.WriteString("  \"private\": false,\n  \"description\": \"a generated item\",\n")
	fmt.Fprintf(&body, "  \"url\": \"https://api.example.com/v1/items/%d\",\n", i)
	body.WriteString("  \"created_at\": \"2026-11-22T14:00:00Z\", \"updated_at\": \"2026-11-22T14:05:00Z\",\n")
	body.WriteString("  \"stargazers_count\": 42, \"watchers_count\": 42, \"language\": \"Go\", \"forks_count\": 7,\n")
	body.WriteString("  \"topics\": [\"cassette\", \"replay\", \"benchmark\"],\n")
	body.WriteString("  \"owner\": {\"login\": \"owner\", \"id\": 1, \"type\": \"Organization\", \"site_admin\": false},\n")
	body.WriteString("  \"license\": {\"key\": \"mit\", \"name\": \"MIT License\", \"spdx_id\": \"MIT\"}\n}\n")
	return Interaction{
		ID: i,
		Request: Request{
			Host:    "api.example.com",
			URL:     fmt.Sprintf("https://api.example.com/v1/items/%d?page=%d", i, i%10),
			Method:  "GET",
			Headers: http.Header{"Accept": {"application/json"}, "User-Agent": {"bench/1.0"}, "Authorization": {"[REDACTED]"}},
		},
		Response: Response{
			ContentLength: int64(body.Len()),
			Body:          Body(body.String()),
			Headers: http.Header{"Content-Type": {"application/json; charset=utf-8"}, "Date": {"Sun, 22 Nov 2026 14:00:00 GMT"},
				"Etag": {fmt.Sprintf("W/\"%08x\"", i*2654435761%(1<<32))}, "X-Request-Id": {fmt.Sprintf("req-%08d", i)}},
			Status: "200 OK", Code: 200, Duration: Duration(12_500_000),
		},
	}
}

// writeBenchCassettes writes n interactions into files cassettes of
// adapter bench under dir and returns their paths. The YAML is Marshal's,
// produced a batch at a time so the generator itself stays small in memory.
func writeBenchCassettes(tb testing.TB, dir string, n, files int) []string {
	tb.Helper()
	var paths []string
	per := (n + files - 1) / files
	for f := 0; f < files; f++ {
		lo, hi := f*per, min((f+1)*per, n)
		head := &Cassette{Cassette: SchemaVersion, Version: GoVCRVersion, Adapter: "bench", Scenario: fmt.Sprintf("load-%d", f), Kind: cfgschema.KindHTTP}
		var buf bytes.Buffer
		for i := lo; i < hi; i += 1000 {
			part := *head
			for j := i; j < min(i+1000, hi); j++ {
				part.Interactions = append(part.Interactions, benchInteraction(j))
			}
			data, err := Marshal(&part)
			if err != nil {
				tb.Fatal(err)
			}
			if i > lo {
				_, data, _ = bytes.Cut(data, []byte("\ninteractions:\n"))
			}
			buf.Write(data)
		}
		p := filepath.Join(dir, "bench", fmt.Sprintf("load-%d.yaml", f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			tb.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// TestWriteBenchCassettes writes the generated cassettes to
// $CASSETTE_BENCH_DIR for measuring `cassette validate` from outside.
func TestWriteBenchCassettes(t *testing.T) {
	dir := os.Getenv("CASSETTE_BENCH_DIR")
	if dir == "" {
		t.Skip("set CASSETTE_BENCH_DIR (and CASSETTE_BENCH_N, CASSETTE_BENCH_FILES) to write the benchmark cassettes")
	}
	n, files := 100_000, 4
	fmt.Sscan(os.Getenv("CASSETTE_BENCH_N"), &n)
	fmt.Sscan(os.Getenv("CASSETTE_BENCH_FILES"), &files)
	for _, p := range writeBenchCassettes(t, dir, n, files) {
		st, _ := os.Stat(p)
		t.Logf("%s: %d bytes", p, st.Size())
	}
}

// oldParse is Parse as it was before the split (the baseline of
// BenchmarkLoad100k): the whole file into a node tree kept for Line, then
// the whole file again into the structs, and the same checks.
func oldParse(path string, data []byte) (*Cassette, error) {
	leaks := leakProblems(path, data, nil)
	doc, probs := parseDocument(path, data, "a cassette")
	if len(probs) > 0 {
		return nil, fmt.Errorf("%v", probs)
	}
	c := &Cassette{Path: path, loc: &locator{head: doc}}
	probs = append(probs, checkKnown(path, doc.Content[0], reflect.TypeOf(Cassette{}), "", true, &c.Warnings)...)
	if err := decodeStrict(data, c, true); err != nil {
		return nil, err
	}
	probs = append(probs, validateCassette(c, LoadOptions{})...)
	probs = append(probs, encodedLeaks(c, nil)...)
	if len(probs)+len(leaks) > 0 {
		return nil, fmt.Errorf("%v", append(leaks, probs...))
	}
	return c, nil
}

// peakHeap samples the live heap objects every millisecond until stop is
// closed and returns the largest value seen.
func peakHeap(stop <-chan struct{}) <-chan uint64 {
	out := make(chan uint64, 1)
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var peak uint64
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-stop:
				out <- peak
				return
			case <-t.C:
			}
		}
	}()
	return out
}

// BenchmarkLoad100k loads 100,000 generated interactions (about 130 MB of
// YAML) the old way and the new way, interleaved, one round per iteration:
// one 130 MB file through Parse (whole file in memory; Load refuses a file
// over MaxFileBytes), and four 32 MB files through LoadTree. It reports
// the median and the minimum of each, and the peak heap (objects, live and
// not yet collected) during the
// load; the CPU time of each load (user and system, all cores) varies less
// than its wall time on a shared machine.
// Run: go test ./cassettes -run '^$' -bench Load100k -benchtime 5x
func BenchmarkLoad100k(b *testing.B) {
	dir := b.TempDir()
	one := writeBenchCassettes(b, filepath.Join(dir, "one"), 100_000, 1)[0]
	four := filepath.Join(dir, "four")
	writeBenchCassettes(b, four, 100_000, 4)
	data, err := os.ReadFile(one)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(len(data))/1e6, "MB-yaml")
	type run struct {
		name string
		load func() (*Cassette, error)
	}
	first := func(list []*Cassette, err error) (*Cassette, error) {
		if err != nil {
			return nil, err
		}
		return list[0], nil
	}
	runs := []run{
		{"old-1file", func() (*Cassette, error) { return oldParse(one, data) }},
		{"new-1file", func() (*Cassette, error) { return Parse(one, data, LoadOptions{}) }},
		{"new-4files", func() (*Cassette, error) { return first(LoadTree([]string{four}, LoadOptions{})) }},
	}
	secs := make([][]float64, len(runs))
	cpus := make([][]float64, len(runs))
	peaks := make([][]float64, len(runs))
	for b.Loop() {
		for i, r := range runs {
			runtime.GC()
			stop := make(chan struct{})
			peak := peakHeap(stop)
			t0, c0 := time.Now(), cpuTime()
			c, err := r.load()
			d, cpu := time.Since(t0), cpuTime()-c0
			close(stop)
			if err != nil {
				b.Fatal(err)
			}
			secs[i] = append(secs[i], d.Seconds())
			cpus[i] = append(cpus[i], cpu.Seconds())
			peaks[i] = append(peaks[i], float64(<-peak)/1e6)
			runtime.KeepAlive(c)
		}
	}
	med := func(v []float64) float64 { s := slices.Clone(v); slices.Sort(s); return s[len(s)/2] }
	for i, r := range runs {
		b.ReportMetric(med(secs[i]), r.name+"-s-median")
		b.ReportMetric(slices.Min(secs[i]), r.name+"-s-min")
		b.ReportMetric(med(cpus[i]), r.name+"-cpu-s-median")
		b.ReportMetric(med(peaks[i]), r.name+"-peakheap-MB")
		if i > 0 {
			b.ReportMetric(med(secs[0])/med(secs[i]), r.name+"-speedup")
			b.ReportMetric(med(cpus[0])/med(cpus[i]), r.name+"-cpu-ratio")
			b.ReportMetric(med(peaks[0])/med(peaks[i]), r.name+"-peakheap-ratio")
		}
	}
}
