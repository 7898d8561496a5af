package proxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
)

// BenchmarkReverseReplay is GETs of a 604-byte JSON body one after the
// other on a kept-alive connection, from a plain net/http server writing
// the body once (the baseline, as bench/replaybench serve) and from the
// reverse replay proxy serving the same bytes from a cassette; allocs/op
// counts the client's and the server's.
func BenchmarkReverseReplay(b *testing.B) {
	body := []byte(`{"data":"` + strings.Repeat("x", 594) + `"}`)
	n := strconv.Itoa(len(body))
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", n)
		_, _ = w.Write(body)
	}))
	defer plain.Close()
	replayable := true
	cas := &cassettes.Cassette{Cassette: cassettes.SchemaVersion, Adapter: "bench", Scenario: "replay", Kind: cfgschema.KindHTTP, Path: "cassettes/bench/replay.yaml", Replayable: &replayable,
		Interactions: []cassettes.Interaction{{
			Request: cassettes.Request{Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Method: "GET", URL: "http://svc.test/data", Host: "svc.test"},
			Response: cassettes.Response{Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Code: 200, Status: "200 OK", ContentLength: int64(len(body)), Body: cassettes.Body(body),
				Headers: http.Header{"Content-Type": {"application/json"}, "Content-Length": {n}}},
		}}}
	rp := startProxy(b, Options{Mode: ModeReplay, Upstream: "http://svc.test", Cassettes: []*cassettes.Cassette{cas}})
	for _, bc := range []struct{ name, url string }{{"direct", plain.URL}, {"replay", rp.URL()}} {
		b.Run(bc.name, func(b *testing.B) {
			client := &http.Client{Transport: &http.Transport{}}
			defer client.CloseIdleConnections()
			b.ReportAllocs()
			for b.Loop() {
				resp, err := client.Get(bc.url + "/data")
				if err != nil {
					b.Fatal(err)
				}
				if got, _ := io.Copy(io.Discard, resp.Body); got != int64(len(body)) {
					b.Fatalf("%d bytes, want %d", got, len(body))
				}
				resp.Body.Close()
			}
		})
	}
}
