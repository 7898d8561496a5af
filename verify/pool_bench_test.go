package verify_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/verify"
)

// BenchmarkVerifyFresh1000 verifies 1,000 HTTP cassettes against the demo's
// pet store fake, built once beforehand, with a fresh process per case (the
// default): the fake as the demo builds it (dynamically linked) and built
// with CGO_ENABLED=0 (static, cheaper to start). It reports cases/s and the
// CPU spent per case by verify and by the fakes (reaped children), so that
// a change can be told from the noise of a shared machine: compare against
// a checkout of main in the same run.
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
	var self0, kids0 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self0)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids0)
	runs, start := 0, time.Now()
	for b.Loop() {
		o := verify.Run(context.Background(), cases, verify.Options{Config: cfg, Normalizers: reg, LogDir: logDir})
		if o.Err != nil {
			b.Fatal(o.Err)
		}
		checkPassed(b, o)
		runs++
	}
	n := float64(runs * len(cases))
	b.ReportMetric(n/time.Since(start).Seconds(), "cases/s")
	var self1, kids1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self1)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids1)
	b.ReportMetric(float64(cpu(self1)-cpu(self0))/1e6/n, "verify-cpu-ms/case")
	b.ReportMetric(float64(cpu(kids1)-cpu(kids0))/1e6/n, "fake-cpu-ms/case")
}

func cpu(r syscall.Rusage) time.Duration {
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
