package harness_test

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/internal/harness"
)

// BenchmarkCheckLine is check's own cost per line, in process: a CLI case
// with a normalizer, judged as a drift (the costlier verdict: a diff and
// its explanation) and as a pass. bench/check-batch.sh measures the whole
// command against verify with a process per case.
func BenchmarkCheckLine(b *testing.B) {
	cases, opts := project(b)
	for _, bc := range []struct{ name, stdout string }{
		{"pass", `Hello, Ada!\ncommit 1111111111111111111111111111111111111111\n`},
		{"drift", `Hi, Ada!\ncommit 1111111111111111111111111111111111111111\n`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			line := []byte(`{"id":"greet/hello","cli":{"stdout":"` + bc.stdout + `","stderr":"","exit_code":0}}` + "\n")
			in := bytes.Repeat(line, b.N)
			k := &harness.Checker{Cases: cases, Options: opts, Now: func() time.Time { return beforeExpiry }}
			b.ResetTimer()
			if _, err := k.Check(bytes.NewReader(in), io.Discard); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e3, "µs/line")
		})
	}
}
