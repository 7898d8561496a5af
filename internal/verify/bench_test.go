package verify_test

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
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
// pet store fake served in process (one shared server) and, as the baseline
// of the same round, sends the same 1,000 requests with a plain net/http
// client (no normalization, no comparison) to the same server. Each
// iteration is one round of both, the order reversed every other round, so
// that the machine's drift hits both alike; it reports the medians of
// both rates and verify's time ÷ the baseline's within a round (median and
// min over rounds), of wall time and of the process's CPU time (server and
// client both in it), the steadier figure on a shared machine. Run with
// -benchtime 5x or more.
func BenchmarkVerify1000InProcess(b *testing.B) {
	cfg, list, reg := demo(&testing.T{})
	cases := thousand(b, cfg, list)
	srv, paths := petStore(b, cases)
	type took struct{ wall, cpu time.Duration }
	direct := func() took {
		start, cpu := time.Now(), cpuSelf()
		getAll(b, srv, paths)
		return took{time.Since(start), cpuSelf() - cpu}
	}
	full := func() took {
		start, cpu := time.Now(), cpuSelf()
		o := verify.Run(context.Background(), cases, verify.Options{Config: cfg, Normalizers: reg,
			HTTP: map[string]verify.HTTPTarget{"petstore": {BaseURL: srv.URL, Client: srv.Client()}}})
		t := took{time.Since(start), cpuSelf() - cpu}
		checkPassed(b, o)
		return t
	}
	var directs, fulls, ratios, cpuRatios, cpuPerCase []float64
	round := 0
	for b.Loop() {
		var d, f took
		if round%2 == 0 {
			d, f = direct(), full()
		} else {
			f, d = full(), direct()
		}
		round++
		n := float64(len(cases))
		directs, fulls = append(directs, n/d.wall.Seconds()), append(fulls, n/f.wall.Seconds())
		ratios, cpuRatios = append(ratios, f.wall.Seconds()/d.wall.Seconds()), append(cpuRatios, f.cpu.Seconds()/d.cpu.Seconds())
		cpuPerCase = append(cpuPerCase, f.cpu.Seconds()*1e6/n)
	}
	b.ReportMetric(median(fulls), "cases/s")
	b.ReportMetric(median(directs), "direct-cases/s")
	b.ReportMetric(median(ratios), "x-direct-median")
	b.ReportMetric(slices.Min(ratios), "x-direct-min")
	b.ReportMetric(median(cpuRatios), "cpu-x-direct-median")
	b.ReportMetric(slices.Min(cpuRatios), "cpu-x-direct-min")
	b.ReportMetric(median(cpuPerCase), "cpu-µs/case")
}

// BenchmarkVerify1000InProcessApart is BenchmarkVerify1000InProcess's two
// sides each alone (one op: the 1,000 cases), for counting instructions
// where wall time is noise: verify's own per case is (I(3x) − I(1x)) / 2000
// of `GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind
// ./verify.test -test.bench 'Verify1000InProcessApart/verify$' -test.benchtime Nx`,
// and the same of /direct is plain net/http's.
func BenchmarkVerify1000InProcessApart(b *testing.B) {
	cfg, list, reg := demo(&testing.T{})
	cases := thousand(b, cfg, list)
	srv, paths := petStore(b, cases)
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			getAll(b, srv, paths)
		}
	})
	b.Run("verify", func(b *testing.B) {
		for b.Loop() {
			o := verify.Run(context.Background(), cases, verify.Options{Config: cfg, Normalizers: reg,
				HTTP: map[string]verify.HTTPTarget{"petstore": {BaseURL: srv.URL, Client: srv.Client()}}})
			checkPassed(b, o)
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

// petStore serves the pet store fake in process, closed when b ends, and
// the URL of each case's first request on it.
func petStore(b *testing.B, cases []verify.Case) (*httptest.Server, []string) {
	srv := httptest.NewServer(store.New())
	b.Cleanup(srv.Close)
	paths := make([]string, len(cases))
	for i, c := range cases {
		u, _ := url.Parse(c.Cassette.Interactions[0].Request.URL)
		paths[i] = srv.URL + u.Path
	}
	return srv, paths
}

// getAll is plain net/http's side of the in-process rows: a GET of each
// path, its body read whole.
func getAll(b *testing.B, srv *httptest.Server, paths []string) {
	for _, p := range paths {
		resp, err := srv.Client().Get(p)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
