package refresh

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/normalize"
	"github.com/cassette-dev/cassette/internal/verify"
)

// BenchmarkCompare measures the drift check of one cycle (re-recorded vs
// committed cassette, normalized and structurally diffed) on a 64 KiB JSON
// body, and reports it against a baseline measured in the same run: decoding
// both bodies with encoding/json, the least a structural comparison must do.
func BenchmarkCompare(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"pets":[`)
	for i := 0; sb.Len() < 64<<10; i++ {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"id":"%08d-0000-4000-8000-000000000000","name":"pet %d","created_at":"2026-11-0%dT10:00:00Z"}`, i, i, i%9+1)
	}
	sb.WriteString(`]}`)
	body := sb.String()
	mk := func(body string) *cassettes.Cassette {
		return &cassettes.Cassette{Cassette: 1, Version: 2, Adapter: "petstore", Scenario: "list", Kind: cfgschema.KindHTTP,
			Normalizers: []string{"uuid", "timestamps.ISO8601"},
			Interactions: []cassettes.Interaction{{Request: cassettes.Request{Method: "GET", URL: "http://x/v1/pets"},
				Response: cassettes.Response{Code: 200, Headers: http.Header{"Content-Type": {"application/json"}}, Body: cassettes.Body(body)}}}}
	}
	want, got := mk(body), mk(strings.Replace(body, `"pet 7"`, `"pet seven"`, 1))
	a := &cfgschema.Adapter{Kind: cfgschema.KindHTTP, Normalizers: want.Normalizers}
	opts := verify.Options{Config: &cfgschema.Config{}, Normalizers: normalize.Builtins()}
	if d, _, _ := compare(want, got, a, opts); len(d) == 0 {
		b.Fatal("no drift found")
	}
	// The baseline, timed in the same run (testing.Benchmark cannot nest).
	const baseN = 50
	start := time.Now()
	for range baseN {
		var x, y any
		_ = json.Unmarshal([]byte(want.Interactions[0].Response.Body), &x)
		_ = json.Unmarshal([]byte(got.Interactions[0].Response.Body), &y)
		sink = x != nil && y != nil
	}
	baseNs := float64(time.Since(start).Nanoseconds()) / baseN
	b.SetBytes(int64(2 * len(body)))
	b.ResetTimer()
	for b.Loop() {
		compare(want, got, a, opts)
	}
	perOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(perOp/max(baseNs, 1), "x_json_decode")
}

var sink bool
