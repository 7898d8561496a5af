package matching

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/match"
)

// linearScore is how a miss was explained before the posting lists (closest.go):
// every recorded request scored field by field. It is the reference the
// index must agree with.
func linearScore(g *group, got, rec view) int {
	s := 0
	add := func(equal, near bool) {
		switch {
		case equal:
			s += 2
		case near:
			s++
		}
	}
	if !g.rules.IgnoreMethod {
		add(got.method == rec.method, false)
	}
	if !g.rules.IgnoreHost {
		add(got.origin == rec.origin, false)
	}
	add(got.path == rec.path, sameParent(got.path, rec.path))
	if !g.rules.IgnoreQuery {
		add(got.query == rec.query, sameKeys(got.query, rec.query))
	}
	for i := range got.headers {
		add(got.headers[i] == rec.headers[i], false)
	}
	if g.rules.Body != match.BodyIgnore {
		add(got.bodyKey == rec.bodyKey, false)
	}
	return s
}

func sameParent(a, b string) bool {
	i, j := strings.LastIndexByte(a, '/'), strings.LastIndexByte(b, '/')
	return i >= 0 && j >= 0 && a[:i] == b[:j]
}

func sameKeys(a, b string) bool {
	qa, errA := url.ParseQuery(a)
	qb, errB := url.ParseQuery(b)
	if errA != nil || errB != nil || len(qa) != len(qb) {
		return false
	}
	for k := range qa {
		if _, ok := qb[k]; !ok {
			return false
		}
	}
	return true
}

// linearBest scans every recorded request not served yet: the first with
// the top score.
func linearBest(g *group, got view) (int, int) {
	best, top := -1, -1
	for pos := range g.all {
		if g.served(int32(pos)) {
			continue
		}
		if s := linearScore(g, got, g.all[pos].view); s > top {
			best, top = pos, s
		}
	}
	return best, top
}

type req struct {
	method, url, body string
	h                 http.Header
}

// groupOf indexes recs, in one cassette, under rules.
func groupOf(t testing.TB, rules match.Rules, recs []req) *group {
	c := &cassettes.Cassette{Path: "cassettes/t.yaml"}
	for _, r := range recs {
		c.Interactions = append(c.Interactions, cassettes.Interaction{
			Request:  cassettes.Request{Method: r.method, URL: r.url, Body: cassettes.Body(r.body), Headers: r.h},
			Response: cassettes.Response{Code: 200}})
	}
	x, err := New([]*cassettes.Cassette{c}, Options{Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	return x.groups[0]
}

// TestClosestMissIndexAgreesWithScan: on a table of misses, the index names
// the interaction a scan of all of them names (same score, first recorded
// on a tie), with the fields that differ.
func TestClosestMissIndexAgreesWithScan(t *testing.T) {
	recs := []req{
		{"GET", "https://api.x.com/v1/items/1?expand=owner", "", nil},
		{"GET", "https://api.x.com/v1/items/2?expand=owner", "", nil},
		{"POST", "https://api.x.com/v1/items", `{"name":"a"}`, nil},
		{"POST", "https://api.x.com/v1/items", `{"name":"b"}`, nil},
		{"GET", "https://other.x.com/v1/items/1?expand=owner", "", nil},
		{"DELETE", "https://api.x.com/v1/items/1", "", nil},
		{"GET", "https://api.x.com/v2/users?page=1&per_page=5", "", nil},
		{"GET", "https://api.x.com/v2/users?page=2&per_page=5", "", nil},
		{"GET", "https://api.x.com/health", "", nil},
		{"PUT", "https://api.x.com/v1/items/3", `{"name":"c"}`, nil},
		{"GET", "https://api.x.com/%zz?q=%zz", "", nil}, // unparsable query: near nothing
	}
	cases := []struct {
		name, method, url, body string
		want                    int      // position the scan names
		diff                    []string // fields that differ
	}{
		{"unseen path", "GET", "https://api.x.com/nothing/here", "", 8, []string{"path"}},
		{"sibling path", "GET", "https://api.x.com/v1/items/9?expand=owner", "", 0, []string{"path"}},
		{"other body", "POST", "https://api.x.com/v1/items", `{"name":"z"}`, 2, []string{"body"}},
		{"other method", "PATCH", "https://api.x.com/v1/items/3", `{"name":"c"}`, 9, []string{"method"}},
		{"other host", "GET", "https://third.x.com/v1/items/2?expand=owner", "", 1, []string{"host"}},
		{"query value", "GET", "https://api.x.com/v2/users?page=3&per_page=5", "", 6, []string{"query"}},
		{"query names", "GET", "https://api.x.com/v2/users?page=1", "", 6, []string{"query"}},
		{"everything differs but the parent", "OPTIONS", "http://nowhere.test/a", "x", 8, []string{"method", "host", "path", "body"}},
		{"unparsable URL", "GET", "https://api.x.com/%zz?q=%zy", "", 10, []string{"path"}},
		{"method beats narrowing", "GET", "https://api.x.com/v1/items", "", 8, []string{"path"}},
	}
	g := groupOf(t, match.Rules{}, recs)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := g.rules.view(Request{tc.method, tc.url, nil, []byte(tc.body)})
			wantPos, wantScore := linearBest(g, v)
			gotPos, gotScore := g.miss.best(&v, nil)
			if gotPos != wantPos || gotScore != wantScore {
				t.Fatalf("index: #%d (score %d), scan: #%d (score %d)", gotPos, gotScore, wantPos, wantScore)
			}
			if gotPos != tc.want {
				t.Errorf("closest is #%d %s, the table says #%d", gotPos, recs[gotPos].url, tc.want)
			}
			m := g.closest(v, tc.method+" "+tc.url)
			var fields []string
			for _, d := range m.Closest.Differences {
				fields = append(fields, d.Field)
			}
			if fmt.Sprint(fields) != fmt.Sprint(tc.diff) {
				t.Errorf("differences %v, want %v", fields, tc.diff)
			}
			if m.Closest.File != "cassettes/t.yaml" || m.Closest.Index != gotPos {
				t.Errorf("candidate %s interactions[%d], want cassettes/t.yaml interactions[%d]", m.Closest.File, m.Closest.Index, gotPos)
			}
		})
	}
}

// TestClosestMissIndexAgreesWithScanRandom draws recordings and misses from
// small alphabets (so that ties, near paths and near queries are common)
// under each set of match options, and compares the index with the scan.
func TestClosestMissIndexAgreesWithScanRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 1))
	pick := func(s ...string) string { return s[rng.IntN(len(s))] }
	draw := func() req {
		u := pick("https://a.test", "https://b.test", "http://a.test") + pick("/v1/x/1", "/v1/x/2", "/v1/y", "/v2/x/1", "/", "/v1/x") +
			pick("", "?a=1", "?a=2", "?a=1&b=1", "?b=1", "?%zz")
		return req{pick("GET", "POST", "PUT"), u, pick("", `{"k":1}`, `{"k": 1}`, `{"k":2}`),
			http.Header{"X-Tenant": {pick("t1", "t2")}}}
	}
	rulesList := []match.Rules{{}, {IgnoreMethod: true}, {IgnoreHost: true}, {IgnoreQuery: true},
		{Body: match.BodyIgnore}, {Body: match.BodyJSON}, {Headers: []string{"X-Tenant"}}, {IgnoreMethod: true, IgnoreHost: true, Headers: []string{"x-tenant"}}}
	for _, rules := range rulesList {
		for round := 0; round < 40; round++ {
			recs := make([]req, 1+rng.IntN(30))
			for i := range recs {
				recs[i] = draw()
			}
			g := groupOf(t, rules, recs)
			for range rng.IntN(len(recs) + 1) { // some of them served, in any order
				r := recs[rng.IntN(len(recs))]
				g.take(g.rules.view(Request{r.method, r.url, r.h, []byte(r.body)}))
			}
			for range 20 {
				r := draw()
				v := g.rules.view(Request{r.method, r.url, r.h, []byte(r.body)})
				wantPos, wantScore := linearBest(g, v)
				if gotPos, gotScore := g.miss.best(&v, g.served); gotPos != wantPos || gotScore != wantScore {
					t.Fatalf("%+v: %s %s %s: index #%d (score %d), scan #%d (score %d)", rules, r.method, r.url, r.body, gotPos, gotScore, wantPos, wantScore)
				}
			}
		}
	}
}

// TestClosestMissSkipsServed is issue #27's tool loop: after the first turn
// of a recorded conversation was replayed, a second turn that differs from
// the recorded second turn by two keys is explained by that second turn,
// not by the first (which ties with it and was recorded first, but was
// served already). A served interaction that came closer is still named.
func TestClosestMissSkipsServed(t *testing.T) {
	turn1 := `{"model":"m","messages":[{"role":"user","content":"weather?"}]}`
	turn2 := `{"model":"m","messages":[{"role":"user","content":"weather?"},{"role":"assistant","content":[{"type":"tool_use","id":"t1"}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"40 C"}]}]}`
	newer := `{"model":"m","messages":[{"role":"user","content":"weather?"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","caller":{"type":"direct"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"40 C","is_error":false}]}]}`
	const u = "https://api.llm.test/v1/messages"
	x := newIndex(t, []*cassettes.Cassette{{Path: "cassettes/llm/tools.yaml", Adapter: "llm", Scenario: "tools", Interactions: []cassettes.Interaction{
		it("POST", u, turn1, "first"), it("POST", u, turn2, "second")}}}, match.Rules{Body: match.BodyJSON})
	if got, miss := x.find(Request{"POST", u, nil, []byte(turn1)}); got == nil {
		t.Fatal(miss)
	}
	_, miss := x.find(Request{"POST", u, nil, []byte(newer)})
	if miss == nil || miss.Closest == nil || miss.Closest.Index != 1 || miss.Closest.Served || miss.Closer != nil {
		t.Fatalf("the miss should name interactions[1], not served yet:\n%s", miss.Text())
	}
	if text := miss.Text(); !strings.Contains(text, `+          "is_error": false,`) || !strings.Contains(text, `+          "caller": {`) {
		t.Errorf("the diff should show the two keys the newer request adds:\n%s", text)
	}

	// The same request once interactions[1] is served too: every candidate
	// was served; the miss names the closest and says so.
	if got, miss := x.find(Request{"POST", u, nil, []byte(turn2)}); got == nil {
		t.Fatal(miss)
	}
	_, miss = x.find(Request{"POST", u, nil, []byte(newer)})
	if miss.Closest == nil || miss.Closest.Index != 0 || !miss.Closest.Served || !strings.Contains(miss.Text(), "already served") {
		t.Errorf("with everything served, the miss should say so:\n%s", miss.Text())
	}

	// A served interaction closer than every available one is named too.
	y := newIndex(t, []*cassettes.Cassette{{Path: "cassettes/llm/q.yaml", Interactions: []cassettes.Interaction{
		it("GET", "https://api.llm.test/v1/models?page=1", "", "1"), it("GET", "https://api.llm.test/v1/other", "", "2")}}}, match.Rules{})
	if got, _ := y.find(Request{Method: "GET", URL: "https://api.llm.test/v1/models?page=1"}); got == nil {
		t.Fatal("setup lookup missed")
	}
	_, miss = y.find(Request{Method: "GET", URL: "https://api.llm.test/v1/models?page=2"})
	if miss.Closest.Index != 1 || miss.Closer == nil || miss.Closer.Index != 0 || !strings.Contains(miss.Text(), "a closer one was already served") {
		t.Errorf("the miss should name interactions[1] and the closer, served interactions[0]:\n%s", miss.Text())
	}
}
