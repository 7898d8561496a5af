// Command replaybench is the helper of bench/compare.sh: it serves a body
// directly (HTTP or HTTPS), writes the cassette that replays the same
// bytes, loads a URL with concurrent keep-alive connections (for HTTPS
// through a forward proxy, which wrk cannot do), and times replay misses
// of cassette and go-vcr v4 at a given number of recorded interactions.
//
//	replaybench body -size N                      the JSON body of N bytes, on stdout
//	replaybench serve -size N [-tls CERTFILE]     serve it on 127.0.0.1:0; prints the address
//	replaybench cassette -size N -url U -out F    a cassette with one GET U answered by it
//	replaybench load -url U [-proxy P -ca F] -c 32 -secs 5 -size N
//	                                              prints requests per second
//	replaybench miss -n N [-probes K]             median µs of a miss: cassette, go-vcr v4
package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/proxy"
)

func main() {
	if len(os.Args) < 2 {
		fail("usage: replaybench body|serve|cassette|load|miss [flags]")
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	size := fs.Int("size", 604, "body bytes")
	certOut := fs.String("tls", "", "serve HTTPS; write the certificate (PEM) here")
	target := fs.String("url", "", "URL")
	out := fs.String("out", "", "cassette file to write")
	proxyURL := fs.String("proxy", "", "forward proxy URL (load)")
	caFile := fs.String("ca", "", "PEM of the CA to trust (load)")
	conns := fs.Int("c", 32, "concurrent connections (load)")
	secs := fs.Float64("secs", 5, "seconds (load)")
	n := fs.Int("n", 1000, "recorded interactions (miss)")
	probes := fs.Int("probes", 200, "misses timed (miss)")
	_ = fs.Parse(os.Args[2:])
	switch os.Args[1] {
	case "body":
		fmt.Print(body(*size))
	case "serve":
		serve(*size, *certOut)
	case "cassette":
		writeCassette(*size, *target, *out)
	case "load":
		load(*target, *proxyURL, *caFile, *conns, *secs, *size)
	case "miss":
		miss(*n, *probes)
	default:
		fail("unknown command " + os.Args[1])
	}
}

// body is a JSON object of exactly size bytes (at least 64).
func body(size int) string {
	head := `{"id":4711,"name":"widget","owner":{"login":"octocat"},"pad":"`
	tail := `"}`
	return head + strings.Repeat("x", max(0, size-len(head)-len(tail))) + tail
}

func serve(size int, certOut string) {
	b := body(size)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		io.WriteString(w, b)
	})
	if certOut == "" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		check(err)
		fmt.Println(ln.Addr())
		check(http.Serve(ln, h))
	}
	srv := httptest.NewUnstartedServer(h)
	srv.EnableHTTP2 = false // wrk and the forward proxy's MITM speak HTTP/1.1
	srv.StartTLS()
	pemCert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	check(os.WriteFile(certOut, pemCert, 0o644))
	fmt.Println(srv.Listener.Addr())
	select {}
}

func writeCassette(size int, target, out string) {
	b := body(size)
	c := &cassettes.Cassette{Cassette: cassettes.SchemaVersion, Version: cassettes.GoVCRVersion, Kind: cassettes.KindHTTP, Path: out,
		Adapter: "bench", Scenario: fmt.Sprintf("replay-%d", size),
		Interactions: []cassettes.Interaction{{
			Request: cassettes.Request{Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Method: "GET", URL: target,
				Host: hostOf(target), Headers: http.Header{"User-Agent": {"wrk"}}},
			Response: cassettes.Response{Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Code: 200, Status: "200 OK",
				ContentLength: int64(len(b)), Body: cassettes.Body(b),
				Headers: http.Header{"Content-Type": {"application/json"}, "Content-Length": {strconv.Itoa(len(b))}}},
		}}}
	check(cassettes.Save(c, cassettes.SaveOptions{SidecarThreshold: -1}))
}

func hostOf(u string) string {
	p, err := url.Parse(u)
	check(err)
	return p.Host
}

func load(target, proxyURL, caFile string, conns int, secs float64, size int) {
	tr := &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns, DisableCompression: true, ForceAttemptHTTP2: false,
		TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{}}
	if caFile != "" {
		pemb, err := os.ReadFile(caFile)
		check(err)
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pemb) {
			fail("no certificate in " + caFile)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool}
	}
	if proxyURL != "" {
		u, err := url.Parse(proxyURL)
		check(err)
		tr.Proxy = http.ProxyURL(u)
	}
	client := &http.Client{Transport: tr}
	get := func() bool {
		resp, err := client.Get(target)
		if err != nil {
			return false
		}
		m, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode == 200 && m == int64(size)
	}
	// Open every connection (and its TLS session, its MITM leaf) first.
	var wg sync.WaitGroup
	for range conns {
		wg.Go(func() {
			if !get() {
				fail("the warm-up request failed: " + target)
			}
		})
	}
	wg.Wait()
	var ok, bad atomic.Int64
	start := time.Now()
	deadline := start.Add(time.Duration(secs * float64(time.Second)))
	for range conns {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				if get() {
					ok.Add(1)
				} else {
					bad.Add(1)
				}
			}
		})
	}
	wg.Wait()
	el := time.Since(start).Seconds()
	if bad.Load() > 0 {
		fmt.Fprintf(os.Stderr, "replaybench: %d failed requests to %s\n", bad.Load(), target)
	}
	fmt.Printf("%.0f\n", float64(ok.Load())/el)
}

// miss times the answer to a request that matches none of n recorded
// interactions (POST /v1/items/{i} with a JSON body): cassette's replay
// proxy, in process, from the request to the 599 and its explanation; and
// go-vcr v4's lookup (Cassette.GetInteraction with its default matcher).
// Prints "cassette_us govcr_us" (medians).
func miss(n, probes int) {
	cs := &cassettes.Cassette{Path: "bench.yaml"}
	vc := cassette.New("bench")
	for i := range n {
		u := fmt.Sprintf("https://api.example.com/v1/items/%d?expand=owner&page=%d", i, i%7)
		b := fmt.Sprintf(`{"id":%d,"name":"item"}`, i)
		h := http.Header{"Content-Type": {"application/json"}}
		cs.Interactions = append(cs.Interactions, cassettes.Interaction{ID: i,
			Request:  cassettes.Request{Method: "POST", URL: u, Body: cassettes.Body(b), Headers: h},
			Response: cassettes.Response{Code: 200, Status: "200 OK", Body: "{}"}})
		vc.AddInteraction(&cassette.Interaction{
			Request:  cassette.Request{Method: "POST", URL: u, Body: b, Headers: h, Host: "api.example.com", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, ContentLength: int64(len(b))},
			Response: cassette.Response{Code: 200, Status: "200 OK", Body: "{}"}})
	}
	p, err := proxy.New(proxy.Options{Mode: proxy.ModeReplay, Upstream: "https://api.example.com", Cassettes: []*cassettes.Cassette{cs}})
	check(err)
	const path = "/v1/nothing/here?expand=owner&page=3"
	const b = `{"id":-1,"name":"item"}`
	var ours, theirs []time.Duration
	for range probes {
		req := httptest.NewRequest("POST", path, strings.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		t0 := time.Now()
		p.Handler().ServeHTTP(w, req)
		ours = append(ours, time.Since(t0))
		if w.Code != proxy.MissStatus || !strings.Contains(w.Body.String(), "closest recorded request") {
			fail(fmt.Sprintf("cassette did not explain the miss: %d %s", w.Code, w.Body.String()))
		}
	}
	vprobes := probes
	if n >= 10000 {
		vprobes = max(3, probes/40) // a linear scan at 100k takes a while
	}
	for range vprobes {
		req, _ := http.NewRequest("POST", "https://api.example.com"+path, strings.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		t0 := time.Now()
		_, err := vc.GetInteraction(req)
		theirs = append(theirs, time.Since(t0))
		if err == nil {
			fail("go-vcr found a match for an unrecorded request")
		}
	}
	fmt.Printf("%.1f %.1f\n", median(ours), median(theirs))
}

func median(ds []time.Duration) float64 {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return float64(ds[len(ds)/2]) / float64(time.Microsecond)
}

func check(err error) {
	if err != nil {
		fail(err.Error())
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "replaybench:", msg)
	os.Exit(3)
}
