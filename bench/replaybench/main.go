// Command replaybench is the helper of bench/compare.sh: it serves a body
// directly (HTTP or HTTPS, a plain net/http handler writing the body once),
// writes the cassettes and simulations that replay the same bytes, loads a
// URL with concurrent keep-alive connections (for HTTPS through a forward
// proxy, which wrk cannot do), times requests one at a time, starts a
// replay server and times it until it answers, and serves go-vcr v4's
// recorder over HTTP so that all of them are measured the same way.
//
//	replaybench body -size N                      the JSON body of N bytes, on stdout
//	replaybench serve -size N [-tls CERTFILE]     serve it on 127.0.0.1:0; prints the address
//	replaybench cassette -size N -url U -out F    a cassette with one GET U answered by it
//	replaybench load -url U [-proxy P -ca F] -c 32 -secs 5 -size N
//	                                              prints requests per second
//	replaybench latency -url U [-proxy P] -n N    N requests one after the other: p50 and p99 µs
//	replaybench start [-url U] [-miss U] -- CMD   CMD until it answers U: seconds, peak RSS, miss µs
//	replaybench govcr -dir D -listen ADDR         go-vcr v4's recorder (replay only) as a server
//	replaybench hoverfly -size N | -dir D -out F  a Hoverfly simulation of the same interactions
//	replaybench sse-cassette -url U -out F        a stream of 50 events over 998 ms, with their times
//	replaybench sse -url U                        milliseconds from the request to the stream's end
//	replaybench calls -n N -- CMD                 CMD N times in a row: wall and CPU milliseconds a call
//	replaybench coverage-project -dir D -n N -calls M
//	                                              a project of N cassettes and M observed calls, all covered
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
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
)

// flags are every subcommand's flags (each reads the ones it needs).
type flags struct {
	size                      int
	certOut, target, out, dir string
	proxyURL, caFile, listen  string
	miss                      string
	conns, n, probes, calls   int
	secs                      float64
	wait                      bool
}

func main() {
	if len(os.Args) < 2 {
		fail("usage: replaybench body|serve|cassette|load|latency|start|govcr|hoverfly|sse-cassette|sse|calls|coverage-project [flags]")
	}
	var f flags
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	fs.IntVar(&f.size, "size", 604, "body bytes")
	fs.StringVar(&f.certOut, "tls", "", "serve HTTPS; write the certificate (PEM) here")
	fs.StringVar(&f.target, "url", "", "URL")
	fs.StringVar(&f.out, "out", "", "file to write")
	fs.StringVar(&f.dir, "dir", "", "directory of cassettes (govcr, hoverfly)")
	fs.StringVar(&f.proxyURL, "proxy", "", "forward proxy URL (load, latency)")
	fs.StringVar(&f.caFile, "ca", "", "PEM of the CA to trust (load)")
	fs.StringVar(&f.listen, "listen", "127.0.0.1:0", "address to listen on (govcr)")
	fs.StringVar(&f.miss, "miss", "", "URL that matches nothing, timed once ready (start)")
	fs.IntVar(&f.conns, "c", 32, "concurrent connections (load)")
	fs.Float64Var(&f.secs, "secs", 5, "seconds (load)")
	fs.IntVar(&f.n, "n", 2000, "requests (latency), calls (calls)")
	fs.IntVar(&f.probes, "probes", 50, "misses timed (start)")
	fs.IntVar(&f.calls, "calls", 100000, "observed calls (coverage-project)")
	fs.BoolVar(&f.wait, "wait", false, "CMD runs to its end: time it whole (start)")
	_ = fs.Parse(os.Args[2:])
	run(os.Args[1], f, fs.Args())
}

func run(cmd string, f flags, args []string) {
	switch cmd {
	case "body":
		fmt.Print(string(body(f.size)))
	case "serve":
		serve(f.size, f.certOut)
	case "cassette":
		writeCassette(f.size, f.target, f.out)
	case "load":
		load(f.target, f.proxyURL, f.caFile, f.conns, f.secs, f.size)
	case "latency":
		latency(f.target, f.proxyURL, f.n)
	case "start":
		start(f, args)
	case "govcr":
		serveGoVCR(f.dir, f.listen)
	case "hoverfly":
		hoverflySimulation(f.size, f.dir, f.out)
	case "sse-cassette":
		writeSSECassette(f.target, f.out)
	case "sse":
		timeStream(f.target)
	case "calls":
		calls(f.n, args)
	case "coverage-project":
		coverageProject(f.dir, f.n, f.calls)
	default:
		fail("unknown command " + cmd)
	}
}

// body is a JSON object of exactly size bytes (at least 64).
func body(size int) []byte {
	head := `{"id":4711,"name":"widget","owner":{"login":"octocat"},"pad":"`
	tail := `"}`
	return []byte(head + strings.Repeat("x", max(0, size-len(head)-len(tail))) + tail)
}

// serve is the baseline every replay is divided by: the plainest net/http
// server there is, writing the body once from a byte slice.
func serve(size int, certOut string) {
	b := body(size)
	n := strconv.Itoa(len(b))
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", n)
		_, _ = w.Write(b)
	})
	if certOut == "" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		check(err)
		fmt.Println(ln.Addr())
		check(http.Serve(ln, h))
	}
	srv := httptest.NewUnstartedServer(h)
	srv.EnableHTTP2 = false // wrk and the load client speak HTTP/1.1
	srv.StartTLS()
	pemCert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	check(os.WriteFile(certOut, pemCert, 0o644))
	fmt.Println(srv.Listener.Addr())
	select {}
}

func writeCassette(size int, target, out string) {
	b := body(size)
	c := &cassettes.Cassette{Cassette: cassettes.SchemaVersion, Version: cassettes.GoVCRVersion, Kind: cfgschema.KindHTTP, Path: out,
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

// transport is a keep-alive HTTP/1.1 client transport of conns
// connections, through proxyURL when set, trusting caFile when set.
func transport(proxyURL, caFile string, conns int) *http.Transport {
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
	return tr
}

func load(target, proxyURL, caFile string, conns int, secs float64, size int) {
	client := &http.Client{Transport: transport(proxyURL, caFile, conns)}
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

func check(err error) {
	if err != nil {
		fail(err.Error())
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "replaybench:", msg)
	os.Exit(3)
}
