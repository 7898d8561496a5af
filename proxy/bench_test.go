package proxy

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
)

// FuzzNormalizeURL: normalization never panics, is idempotent, and does not
// depend on the order of query parameters.
func FuzzNormalizeURL(f *testing.F) {
	for _, s := range []string{"https://API.x.com:443/a/b?z=1&a=2#f", "http://h:80", "/rel?x", "%zz", "https://h/p?a=1&a=0&b", "http://[::1]:8/é?q=%20"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		o, p, q := normalizeURL(raw)
		again := o + p
		if q != "" {
			again += "?" + q
		}
		if _, err := url.Parse(raw); err != nil || o == "" {
			return
		}
		o2, p2, q2 := normalizeURL(again)
		if o2 != o || p2 != p || q2 != q {
			t.Fatalf("not idempotent: %q → (%q %q %q) → (%q %q %q)", raw, o, p, q, o2, p2, q2)
		}
		if u, err := url.Parse(raw); err == nil && u.RawQuery != "" {
			parts := strings.Split(u.RawQuery, "&")
			for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
				parts[i], parts[j] = parts[j], parts[i]
			}
			u.RawQuery = strings.Join(parts, "&")
			if _, _, q3 := normalizeURL(u.String()); q3 != q && !strings.Contains(u.RawQuery, ";") {
				if _, err := url.ParseQuery(u.RawQuery); err == nil && !repeatsKey(u.RawQuery) {
					t.Fatalf("query order matters: %q vs %q", q, q3)
				}
			}
		}
	})
}

// repeatsKey: a repeated parameter keeps its value order, so reversing the
// parameters legitimately changes the key.
func repeatsKey(q string) bool {
	v, _ := url.ParseQuery(q)
	for _, vs := range v {
		if len(vs) > 1 {
			return true
		}
	}
	return false
}

func benchIndex(n int) (*index, []view) {
	c := &cassettes.Cassette{Interactions: make([]cassettes.Interaction, n)}
	for i := range c.Interactions {
		c.Interactions[i] = cassettes.Interaction{
			Request: cassettes.Request{Method: "POST", URL: fmt.Sprintf("https://api.example.com/v1/items/%d?expand=owner&page=%d", i, i%7),
				Body: cassettes.Body(fmt.Sprintf(`{"id":%d,"name":"item"}`, i))},
			Response: cassettes.Response{Code: 200, Body: "ok"},
		}
	}
	x := newIndex([]*cassettes.Cassette{c}, MatchOptions{Body: BodyJSON, Replayable: true})
	probes := make([]view, 64)
	for i := range probes {
		r := c.Interactions[(i*7919)%n].Request
		probes[i] = x.opts.view(r.Method, r.URL, r.Headers, []byte(r.Body), x.hnames)
	}
	return x, probes
}

// BenchmarkReplayLookup shows that lookup cost is flat in the number of
// recorded interactions: x-vs-n1 is the time per lookup relative to a
// one-interaction index measured in the same run.
func BenchmarkReplayLookup(b *testing.B) {
	base, baseProbes := benchIndex(1)
	for _, n := range []int{1, 1000, 100000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			x, probes := benchIndex(n)
			start := time.Now()
			for i := 0; i < b.N; i++ {
				base.lookup(baseProbes[i%len(baseProbes)], "")
			}
			baseline := time.Since(start)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if it, _ := x.lookup(probes[i%len(probes)], ""); it == nil {
					b.Fatal("miss")
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed())/float64(baseline), "x-vs-n1")
		})
	}
}

// BenchmarkReplayThroughput compares the reverse replay proxy with a plain
// net/http server serving the same bytes, over loopback with keep-alive,
// in the same run: proxy/direct is the proxy's share of the direct
// throughput (1.0 = as fast).
func BenchmarkReplayThroughput(b *testing.B) {
	for _, size := range []int{1 << 10, 64 << 10} {
		b.Run(fmt.Sprintf("body=%dKiB", size>>10), func(b *testing.B) {
			body := strings.Repeat("x", size)
			direct := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/plain")
				io.WriteString(w, body)
			}))
			defer direct.Close()
			c := &cassettes.Cassette{Interactions: []cassettes.Interaction{{
				Request:  cassettes.Request{Method: "GET", URL: "http://svc.test/data"},
				Response: cassettes.Response{Code: 200, Status: "200 OK", Body: cassettes.Body(body), Headers: http.Header{"Content-Type": {"text/plain"}}},
			}}}
			p := startProxy(b, Options{Mode: ModeReplay, Upstream: "http://svc.test", Cassettes: []*cassettes.Cassette{c}, Match: MatchOptions{Replayable: true}})
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
			defer client.CloseIdleConnections()
			get := func(u string) {
				resp, err := client.Get(u)
				if err != nil {
					b.Fatal(err)
				}
				n, _ := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if n != int64(size) {
					b.Fatalf("%d bytes", n)
				}
			}
			get(direct.URL + "/data")
			start := time.Now()
			for i := 0; i < b.N; i++ {
				get(direct.URL + "/data")
			}
			baseline := time.Since(start)
			b.SetBytes(int64(size))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				get(p.URL() + "/data")
			}
			b.StopTimer()
			b.ReportMetric(float64(baseline)/float64(b.Elapsed()), "proxy/direct")
		})
	}
}
