package proxy

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// TestObserveModeServesTheCallersHandler: in ModeObserve the proxy is a
// front door that listens (loopback rules, Start, Shutdown) and hands every
// request to Options.Observe, coverage's observer in front of the fake; it
// matches and records nothing of its own.
func TestObserveModeServesTheCallersHandler(t *testing.T) {
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "fake saw "+r.URL.Path)
	}))
	defer fake.Close()
	target, _ := url.Parse(fake.URL)
	var seen atomic.Int64
	relay := httputil.NewSingleHostReverseProxy(target)
	observer := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Add(1)
		relay.ServeHTTP(w, r)
	})
	p, err := New(Options{Mode: ModeObserve, Upstream: fake.URL, Observe: observer})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(p.URL() + "/v1/pets")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "fake saw /v1/pets" || seen.Load() != 1 {
		t.Errorf("through the observing proxy: %q, observer saw %d calls; want the fake's answer and 1 call", body, seen.Load())
	}
	if err := p.Shutdown(context.Background()); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if n := len(p.Interactions()); n != 0 {
		t.Errorf("the observing proxy recorded %d interactions", n)
	}
}

// TestObserveModeNeedsAnObserverAndAnUpstream: without either it is a
// usage error, never a proxy that forwards on its own.
func TestObserveModeNeedsAnObserverAndAnUpstream(t *testing.T) {
	h := http.NotFoundHandler()
	for _, o := range []Options{{Mode: ModeObserve, Upstream: "http://127.0.0.1:9"}, {Mode: ModeObserve, Observe: h}} {
		_, err := New(o)
		if ce := outcome.AsError(err); err == nil || ce.Reason != outcome.EUsage {
			t.Errorf("New(%+v) = %v; want E_USAGE", o, err)
		}
	}
	if _, err := New(Options{Mode: ModeObserve, Upstream: "http://127.0.0.1:9", Observe: h, Listen: "0.0.0.0:0"}); err == nil {
		t.Error("a non-loopback observing proxy was allowed without AllowNonLoopback")
	}
}
