package proxy

import (
	"net/http"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
)

// TestMatchersRealSuitesNeed: URL globs and regexes, ignored query
// parameters, JSON bodies by JSONPath subset (ignore some paths, or compare
// only named ones), and the closest miss still naming the field.
func TestMatchersRealSuitesNeed(t *testing.T) {
	rec := "https://api.example.com/v1/items/42?ts=1700000000&page=1"
	recBody := `{"model":"m","nonce":"abc","messages":[{"role":"user","content":"hi","id":"x1"}]}`
	tests := []struct {
		name        string
		opts        MatchOptions
		method, url string
		body        string
		match       bool
	}{
		{"glob over the id", MatchOptions{URLs: []string{"glob:https://api.example.com/v1/items/*"}}, "GET", "https://api.example.com/v1/items/43?page=1&ts=9", recBody, true},
		{"glob does not cross a slash", MatchOptions{URLs: []string{"https://api.example.com/v1/*"}}, "GET", "https://api.example.com/v1/other/43", recBody, false},
		{"regex", MatchOptions{URLs: []string{`regex:https://api\.example\.com/v1/items/\d+\?.*`}}, "GET", "https://api.example.com/v1/items/7?page=2", recBody, true},
		{"regex that the request misses", MatchOptions{URLs: []string{`regex:https://api\.example\.com/v1/items/\d+\?.*`}}, "GET", "https://api.example.com/v1/items/abc", recBody, false},
		{"ignored query parameter", MatchOptions{IgnoreParams: []string{"ts"}}, "GET", "https://api.example.com/v1/items/42?page=1&ts=1800000000", recBody, true},
		{"ignored parameter, another differs", MatchOptions{IgnoreParams: []string{"ts"}}, "GET", "https://api.example.com/v1/items/42?page=2&ts=1", recBody, false},
		{"json ignore paths", MatchOptions{IgnoreJSON: []string{"$.nonce", "$..id"}}, "GET", rec,
			`{"messages":[{"content":"hi","id":"x2","role":"user"}],"model":"m","nonce":"zzz"}`, true},
		{"json ignore paths, content differs", MatchOptions{IgnoreJSON: []string{"$.nonce"}}, "GET", rec,
			`{"model":"m","nonce":"zzz","messages":[{"role":"user","content":"bye","id":"x1"}]}`, false},
		{"json only named paths", MatchOptions{OnlyJSON: []string{"$.model", "$.messages[*].content"}}, "GET", rec,
			`{"model":"m","nonce":"n","temperature":1,"messages":[{"role":"system","content":"hi"}]}`, true},
		{"json only named paths, one differs", MatchOptions{OnlyJSON: []string{"$.model"}}, "GET", rec, `{"model":"other"}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.opts.Check(); err != nil {
				t.Fatal(err)
			}
			c := &cassettes.Cassette{Path: "cassettes/x/y.yaml", Adapter: "x", Scenario: "y", Interactions: []cassettes.Interaction{{
				Request:  cassettes.Request{Method: "GET", URL: rec, Body: cassettes.Body(recBody)},
				Response: cassettes.Response{Code: 200},
			}}}
			x := newIndex([]*cassettes.Cassette{c}, tc.opts, nil)
			got, miss := x.lookup(x.opts.viewWith(x.c, tc.method, tc.url, nil, []byte(tc.body), x.hnames), tc.url)
			if (got != nil) != tc.match {
				t.Fatalf("matched = %v, want %v", got != nil, tc.match)
			}
			if miss != nil && (miss.Closest == nil || len(miss.Closest.Differences) == 0) {
				t.Errorf("a miss without the differing field: %+v", miss)
			}
		})
	}
}

func TestMatcherMissNamesField(t *testing.T) {
	c := &cassettes.Cassette{Path: "cassettes/x/y.yaml", Adapter: "x", Scenario: "y", Interactions: []cassettes.Interaction{{
		Request:  cassettes.Request{Method: "POST", URL: "https://api.example.com/v1/chat", Body: `{"model":"m","nonce":"a"}`},
		Response: cassettes.Response{Code: 200},
	}}}
	opts := MatchOptions{IgnoreJSON: []string{"$.nonce"}, IgnoreParams: []string{"ts"}}
	x := newIndex([]*cassettes.Cassette{c}, opts, nil)
	_, miss := x.lookup(x.opts.viewWith(x.c, "POST", "https://api.example.com/v1/chat?ts=5", nil, []byte(`{"model":"n","nonce":"b"}`), x.hnames), "POST https://api.example.com/v1/chat")
	if miss == nil {
		t.Fatal("matched")
	}
	text := miss.Text()
	for _, want := range []string{"cassettes/x/y.yaml (interactions[0])", "did not match on: [body]", `-  "model": "m"`, `+  "model": "n"`} {
		if !strings.Contains(text, want) {
			t.Errorf("miss lacks %q:\n%s", want, text)
		}
	}
	if !strings.Contains(text, `"nonce": "<ignored>"`) || strings.Contains(text, `"a"`) || strings.Contains(text, `"b"`) {
		t.Errorf("the ignored values are part of the diff:\n%s", text)
	}
}

func TestMatchOptionsCheck(t *testing.T) {
	for _, bad := range []MatchOptions{{URLs: []string{"regex:("}}, {URLs: []string{"glob:["}}, {IgnoreJSON: []string{"nonce"}}, {OnlyJSON: []string{"$[?(@.a)]"}}} {
		if err := bad.Check(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// TestRecordedRequestsRedactedLikeIncoming: a plain go-vcr cassette keeps a
// test secret in its form body (auth0's go-auth0 recordings do); the proxy
// redacts every incoming request before matching, so it must redact the
// recorded side the same way, or such a cassette never replays.
func TestRecordedRequestsRedactedLikeIncoming(t *testing.T) {
	up := newUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { t.Error("replay reached the network") }), false)
	form := "client_id=test-client_id&client_secret=test-client_secret&grant_type=client_credentials"
	c := &cassettes.Cassette{Path: "cassettes/auth0/TestLogin.yaml", Adapter: "auth0", Scenario: "TestLogin", Interactions: []cassettes.Interaction{{
		Request:  cassettes.Request{Method: "POST", URL: up.URL + "/oauth/token", Body: cassettes.Body(form), Headers: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}},
		Response: cassettes.Response{Code: 200, Status: "200 OK", Body: `{"access_token":"[REDACTED]"}`, Headers: http.Header{}},
	}}}
	p := startProxy(t, Options{Mode: ModeReplay, CA: testCA(t), Transport: trusting(up), Cassettes: []*cassettes.Cassette{c}})
	code, body, _ := do(t, forwardClient(t, p, false), up.URL, call{"POST", "/oauth/token", "application/x-www-form-urlencoded", form})
	if code != 200 {
		t.Fatalf("status %d:\n%s", code, body)
	}
}
