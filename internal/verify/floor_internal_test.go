package verify

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"
)

// BenchmarkForkExecFloor is the floor under verify's fresh-per-case
// throughput: the demo's pet store fake, as built by default (dynamically
// linked: net uses cgo) and with CGO_ENABLED=0 (static), started 1,000
// times, GOMAXPROCS and 4×GOMAXPROCS at a time, with nothing of verify
// around it.
//   - exit: fork+exec, Go runtime start and exit (listen fails at once);
//   - ready: fork+exec until the fake accepts a connection on its port,
//     then SIGTERM and reap, as verify's Stop does.
func BenchmarkForkExecFloor(b *testing.B) {
	for _, link := range []string{"dynamic", "static"} {
		bin := filepath.Join(b.TempDir(), "petstore")
		build := exec.Command("go", "build", "-o", bin, "./fakes/petstore")
		build.Dir = filepath.Join("..", "..", "examples", "demo")
		build.Env = append(os.Environ(), "CGO_ENABLED=1")
		if link == "static" { // no dynamic loader at start-up
			build.Env = append(os.Environ(), "CGO_ENABLED=0")
		}
		if out, err := build.CombinedOutput(); err != nil {
			b.Fatalf("go build: %v\n%s", err, out)
		}
		b.Run(link, func(b *testing.B) { forkExecFloor(b, bin) })
	}
}

func forkExecFloor(b *testing.B, bin string) {
	one := map[string]func(b *testing.B){
		"exit": func(b *testing.B) {
			cmd := exec.Command(bin)
			cmd.Env = append(os.Environ(), "PORT=not-a-port")
			_ = cmd.Run() // exits 1: cannot listen
		},
		"ready": func(b *testing.B) {
			port, err := freePort()
			if err != nil {
				b.Fatal(err)
			}
			defer releasePort(port)
			cmd := exec.Command(bin)
			cmd.Env = append(os.Environ(), "PORT="+port)
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			for {
				c, err := net.Dial("tcp", "127.0.0.1:"+port)
				if err == nil {
					c.Close()
					break
				}
				time.Sleep(100 * time.Microsecond) // a floor: poll finely
			}
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
		},
	}
	for _, name := range []string{"exit", "ready"} {
		for _, workers := range []int{runtime.GOMAXPROCS(0), 4 * runtime.GOMAXPROCS(0)} {
			b.Run(fmt.Sprintf("%s/workers=%d", name, workers), func(b *testing.B) {
				const n = 1000
				runs, start := 0, time.Now()
				for b.Loop() {
					work := make(chan int)
					var wg sync.WaitGroup
					for range workers {
						wg.Add(1)
						go func() {
							defer wg.Done()
							for range work {
								one[name](b)
							}
						}()
					}
					for i := range n {
						work <- i
					}
					close(work)
					wg.Wait()
					runs++
				}
				b.ReportMetric(float64(runs*n)/time.Since(start).Seconds(), "starts/s")
			})
		}
	}
}
