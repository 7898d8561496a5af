package report

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/internal/verdict"
)

func bigRun(n int) *Run {
	r := baseRun()
	for i := range n {
		c := passCase(fmt.Sprintf("adapter%02d", i%10), fmt.Sprintf("scenario-%04d", i))
		c.Actions[0].Body = make([]byte, 4096)
		if i%7 == 0 {
			c.Status = verdict.StatusFail
			c.Drifts = []verdict.Drift{{Class: "body", Line: 12, Message: "differs", Diff: "--- cassette\n+++ fake\n@@ -1 +1 @@\n-a\n+b\n"}}
		}
		r.Cases = append(r.Cases, c)
	}
	return r
}

// BenchmarkRender renders every report file of a 1,000-case run in memory
// (no disk, no scan) and reports the output rate and the cost relative to a
// baseline measured in the same run: encoding/json of the run model alone.
func BenchmarkRender(b *testing.B) {
	r := bigRun(1000)
	opts := Options{Golden: true, Now: func() time.Time { return t0 }}
	// the baseline, timed by hand: testing.Benchmark cannot nest
	const baseRounds = 5
	start := time.Now()
	for range baseRounds {
		if _, err := json.Marshal(r); err != nil {
			b.Fatal(err)
		}
	}
	basePerOp := time.Since(start).Seconds() / baseRounds
	var size int
	b.ResetTimer()
	for b.Loop() {
		files, err := Render(r, opts)
		if err != nil {
			b.Fatal(err)
		}
		size = 0
		for _, f := range files {
			size += len(f)
		}
	}
	perOp := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(size)/perOp/1e6, "MB/s")
	b.ReportMetric(perOp/basePerOp, "x-json-baseline")
}

// BenchmarkScan measures the secret scan over the rendered reports of a
// 1,000-case run, the price of "no credential reaches a file".
func BenchmarkScan(b *testing.B) {
	r := bigRun(1000)
	files, err := Render(r, Options{Golden: true})
	if err != nil {
		b.Fatal(err)
	}
	var size int
	for _, f := range files {
		size += len(f)
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		if err := scan("dir", r, files, map[string]string{"TOKEN": "abcdefghijkl"}); err != nil {
			b.Fatal(err)
		}
	}
}
