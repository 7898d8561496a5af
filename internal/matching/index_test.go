package matching

import (
	"errors"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/match"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func ptr[T any](v T) *T { return &v }

func it(method, url, body, resp string) cassettes.Interaction {
	return cassettes.Interaction{
		Request:  cassettes.Request{Method: method, URL: url, Body: cassettes.Body(body), Headers: http.Header{"Accept": {"application/json"}}},
		Response: cassettes.Response{Code: 200, Status: "200 OK", Body: cassettes.Body(resp), Headers: http.Header{}},
	}
}

func githubCassette() *cassettes.Cassette {
	return &cassettes.Cassette{Path: "cassettes/github/list-pulls.yaml", Adapter: "github", Scenario: "list-pulls",
		Interactions: []cassettes.Interaction{
			it("GET", "https://api.github.com/repos/o/r/pulls?state=open&page=1", "", "[1]"),
			it("POST", "https://api.github.com/repos/o/r/issues", `{"title":"a","labels":["x","y"]}`, "{}"),
			it("GET", "https://api.github.com/repos/o/r/pulls?state=open&page=1", "", "[2]"),
		}}
}

// newIndex indexes cs under rules, failing the test on a rule that does
// not compile.
func newIndex(t testing.TB, cs []*cassettes.Cassette, rules match.Rules) *Index {
	t.Helper()
	x, err := New(cs, Options{Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// TestMissExplanations checks the text of each kind of replay miss against
// golden files (go test ./match -run TestMissExplanations -update).
func TestMissExplanations(t *testing.T) {
	loaded, err := cassettes.Load(filepath.Join("testdata", "cassettes", "github", "list-pulls.yaml"), cassettes.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, method, url, body string
		rules                   match.Rules
		cs                      []*cassettes.Cassette
		before                  int // identical lookups made first
	}{
		{"query differs", "GET", "https://api.github.com/repos/o/r/pulls?page=2&state=open", "", match.Rules{}, nil, 0},
		{"json body differs", "POST", "https://api.github.com/repos/o/r/issues", `{"labels":["x","z"],"title":"a"}`, match.Rules{Body: match.BodyJSON}, nil, 0},
		{"method and path differ", "DELETE", "https://api.github.com/repos/o/r/pull", "", match.Rules{}, nil, 0},
		{"header differs", "GET", "https://api.github.com/repos/o/r/pulls?state=open&page=1", "", match.Rules{Headers: []string{"accept"}}, nil, 0},
		{"sequence used up", "GET", "https://api.github.com/repos/o/r/pulls?state=open&page=1", "", match.Rules{}, nil, 2},
		{"nothing recorded", "GET", "https://api.github.com/", "", match.Rules{}, []*cassettes.Cassette{}, 0},
		{"loaded from a file", "POST", "https://api.github.com/repos/o/r/issues", `{"labels":["x","z"],"title":"a"}`, match.Rules{Body: match.BodyJSON}, []*cassettes.Cassette{loaded}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := tc.cs
			if cs == nil {
				cs = []*cassettes.Cassette{githubCassette()}
			}
			x := newIndex(t, cs, tc.rules)
			r := Request{tc.method, tc.url, http.Header{"Accept": {"text/html"}}, []byte(tc.body)}
			for range tc.before {
				if it, m := x.find(r); it == nil {
					t.Fatalf("setup lookup missed: %s", m.Text())
				}
			}
			got, miss := x.find(r)
			if got != nil {
				t.Fatalf("lookup hit %s", got.Request.URL)
			}
			text := miss.Text() + "\n--- as error ---\n" + miss.Err().Error() + "\nnext: " + miss.Err().NextStep + "\n"
			golden := filepath.Join("testdata", "miss", strings.ReplaceAll(tc.name, " ", "_")+".txt")
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if text != string(want) {
				t.Errorf("miss text differs from %s:\n%s", golden, text)
			}
			var ce *outcome.Error
			if !errors.As(miss, &ce) || ce.Reason != outcome.EReplayMiss {
				t.Errorf("the miss does not unwrap to an E_REPLAY_MISS *outcome.Error: %v", ce)
			}
			if miss.Error()+"\n" != miss.Text() {
				t.Errorf("Error() is not the whole explanation")
			}
		})
	}
}

func TestSequencesAndReplayable(t *testing.T) {
	url := "https://api.github.com/repos/o/r/pulls?page=1&state=open"
	tests := []struct {
		name  string
		rules match.Rules
		flag  *bool // the cassette's replayable:
		wants []string
	}{
		{"served once, in order", match.Rules{}, nil, []string{"[1]", "[2]", "miss"}},
		{"option repeats the last", match.Rules{Replayable: true}, nil, []string{"[1]", "[2]", "[2]", "[2]"}},
		{"cassette replayable: true", match.Rules{}, ptr(true), []string{"[1]", "[2]", "[2]"}},
		{"cassette replayable: false wins over the option", match.Rules{Replayable: true}, ptr(false), []string{"[1]", "[2]", "miss"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := githubCassette()
			c.Replayable = tc.flag
			x := newIndex(t, []*cassettes.Cassette{c}, tc.rules)
			for i, want := range tc.wants {
				got, _ := x.find(Request{Method: "GET", URL: url})
				body := "miss"
				if got != nil {
					body = string(got.Response.Body)
				}
				if body != want {
					t.Errorf("request %d got %s, want %s", i, body, want)
				}
			}
		})
	}
}

func TestRules(t *testing.T) {
	rec := "https://API.example.com:443/v1/items?b=2&a=1#frag"
	tests := []struct {
		name          string
		rules         match.Rules
		method, url   string
		body          string
		h             http.Header
		match         bool
		recordedBody  string
		recordedHeads http.Header
	}{
		{"query order, host case, default port", match.Rules{}, "GET", "https://api.example.com/v1/items?a=1&b=2", "", nil, true, "", nil},
		{"different query", match.Rules{}, "GET", "https://api.example.com/v1/items?a=1&b=3", "", nil, false, "", nil},
		{"ignore query", match.Rules{IgnoreQuery: true}, "GET", "https://api.example.com/v1/items", "", nil, true, "", nil},
		{"method differs", match.Rules{}, "HEAD", "https://api.example.com/v1/items?a=1&b=2", "", nil, false, "", nil},
		{"ignore method", match.Rules{IgnoreMethod: true}, "HEAD", "https://api.example.com/v1/items?a=1&b=2", "", nil, true, "", nil},
		{"other host", match.Rules{}, "GET", "http://127.0.0.1:8080/v1/items?a=1&b=2", "", nil, false, "", nil},
		{"ignore host", match.Rules{IgnoreHost: true}, "GET", "http://127.0.0.1:8080/v1/items?a=1&b=2", "", nil, true, "", nil},
		{"raw body differs in spacing", match.Rules{}, "GET", rec, `{"a": 1}`, nil, false, `{"a":1}`, nil},
		{"json body equal up to spacing and key order", match.Rules{Body: match.BodyJSON}, "GET", rec, `{ "b":[1], "a": 1}`, nil, true, `{"a":1,"b":[1]}`, nil},
		{"json mode, non-JSON bodies compare raw", match.Rules{Body: match.BodyJSON}, "GET", rec, `a=1`, nil, true, `a=1`, nil},
		{"ignore body", match.Rules{Body: match.BodyIgnore}, "GET", rec, `x`, nil, true, `y`, nil},
		{"chosen header equal", match.Rules{Headers: []string{"x-api-version"}}, "GET", rec, "", http.Header{"X-Api-Version": {"3"}}, true, "", http.Header{"X-Api-Version": {"3"}}},
		{"chosen header differs", match.Rules{Headers: []string{"X-Api-Version"}}, "GET", rec, "", http.Header{"X-Api-Version": {"4"}}, false, "", http.Header{"X-Api-Version": {"3"}}},
		{"other headers do not matter", match.Rules{}, "GET", rec, "", http.Header{"User-Agent": {"x"}}, true, "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &cassettes.Cassette{Interactions: []cassettes.Interaction{{
				Request:  cassettes.Request{Method: "GET", URL: rec, Body: cassettes.Body(tc.recordedBody), Headers: tc.recordedHeads},
				Response: cassettes.Response{Code: 200},
			}}}
			x := newIndex(t, []*cassettes.Cassette{c}, tc.rules)
			got, _ := x.find(Request{tc.method, tc.url, tc.h, []byte(tc.body)})
			if (got != nil) != tc.match {
				t.Errorf("matched = %v, want %v", got != nil, tc.match)
			}
		})
	}
}

// TestRulesRealSuitesNeed: URL globs and regexes, ignored query
// parameters, JSON bodies by JSONPath subset (ignore some paths, or compare
// only named ones), and the closest miss still naming the field.
func TestRulesRealSuitesNeed(t *testing.T) {
	rec := "https://api.example.com/v1/items/42?ts=1700000000&page=1"
	recBody := `{"model":"m","nonce":"abc","messages":[{"role":"user","content":"hi","id":"x1"}]}`
	tests := []struct {
		name        string
		rules       match.Rules
		method, url string
		body        string
		match       bool
	}{
		{"glob over the id", match.Rules{URLs: []string{"glob:https://api.example.com/v1/items/*"}}, "GET", "https://api.example.com/v1/items/43?page=1&ts=9", recBody, true},
		{"glob does not cross a slash", match.Rules{URLs: []string{"https://api.example.com/v1/*"}}, "GET", "https://api.example.com/v1/other/43", recBody, false},
		{"regex", match.Rules{URLs: []string{`regex:https://api\.example\.com/v1/items/\d+\?.*`}}, "GET", "https://api.example.com/v1/items/7?page=2", recBody, true},
		{"regex that the request misses", match.Rules{URLs: []string{`regex:https://api\.example\.com/v1/items/\d+\?.*`}}, "GET", "https://api.example.com/v1/items/abc", recBody, false},
		{"ignored query parameter", match.Rules{IgnoreParams: []string{"ts"}}, "GET", "https://api.example.com/v1/items/42?page=1&ts=1800000000", recBody, true},
		{"ignored parameter, another differs", match.Rules{IgnoreParams: []string{"ts"}}, "GET", "https://api.example.com/v1/items/42?page=2&ts=1", recBody, false},
		{"json ignore paths", match.Rules{IgnoreJSON: []string{"$.nonce", "$..id"}}, "GET", rec,
			`{"messages":[{"content":"hi","id":"x2","role":"user"}],"model":"m","nonce":"zzz"}`, true},
		// A key only one side has is left out of that side: an SDK that
		// adds a field to what an older one recorded still matches.
		{"json ignore paths only the request has", match.Rules{IgnoreJSON: []string{"$.messages[*].caller", "$.stream_options"}}, "GET", rec,
			`{"model":"m","nonce":"abc","stream_options":{"usage":true},"messages":[{"role":"user","content":"hi","id":"x1","caller":{"type":"direct"}}]}`, true},
		{"json ignore paths only the recording has", match.Rules{IgnoreJSON: []string{"$.nonce"}}, "GET", rec,
			`{"model":"m","messages":[{"role":"user","content":"hi","id":"x1"}]}`, true},
		{"json ignore paths, content differs", match.Rules{IgnoreJSON: []string{"$.nonce"}}, "GET", rec,
			`{"model":"m","nonce":"zzz","messages":[{"role":"user","content":"bye","id":"x1"}]}`, false},
		{"json only named paths", match.Rules{OnlyJSON: []string{"$.model", "$.messages[*].content"}}, "GET", rec,
			`{"model":"m","nonce":"n","temperature":1,"messages":[{"role":"system","content":"hi"}]}`, true},
		{"json only named paths, one differs", match.Rules{OnlyJSON: []string{"$.model"}}, "GET", rec, `{"model":"other"}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := Check(tc.rules); err != nil {
				t.Fatal(err)
			}
			c := &cassettes.Cassette{Path: "cassettes/x/y.yaml", Adapter: "x", Scenario: "y", Interactions: []cassettes.Interaction{{
				Request:  cassettes.Request{Method: "GET", URL: rec, Body: cassettes.Body(recBody)},
				Response: cassettes.Response{Code: 200},
			}}}
			x := newIndex(t, []*cassettes.Cassette{c}, tc.rules)
			got, miss := x.find(Request{tc.method, tc.url, nil, []byte(tc.body)})
			if (got != nil) != tc.match {
				t.Fatalf("matched = %v, want %v", got != nil, tc.match)
			}
			if miss != nil && (miss.Closest == nil || len(miss.Closest.Differences) == 0) {
				t.Errorf("a miss without the differing field: %+v", miss)
			}
		})
	}
}

func TestMissNamesField(t *testing.T) {
	c := &cassettes.Cassette{Path: "cassettes/x/y.yaml", Adapter: "x", Scenario: "y", Interactions: []cassettes.Interaction{{
		Request:  cassettes.Request{Method: "POST", URL: "https://api.example.com/v1/chat", Body: `{"model":"m","nonce":"a"}`},
		Response: cassettes.Response{Code: 200},
	}}}
	x := newIndex(t, []*cassettes.Cassette{c}, match.Rules{IgnoreJSON: []string{"$.nonce"}, IgnoreParams: []string{"ts"}})
	_, miss := x.find(Request{"POST", "https://api.example.com/v1/chat?ts=5", nil, []byte(`{"model":"n","nonce":"b"}`)})
	if miss == nil {
		t.Fatal("matched")
	}
	text := miss.Text()
	for _, want := range []string{"cassettes/x/y.yaml (interactions[0])", "did not match on: [body]", `-  "model": "m"`, `+  "model": "n"`} {
		if !strings.Contains(text, want) {
			t.Errorf("miss lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, `"nonce"`) || strings.Contains(text, `"a"`) || strings.Contains(text, `"b"`) {
		t.Errorf("the ignored values are part of the diff:\n%s", text)
	}
	if !strings.Contains(text, "left out of both sides: $.nonce") {
		t.Errorf("the miss does not say which paths were left out:\n%s", text)
	}
}

func TestRulesCheck(t *testing.T) {
	for _, bad := range []match.Rules{{URLs: []string{"regex:("}}, {URLs: []string{"glob:["}}, {IgnoreJSON: []string{"nonce"}}, {OnlyJSON: []string{"$[?(@.a)]"}}} {
		if err := Check(bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
		if _, err := New(nil, Options{Rules: bad}); err == nil {
			t.Errorf("%+v: New took it", bad)
		}
		if _, err := New([]*cassettes.Cassette{githubCassette()}, Options{RulesFor: func(*cassettes.Cassette) match.Rules { return bad }}); err == nil {
			t.Errorf("%+v: New took it from RulesFor", bad)
		}
	}
}

// TestGroupsByRules: cassettes under different rules are indexed apart; a
// request is served by the group whose rules it matches under, and a miss
// names the closest interaction over every group.
func TestGroupsByRules(t *testing.T) {
	chat := &cassettes.Cassette{Path: "cassettes/llm/chat.yaml", Adapter: "llm", Scenario: "chat", Interactions: []cassettes.Interaction{
		it("POST", "https://api.llm.test/v1/chat", `{"model":"m","nonce":"a"}`, "chat")}}
	pulls := githubCassette()
	rulesFor := func(c *cassettes.Cassette) match.Rules {
		if c.Adapter == "llm" {
			return match.Rules{IgnoreJSON: []string{"$.nonce"}}
		}
		return match.Rules{}
	}
	x, err := New([]*cassettes.Cassette{chat, pulls}, Options{RulesFor: rulesFor})
	if err != nil {
		t.Fatal(err)
	}
	if len(x.groups) != 2 {
		t.Fatalf("%d groups, want 2", len(x.groups))
	}
	if got := x.take(Request{"POST", "https://api.llm.test/v1/chat", nil, []byte(`{"nonce":"b","model":"m"}`)}); got == nil || string(got.Response.Body) != "chat" {
		t.Errorf("the llm rules did not serve the chat: %v", got)
	}
	if got := x.take(Request{Method: "GET", URL: "https://api.github.com/repos/o/r/pulls?page=1&state=open"}); got == nil || string(got.Response.Body) != "[1]" {
		t.Errorf("the default rules did not serve the pulls: %v", got)
	}
	_, miss := x.find(Request{"POST", "https://api.llm.test/v1/chat", nil, []byte(`{"model":"n","nonce":"c"}`)})
	if miss == nil || miss.Closest == nil || miss.Closest.File != "cassettes/llm/chat.yaml" {
		t.Fatalf("the miss does not name the chat: %+v", miss)
	}
	if !strings.Contains(miss.Text(), "left out of both sides: $.nonce") || strings.Contains(miss.Text(), `"nonce"`) {
		t.Errorf("the miss is not explained under the chat's rules:\n%s", miss.Text())
	}
}

// TestPrepareAppliesToRecordedSide: a recorded request is prepared (the
// door's redaction) before it is indexed, on a copy: the cassette keeps
// what it holds.
func TestPrepareAppliesToRecordedSide(t *testing.T) {
	form := "client_id=c&client_secret=test-secret"
	c := &cassettes.Cassette{Interactions: []cassettes.Interaction{it("POST", "https://auth.test/oauth/token", form, "token")}}
	c.Interactions[0].Request.Headers.Set("X-Seen", "recorded")
	prep := func(it *cassettes.Interaction) {
		it.Request.Body = cassettes.Body(strings.Replace(string(it.Request.Body), "test-secret", "[REDACTED]", 1))
		it.Request.Headers.Set("X-Seen", "prepared")
	}
	x, err := New([]*cassettes.Cassette{c}, Options{Prepare: prep})
	if err != nil {
		t.Fatal(err)
	}
	if got := x.take(Request{"POST", "https://auth.test/oauth/token", nil, []byte("client_id=c&client_secret=[REDACTED]")}); got == nil {
		t.Fatal("the redacted request does not match the prepared recorded one")
	}
	if string(c.Interactions[0].Request.Body) != form || c.Interactions[0].Request.Headers.Get("X-Seen") != "recorded" {
		t.Errorf("Prepare changed the cassette: %q %v", c.Interactions[0].Request.Body, c.Interactions[0].Request.Headers)
	}
}

// TestRerecordIsTheDoors: the next step of a miss is the command the door
// gives for the closest cassette (nil cassette: nothing recorded).
func TestRerecordIsTheDoors(t *testing.T) {
	step := func(c *cassettes.Cassette) string {
		if c == nil {
			return "record something"
		}
		return "re-record " + c.Path
	}
	x, err := New([]*cassettes.Cassette{githubCassette()}, Options{Rerecord: step})
	if err != nil {
		t.Fatal(err)
	}
	if _, m := x.find(Request{Method: "GET", URL: "https://api.github.com/nothing"}); m.NextStep != "re-record cassettes/github/list-pulls.yaml" {
		t.Errorf("closest: %q", m.NextStep)
	}
	x.find(Request{Method: "GET", URL: "https://api.github.com/repos/o/r/pulls?state=open&page=1"})
	x.find(Request{Method: "GET", URL: "https://api.github.com/repos/o/r/pulls?state=open&page=1"})
	_, m := x.find(Request{Method: "GET", URL: "https://api.github.com/repos/o/r/pulls?state=open&page=1"})
	if m.Used != 2 || m.NextStep != "re-record cassettes/github/list-pulls.yaml" || !strings.Contains(m.Err().Message, "`replayable: true`") {
		t.Errorf("used up: %d %q", m.Used, m.NextStep)
	}
	empty, _ := New(nil, Options{Rerecord: step})
	if _, m := empty.find(Request{Method: "GET", URL: "https://x.test/"}); m.NextStep != "record something" {
		t.Errorf("nothing recorded: %q", m.NextStep)
	}
}

// TestLookupPreparesOnlyWhatDoesNotMatchAsItCame: a request equal to a
// recorded one is served without Prepare; one carrying a live token where
// the cassette says [REDACTED], or a compressed body, is prepared once and
// served; a miss is explained from the prepared request.
func TestLookupPreparesOnlyWhatDoesNotMatchAsItCame(t *testing.T) {
	c := &cassettes.Cassette{Interactions: []cassettes.Interaction{
		it("GET", "http://svc.test/v1/plain?page=1", "", "plain"),
		it("GET", "http://svc.test/v1/token?access_token=[REDACTED]", "", "token"),
		it("POST", "http://svc.test/v1/zipped", "plain body", "zipped"),
	}}
	var calls int
	prep := func(it *cassettes.Interaction) {
		calls++
		it.Request.URL = strings.ReplaceAll(it.Request.URL, "live-value-123", "[REDACTED]")
		if it.Request.Headers.Get("Content-Encoding") == "fake" { // stands for a decoder
			it.Request.Headers.Del("Content-Encoding")
			it.Request.Body = cassettes.Body(strings.TrimPrefix(string(it.Request.Body), "fake:"))
		}
	}
	x, err := New([]*cassettes.Cassette{c}, Options{Rules: match.Rules{Replayable: true}, Prepare: prep})
	if err != nil {
		t.Fatal(err)
	}
	indexing := calls
	for range 3 {
		if got, _ := x.Lookup(Request{Method: "GET", URL: "http://svc.test/v1/plain?page=1"}); got == nil {
			t.Fatal("plain: miss")
		}
	}
	if n := calls - indexing; n != 0 {
		t.Errorf("3 requests equal to a recorded one were prepared %d times", n)
	}
	if got, _ := x.Lookup(Request{Method: "GET", URL: "http://svc.test/v1/token?access_token=live-value-123"}); got == nil || string(got.Response.Body) != "token" {
		t.Fatalf("a live token against a [REDACTED] one: %v", got)
	}
	zipped := Request{"POST", "http://svc.test/v1/zipped", http.Header{"Content-Encoding": {"fake"}}, []byte("fake:plain body")}
	if got, _ := x.Lookup(zipped); got == nil || string(got.Response.Body) != "zipped" {
		t.Fatalf("an encoded body against its decoded recording: %v", got)
	}
	if n := calls - indexing; n != 2 {
		t.Errorf("prepared %d times, want 2", n)
	}
	_, miss := x.Lookup(Request{Method: "GET", URL: "http://svc.test/v1/nothing?access_token=live-value-123"})
	if miss == nil || strings.Contains(miss.Text(), "live-value-123") || !strings.Contains(miss.Text(), "access_token=[REDACTED]") {
		t.Errorf("a miss is explained from the prepared request:\n%v", miss)
	}
}

// TestMatcherAgreesWithIndex: a pair matches exactly when an index holding
// the recorded request serves the other.
func TestMatcherAgreesWithIndex(t *testing.T) {
	rec := Request{"POST", "https://API.x.test:443/v1/items?b=2&a=1", http.Header{"X-Tenant": {"t1"}}, []byte(`{"a":1,"nonce":"x"}`)}
	gots := []Request{
		{"POST", "https://api.x.test/v1/items?a=1&b=2", nil, []byte(`{"nonce":"y","a":1}`)},
		{"POST", "https://api.x.test/v1/items?a=1&b=2", nil, []byte(`{"nonce":"y","a":2}`)},
		{"GET", "https://api.x.test/v1/items?a=1&b=2", nil, []byte(`{"a":1,"nonce":"x"}`)},
		{"POST", "https://api.x.test/v1/items?a=1&b=2", http.Header{"X-Tenant": {"t2"}}, []byte(`{"a":1,"nonce":"x"}`)},
	}
	for _, rules := range []match.Rules{{}, {IgnoreJSON: []string{"$.nonce"}}, {Headers: []string{"x-tenant"}, Body: match.BodyIgnore}, {IgnoreMethod: true, Body: match.BodyJSON}} {
		m, err := NewMatcher(rules, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, got := range gots {
			c := &cassettes.Cassette{Interactions: []cassettes.Interaction{{Request: cassettes.Request{Method: rec.Method, URL: rec.URL, Headers: rec.Header, Body: cassettes.Body(rec.Body)}}}}
			served, _ := newIndex(t, []*cassettes.Cassette{c}, rules).Lookup(got)
			if m.Match(got, rec) != (served != nil) {
				t.Errorf("%+v, request %d: Match %v, index served %v", rules, i, m.Match(got, rec), served != nil)
			}
		}
	}
	if _, err := NewMatcher(match.Rules{URLs: []string{"regex:("}}, nil); err == nil {
		t.Error("NewMatcher took a bad pattern")
	}
}

// TestMatcherPreparesWhatDoesNotMatchAsItCame: with the door's redaction, a
// live token matches a recorded [REDACTED], as an Index would serve it.
func TestMatcherPreparesWhatDoesNotMatchAsItCame(t *testing.T) {
	prep := func(it *cassettes.Interaction) {
		it.Request.URL = strings.ReplaceAll(it.Request.URL, "live-value-123", "[REDACTED]")
	}
	m, err := NewMatcher(match.Rules{}, prep)
	if err != nil {
		t.Fatal(err)
	}
	rec := Request{Method: "GET", URL: "http://svc.test/v1?access_token=[REDACTED]"}
	if !m.Match(Request{Method: "GET", URL: "http://svc.test/v1?access_token=live-value-123"}, rec) {
		t.Error("the live token did not match once prepared")
	}
	if m.Match(Request{Method: "GET", URL: "http://svc.test/v1?access_token=other"}, rec) {
		t.Error("another token matched")
	}
}
