package verify_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/internal/verify"
)

// BenchmarkVerifyFresh1000 verifies 1,000 HTTP cassettes against the demo's
// pet store fake, built once beforehand, with a fresh process per case (the
// default), and measures in the same round, as its baseline, the fake's
// bare start/stop rate: the same binary started 1,000 times, as many at
// once as verify starts ahead, each with PORT=0 (the kernel picks the
// port), read until its first output line (it logs once it listens), then
// SIGTERM and reaped, with nothing of verify around it. Each iteration is
// one round (floor, then verify); it reports the medians of both, the ratio
// verify ÷ floor within a round (median and min over rounds), and the CPU
// spent per case by verify and by the fakes (reaped children), which vary
// less than wall time on a shared machine, and verify's voluntary context
// switches a case (its threads waiting: each a wake-up to pay for). Run
// with -benchtime 5x.
//
// fake=dynamic is the fake as the demo builds it (net uses cgo: dynamically
// linked); fake=static is CGO_ENABLED=0, cheaper to start.
func BenchmarkVerifyFresh1000(b *testing.B) {
	for _, link := range []string{"dynamic", "static"} {
		b.Run("fake="+link, func(b *testing.B) { verifyFresh1000(b, link) })
	}
}

func verifyFresh1000(b *testing.B, link string) {
	cfg, list, reg := demo(&testing.T{})
	bin := filepath.Join(b.TempDir(), "petstore")
	build := exec.Command("go", "build", "-o", bin, "./fakes/petstore")
	build.Dir = cfg.Dir
	build.Env = append(os.Environ(), "CGO_ENABLED=1")
	if link == "static" {
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
	}
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	a := *cfg.Adapters["petstore"]
	a.Fake.Build = nil
	a.Fake.Command = []string{bin}
	a.Fake.Shared = false
	cfg.Adapters["petstore"] = &a
	cases := thousand(b, cfg, list)
	logDir := b.TempDir()
	ahead := min(max(2*runtime.GOMAXPROCS(0), 2), verify.MaxFakesAhead)
	var rates, floors, ratios, verifyCPU, fakeCPU, switches []float64
	for b.Loop() {
		f := bareStarts(b, bin, len(cases), ahead)
		t0, self0, kids0 := time.Now(), cpuSelf(), cpuChildren()
		vol0, _ := switchesSelf()
		o := verify.Run(context.Background(), cases, verify.Options{Config: cfg, Normalizers: reg, LogDir: logDir})
		el, self1, kids1 := time.Since(t0), cpuSelf(), cpuChildren()
		vol1, _ := switchesSelf()
		if o.Err != nil {
			b.Fatal(o.Err)
		}
		checkPassed(b, o)
		n := float64(len(cases))
		r := n / el.Seconds()
		rates, floors, ratios = append(rates, r), append(floors, f), append(ratios, r/f)
		verifyCPU = append(verifyCPU, (self1-self0).Seconds()*1e3/n)
		fakeCPU = append(fakeCPU, (kids1-kids0).Seconds()*1e3/n)
		switches = append(switches, float64(vol1-vol0)/n)
	}
	b.ReportMetric(median(rates), "cases/s")
	b.ReportMetric(median(floors), "floor-starts/s")
	b.ReportMetric(median(ratios), "x-floor-median")
	b.ReportMetric(slices.Min(ratios), "x-floor-min")
	b.ReportMetric(median(verifyCPU), "verify-cpu-ms/case")
	b.ReportMetric(median(fakeCPU), "fake-cpu-ms/case")
	b.ReportMetric(median(switches), "verify-vcsw/case")
}

// bareStarts starts bin n times, workers at a time, each until its first
// line of output, then stops it; it returns starts per second.
func bareStarts(b *testing.B, bin string, n, workers int) float64 {
	work := make(chan int)
	var wg sync.WaitGroup
	t0 := time.Now()
	for range workers {
		wg.Go(func() {
			for range work {
				cmd := exec.Command(bin)
				cmd.Env = append(os.Environ(), "PORT=0")
				out, err := cmd.StderrPipe()
				if err != nil {
					b.Error(err)
					return
				}
				if err := cmd.Start(); err != nil {
					b.Error(err)
					return
				}
				if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
					b.Errorf("the fake said nothing: %v", err)
				}
				_ = cmd.Process.Signal(syscall.SIGTERM)
				_ = cmd.Wait()
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	return float64(n) / time.Since(t0).Seconds()
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
