package verify_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/internal/procgroup"
	"github.com/cassette-dev/cassette/internal/verify"
)

// BenchmarkVerifyFresh1000 verifies 1,000 HTTP cassettes against the demo's
// pet store fake, built once beforehand, with a fresh process per case (the
// default), and measures in the same round two baselines:
//   - the fake's bare start/stop rate: the same binary started 1,000
//     times, as many at once as verify starts ahead, each with PORT=0 (the
//     kernel picks the port), read until its first output line (it logs
//     once it listens), then SIGTERM and reaped, with nothing of verify
//     around it;
//   - the floor (freshFloor): the least a Go program does for what verify
//     does with a case's fresh fake — started with os/exec in a process
//     group of its own on a port of its own, its first line awaited, the
//     ready check (GET fake.ready) and the case's request sent and their
//     answers read on one connection, then the group sent SIGTERM and the
//     fake reaped — and nothing else (no cassette, no normalizing, no
//     report).
//
// Each iteration is one round (the bare starts, then verify and the floor,
// in turn first); it reports the medians, the ratio verify ÷ the bare
// starts within a round (median and min over rounds), the CPU spent per
// case by verify, by the floor and by the fakes (reaped children), which
// vary less than wall time on a shared machine, verify's CPU ÷ the
// floor's within a round, and verify's voluntary context switches a case
// (its threads waiting: each a wake-up to pay for). Run with -benchtime 5x.
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
	floorReq := floorRequests(b, a.Fake.Ready, cases[0])
	logDir := b.TempDir()
	ahead := min(max(2*runtime.GOMAXPROCS(0), 2), verify.MaxFakesAhead)
	var rates, floors, ratios, verifyCPU, fakeCPU, switches, leastRates, leastCPU, cpuRatios []float64
	round := 0
	for b.Loop() {
		round++
		f := bareStarts(b, bin, len(cases), ahead)
		n := float64(len(cases))
		var el time.Duration
		var vcpu, kids, lcpu float64
		var vol int64
		run := func() {
			t0, self0, kids0 := time.Now(), cpuSelf(), cpuChildren()
			vol0, _ := switchesSelf()
			o := verify.Run(context.Background(), cases, verify.Options{Config: cfg, Normalizers: reg, LogDir: logDir})
			took, self1, kids1 := time.Since(t0), cpuSelf(), cpuChildren()
			vol1, _ := switchesSelf()
			if o.Err != nil {
				b.Fatal(o.Err)
			}
			checkPassed(b, o)
			el, vcpu, kids, vol = took, (self1-self0).Seconds()*1e3/n, (kids1-kids0).Seconds()*1e3/n, vol1-vol0
		}
		floor := func() {
			t0, self0 := time.Now(), cpuSelf()
			freshFloor(b, bin, floorReq, len(cases), ahead)
			leastRates = append(leastRates, n/time.Since(t0).Seconds())
			lcpu = (cpuSelf() - self0).Seconds() * 1e3 / n
		}
		if round%2 == 1 {
			run()
			floor()
		} else {
			floor()
			run()
		}
		r := n / el.Seconds()
		rates, floors, ratios = append(rates, r), append(floors, f), append(ratios, r/f)
		verifyCPU, fakeCPU = append(verifyCPU, vcpu), append(fakeCPU, kids)
		switches = append(switches, float64(vol)/n)
		leastCPU, cpuRatios = append(leastCPU, lcpu), append(cpuRatios, vcpu/lcpu)
	}
	b.ReportMetric(median(rates), "cases/s")
	b.ReportMetric(median(floors), "floor-starts/s")
	b.ReportMetric(median(ratios), "x-floor-median")
	b.ReportMetric(slices.Min(ratios), "x-floor-min")
	b.ReportMetric(median(verifyCPU), "verify-cpu-ms/case")
	b.ReportMetric(median(fakeCPU), "fake-cpu-ms/case")
	b.ReportMetric(median(switches), "verify-vcsw/case")
	b.ReportMetric(median(leastRates), "least-cases/s")
	b.ReportMetric(median(leastCPU), "least-cpu-ms/case")
	b.ReportMetric(median(cpuRatios), "cpu-x-least-median")
	b.ReportMetric(slices.Min(cpuRatios), "cpu-x-least-min")
}

// floorExchanges are the floor's two requests as they go on the wire, the
// ready check and c's first request (its method, URL path and headers),
// and the status each must be answered with (200; the recorded one).
type floorExchanges struct {
	reqs [2][]byte
	want [2]int
}

func floorRequests(b *testing.B, ready string, c verify.Case) floorExchanges {
	in := c.Cassette.Interactions[0].Request
	u, err := url.Parse(in.URL)
	if err != nil {
		b.Fatal(err)
	}
	out := floorExchanges{want: [2]int{http.StatusOK, c.Cassette.Interactions[0].Response.Code}}
	for i, r := range []*http.Request{
		{Method: http.MethodGet, URL: &url.URL{Path: ready}, Header: http.Header{}},
		{Method: in.Method, URL: &url.URL{Path: u.Path, RawQuery: u.RawQuery}, Header: http.Header(in.Headers).Clone()},
	} {
		r.Host = "127.0.0.1"
		var buf bytes.Buffer
		if err := r.Write(&buf); err != nil {
			b.Fatal(err)
		}
		out.reqs[i] = buf.Bytes()
	}
	return out
}

// floorPorts are the floor's fakes' ports, one after the other (no check
// that one is free: a floor), below Linux's ephemeral range.
var floorPorts atomic.Int32

// freshFloor does for n cases, workers at a time, what verify does with a
// case's fresh fake, and nothing else: bin started with os/exec in a
// process group of its own with $PORT set, its output on a pipe read until
// its first line (the fake then listens: verify's readiness signal), the
// ready check and the case's request (ex) written and their answers read
// on one connection, then the group sent SIGTERM and the fake reaped.
func freshFloor(b *testing.B, bin string, ex floorExchanges, n, workers int) {
	env := os.Environ()
	inPool(b, n, workers, func() error { return floorCase(bin, env, ex) })
}

// inPool runs job n times, workers at a time; a job's error fails the
// benchmark, and its worker takes the rest of its share without running it
// (nobody is left waiting on a send).
func inPool(b *testing.B, n, workers int, job func() error) {
	work := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			failed := false
			for range work {
				if failed {
					continue
				}
				if err := job(); err != nil {
					b.Error(err)
					failed = true
				}
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
}

func floorCase(bin string, env []string, ex floorExchanges) error {
	port := strconv.Itoa(20000 + int(floorPorts.Add(1)%10000))
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	cmd := exec.Command(bin)
	cmd.Env = append(env[:len(env):len(env)], "PORT="+port)
	cmd.Stdout, cmd.Stderr = w, w
	cmd.SysProcAttr = procgroup.Attr() // a process group of its own, as verify starts a fake
	err = cmd.Start()
	w.Close()
	if err != nil {
		return err
	}
	defer func() {
		_ = procgroup.Signal(cmd.Process.Pid, syscall.SIGTERM) // the group
		_ = cmd.Wait()
	}()
	if _, err := bufio.NewReader(r).ReadString('\n'); err != nil {
		return fmt.Errorf("the fake said nothing: %v", err)
	}
	conn, err := net.Dial("tcp", "127.0.0.1:"+port)
	if err != nil {
		return err
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	for i, req := range ex.reqs {
		if _, err := conn.Write(req); err != nil {
			return err
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode != ex.want[i] {
			return fmt.Errorf("the floor's exchange %d: %s, want %d", i, resp.Status, ex.want[i])
		}
	}
	return nil
}

// bareStarts starts bin n times, workers at a time, each until its first
// line of output, then stops it; it returns starts per second.
func bareStarts(b *testing.B, bin string, n, workers int) float64 {
	t0 := time.Now()
	inPool(b, n, workers, func() error {
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), "PORT=0")
		out, err := cmd.StderrPipe()
		if err != nil {
			return err
		}
		if err := cmd.Start(); err != nil {
			return err
		}
		defer func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
		}()
		if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
			return fmt.Errorf("the fake said nothing: %v", err)
		}
		return nil
	})
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
