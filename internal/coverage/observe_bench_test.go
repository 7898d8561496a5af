package coverage

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/redact"
)

// BenchmarkObservingProxy is a test suite's GETs (one after the other, a
// kept-alive connection) to a plain net/http fake, directly (the
// baseline) and through the observing proxy, which writes each call:
// bench/compare.sh's observe-http row is observed ÷ direct.
func BenchmarkObservingProxy(b *testing.B) {
	body := []byte(`{"id":1,"name":"Rex","tag":"dog","status":"available"}`)
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	defer fake.Close()
	target, _ := url.Parse(fake.URL)
	w, err := OpenWriter(filepath.Join(b.TempDir(), "observed"), "proxy-api", "proxy")
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	rules, _ := NewRules(&cfgschema.Adapter{Kind: cfgschema.KindHTTP})
	o := &Observer{Adapter: "api", Kind: cfgschema.KindHTTP, Rules: rules, Writer: w, Redactor: redact.New(nil, map[string]string{"API_TOKEN": "tok-0123456789"})}
	proxy := httptest.NewServer(o.Proxy(target))
	defer proxy.Close()
	for _, bc := range []struct{ name, url string }{{"direct", fake.URL}, {"observed", proxy.URL}} {
		b.Run(bc.name, func(b *testing.B) {
			client := &http.Client{Transport: &http.Transport{}}
			defer client.CloseIdleConnections()
			b.ReportAllocs()
			for b.Loop() {
				resp, err := client.Get(bc.url + "/v1/pets/1?fields=name")
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}
