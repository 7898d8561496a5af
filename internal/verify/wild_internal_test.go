package verify

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// TestRecordedRedirectIsNotFollowed: go-vcr's own cassettes record 301 and
// 302 responses (golang.org → go.dev); verify compares the 3xx the fake
// gives, and never follows its Location (which may be the real service).
func TestRecordedRedirectIsNotFollowed(t *testing.T) {
	followed := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/new" {
			followed = true
		}
		http.Redirect(w, r, "/new", http.StatusFound)
	}))
	defer srv.Close()
	c := &cassettes.Cassette{Adapter: "a", Scenario: "s", Kind: cfgschema.KindHTTP, Interactions: []cassettes.Interaction{{
		Request:  cassettes.Request{Method: "GET", URL: "https://golang.org/old"},
		Response: cassettes.Response{Code: 302, Status: "302 Found", Headers: http.Header{"Location": {"/new"}}},
	}}}
	got, _, err := replayHTTP(context.Background(), HTTPTarget{BaseURL: srv.URL, Client: srv.Client()}, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if followed || got.Interactions[0].Response.Code != 302 {
		t.Errorf("followed=%v, compared status %d", followed, got.Interactions[0].Response.Code)
	}
}

// TestEmptyCassette: go-vcr's `interactions: []` passes with nothing to
// compare, without a fake, unless the adapter (or scenario) says fail.
func TestEmptyCassette(t *testing.T) {
	c := &cassettes.Cassette{Adapter: "a", Scenario: "TestNothing", Kind: cfgschema.KindHTTP, Interactions: []cassettes.Interaction{}}
	opts := Options{Config: &cfgschema.Config{Path: "cassette.yaml"}}
	a := &cfgschema.Adapter{Kind: cfgschema.KindHTTP} // no fake at all: none is started
	noFake := func(context.Context) (*Process, error) { t.Fatal("a fake was started"); return nil, nil }
	res := runCase(context.Background(), Case{Cassette: c, Adapter: a}, opts, nil, nil, time.Now, noFake)
	if res.Status != "pass" || res.Message != "nothing to compare: the cassette records no request" {
		t.Errorf("%s: %s", res.Status, res.Message)
	}
	a.Match.Scenarios = map[string]cfgschema.Match{"TestNothing": {Empty: "fail"}}
	res = runCase(context.Background(), Case{Cassette: c, Adapter: a}, opts, nil, nil, time.Now, noFake)
	if res.Status != "fail" || res.Reason != outcome.ETestFailed {
		t.Errorf("with match.empty: fail: %s %s: %s", res.Status, res.Reason, res.Message)
	}
}
