package main

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"
)

// latency sends n GETs to target one after the other on one kept-alive
// connection (through proxyURL when set), after 50 unmeasured ones, and
// prints the 50th and 99th percentiles of their round trips in µs. A
// recording proxy's added latency is its p50 (p99) minus the direct
// server's, measured in the same round.
func latency(target, proxyURL string, n int) {
	client := &http.Client{Transport: transport(proxyURL, "", 1)}
	get := func() {
		resp, err := client.Get(target)
		check(err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			fail(fmt.Sprintf("%s answered %s", target, resp.Status))
		}
	}
	for range 50 {
		get()
	}
	ds := make([]time.Duration, n)
	for i := range ds {
		t0 := time.Now()
		get()
		ds[i] = time.Since(t0)
	}
	slices.Sort(ds)
	fmt.Printf("%.0f %.0f\n", micros(ds[n/2]), micros(ds[n*99/100]))
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
