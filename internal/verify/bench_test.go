package verify_test

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/examples/demo/fakes/petstore/store"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/verdict"
	"github.com/cassette-dev/cassette/internal/verify"
)

// thousand returns 1,000 HTTP cases: copies of the demo's recorded
// get-missing cassette under distinct scenario names.
func thousand(b *testing.B, cfg *cfgschema.Config, list []*cassettes.Cassette) []verify.Case {
	var src *cassettes.Cassette
	for _, c := range list {
		if c.ID() == "petstore/get-missing" {
			src = c
		}
	}
	var many []*cassettes.Cassette
	for i := range 1000 {
		c := *src
		c.Scenario = fmt.Sprintf("get-missing-%04d", i)
		many = append(many, &c)
	}
	cases, err := verify.Plan(cfg, many, verify.Selection{})
	if err != nil {
		b.Fatal(err)
	}
	return cases
}

func checkPassed(b *testing.B, o *verify.Outcome) {
	for _, r := range o.Results {
		if r.Status != verdict.StatusPass {
			b.Fatalf("%s: %s %s", r.Case.ID(), r.Status, r.Message)
		}
	}
}

// BenchmarkVerify1000InProcess verifies 1,000 HTTP cassettes against the
// pet store fake served in process (one shared server), and, as the
// baseline of the same run, sends the same 1,000 requests with a plain
// net/http client (no normalization, no comparison).
func BenchmarkVerify1000InProcess(b *testing.B) {
	cfg, list, reg := demo(&testing.T{})
	cases := thousand(b, cfg, list)
	srv := httptest.NewServer(store.New())
	defer srv.Close()
	var direct, full float64
	b.Run("baseline-direct-http", func(b *testing.B) {
		runs, start := 0, time.Now()
		for b.Loop() {
			for _, c := range cases {
				u, _ := url.Parse(c.Cassette.Interactions[0].Request.URL)
				resp, err := srv.Client().Get(srv.URL + u.Path)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			runs++
		}
		direct = float64(runs*len(cases)) / time.Since(start).Seconds()
		b.ReportMetric(direct, "cases/s")
	})
	b.Run("verify", func(b *testing.B) {
		runs, start := 0, time.Now()
		for b.Loop() {
			o := verify.Run(context.Background(), cases, verify.Options{Config: cfg, Normalizers: reg,
				HTTP: map[string]verify.HTTPTarget{"petstore": {BaseURL: srv.URL, Client: srv.Client()}}})
			checkPassed(b, o)
			runs++
		}
		full = float64(runs*len(cases)) / time.Since(start).Seconds()
		b.ReportMetric(full, "cases/s")
		if direct > 0 {
			b.ReportMetric(direct/full, "x-slower-than-direct")
		}
	})
}

// BenchmarkVerify1000Process verifies the same 1,000 cassettes against the
// fake as a process: shared (one process) and fresh (one process per case,
// the default).
func BenchmarkVerify1000Process(b *testing.B) {
	cfg, list, reg := demo(&testing.T{})
	bin := filepath.Join(b.TempDir(), "petstore")
	for _, shared := range []bool{true, false} {
		b.Run(fmt.Sprintf("shared=%v", shared), func(b *testing.B) {
			a := *cfg.Adapters["petstore"]
			a.Fake.Build = []string{"go", "build", "-o", bin, "./fakes/petstore"}
			a.Fake.Command = []string{bin}
			a.Fake.Shared = shared
			cfg.Adapters["petstore"] = &a
			cases := thousand(b, cfg, list)
			runs, start := 0, time.Now()
			for b.Loop() {
				o := verify.Run(context.Background(), cases, verify.Options{Config: cfg, Normalizers: reg, LogDir: b.TempDir()})
				if o.Err != nil {
					b.Fatal(o.Err)
				}
				checkPassed(b, o)
				runs++
			}
			b.ReportMetric(float64(runs*len(cases))/time.Since(start).Seconds(), "cases/s")
		})
	}
}
