package matching

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/match"
)

func parse(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// answer is what a lookup gave: the response's body, or the miss's text.
func answer(it *cassettes.Interaction, miss *Miss) string {
	if it != nil {
		return string(it.Response.Body)
	}
	if miss == nil {
		return "nothing"
	}
	return "miss: " + miss.Text()
}

// TestLookupParsedAnswersAsLookup: the same requests, one after the other,
// through LookupParsed (the memo) on one index and Lookup on another give
// the same answers, sequences used up and misses included, with and
// without a door's Prepare, in one group and in two.
func TestLookupParsedAnswersAsLookup(t *testing.T) {
	pulls := "https://api.github.com/repos/o/r/pulls?state=open&page=1"
	reqs := []Request{
		{Method: "GET", URL: pulls},
		{Method: "GET", URL: "https://api.github.com/repos/o/r/pulls?page=1&state=open"}, // another URL, the same key
		{Method: "GET", URL: pulls},
		{Method: "GET", URL: pulls}, // the sequence is used up
		{Method: "GET", URL: "https://api.github.com/repos/o/r/pulls?state=closed"},
		{Method: "POST", URL: "https://api.github.com/repos/o/r/issues", Body: []byte(`{"title":"a","labels":["x","y"]}`)},
		{Method: "GET", URL: "https://api.github.com/repos/o/r/pulls?state=closed"},
		{Method: "GET", URL: "https://api.llm.test/v1/models"},
		{Method: "GET", URL: "https://api.llm.test/v1/models"},
		{Method: "GET", URL: "https://api.llm.test/v1/models?access_token=live"},
	}
	models := func() *cassettes.Cassette {
		return &cassettes.Cassette{Path: "cassettes/llm/models.yaml", Adapter: "llm", Interactions: []cassettes.Interaction{
			it("GET", "https://api.llm.test/v1/models", "", "models"),
			it("GET", "https://api.llm.test/v1/models?access_token=[REDACTED]", "", "models-token"),
		}}
	}
	prep := func(it *cassettes.Interaction) {
		it.Request.URL = strings.ReplaceAll(it.Request.URL, "access_token=live", "access_token=[REDACTED]")
	}
	rulesFor := func(c *cassettes.Cassette) match.Rules {
		if c.Adapter == "llm" {
			return match.Rules{Replayable: true}
		}
		return match.Rules{}
	}
	for _, tc := range []struct {
		name string
		o    Options
	}{
		{"one group", Options{}},
		{"one group, prepared", Options{Prepare: prep}},
		{"two groups", Options{RulesFor: rulesFor}},
		{"two groups, prepared", Options{RulesFor: rulesFor, Prepare: prep}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			index := func() *Index {
				x, err := New([]*cassettes.Cassette{githubCassette(), models()}, tc.o)
				if err != nil {
					t.Fatal(err)
				}
				return x
			}
			memo, plain := index(), index()
			for i, r := range reqs {
				u := parse(t, r.URL)
				withURL := r
				r.URL = ""
				got := answer(memo.LookupParsed(r, u))
				want := answer(plain.Lookup(withURL))
				if got != want {
					t.Errorf("request %d (%s %s): LookupParsed gave\n%s\nLookup gave\n%s", i, r.Method, u, got, want)
				}
			}
			if n := memo.memo.n.Load(); n != 3 {
				t.Errorf("the memo keeps %d requests, want 3 (the two URLs of the pulls, the models without a token: no miss, no body)", n)
			}
		})
	}
}

// TestMemoIsOffWhenHeadersMatch: under rules that compare a header, two
// requests to one URL differ, and the memo keeps neither.
func TestMemoIsOffWhenHeadersMatch(t *testing.T) {
	c := &cassettes.Cassette{Interactions: []cassettes.Interaction{
		it("GET", "https://api.test/v1/items", "", "json"),
		it("GET", "https://api.test/v1/items", "", "text"),
	}}
	c.Interactions[1].Request.Headers = http.Header{"Accept": {"text/plain"}}
	x := newIndex(t, []*cassettes.Cassette{c}, match.Rules{Headers: []string{"accept"}, Replayable: true})
	u := parse(t, "https://api.test/v1/items")
	for range 2 {
		for _, want := range []string{"text", "json"} {
			accept := map[string]string{"json": "application/json", "text": "text/plain"}[want]
			got := answer(x.LookupParsed(Request{Method: "GET", Header: http.Header{"Accept": {accept}}}, u))
			if got != want {
				t.Errorf("Accept %s: got %q, want %q", accept, got, want)
			}
		}
	}
	if n := x.memo.n.Load(); n != 0 {
		t.Errorf("the memo keeps %d requests under header rules, want 0", n)
	}
}

// TestMemoIsBounded: past memoMax requests kept, a new one is looked up
// by its key each time and still answered.
func TestMemoIsBounded(t *testing.T) {
	c := &cassettes.Cassette{Interactions: []cassettes.Interaction{it("GET", "https://api.test/v1/items?a=1", "", "items")}}
	x := newIndex(t, []*cassettes.Cassette{c}, match.Rules{Replayable: true})
	for i := range memoMax + 10 {
		// One key, written many ways (the fragment is not compared): each
		// is a URL of its own to the memo.
		u := parse(t, fmt.Sprintf("https://api.test/v1/items?a=1#%d", i))
		if got := answer(x.LookupParsed(Request{Method: "GET"}, u)); got != "items" {
			t.Fatalf("request %d: %s", i, got)
		}
	}
	if n := x.memo.n.Load(); n != memoMax {
		t.Errorf("the memo holds %d, want its bound %d", n, memoMax)
	}
}
