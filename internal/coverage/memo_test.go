package coverage

import (
	"reflect"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// FuzzLineDecoderNames: a decoder that keeps the names of the lines it
// read (readFile's, one for a whole file) decodes each line as a fresh one
// does (decodeLine, held to json.Unmarshal by FuzzDecodeLine), whatever
// came before, and shows a test's name as outcome.Printable does.
func FuzzLineDecoderNames(f *testing.F) {
	f.Add(`{"v":1,"adapter":"api","kind":"http","call":{"method":"GET","url":"/v1/r1/items?page=3"},"test":"TestItems1","source":"proxy"}`,
		`{"v":1,"adapter":"api","kind":"http","call":{"method":"GET","url":"/v1/r1/items?page=4"},"test":"TestItems1","source":"proxy"}`)
	f.Add(`{"v":1,"adapter":"git","kind":"cli","call":{"argv":["git","log"],"stdin":true,"input":"a\nb"},"test":"T\u001b[31m"}`,
		`{"v":1,"adapter":"git","kind":"cli","call":{"argv":["git","log"]},"test":"T\u001b[31m","shape":"git log"}`)
	f.Add(`{"adapter":"a\"b","kind":"cli"}`, `{"adapter":"a\"b","kind":"http","test":""}`)
	f.Fuzz(func(t *testing.T, a, b string) {
		d := lineDecoder{names: map[string]string{}, tests: map[string]string{}}
		for _, line := range []string{a, b, a, b} {
			var want Observation
			wantOK := decodeLine([]byte(line), &want)
			var got Observation
			buf := []byte(line)
			gotOK := d.decode(buf, &got)
			for i := range buf { // the strings kept are copies: the line's buffer is reused
				buf[i] = 'x'
			}
			if gotOK != wantOK || (wantOK && !reflect.DeepEqual(got, want)) {
				t.Fatalf("%q after %q: the decoder with names gave %v %+v, a fresh one %v %+v", line, a, gotOK, got, wantOK, want)
			}
			if shown := d.shown(want.Test); shown != outcome.Printable(want.Test) {
				t.Fatalf("test %q shown as %q, want %q", want.Test, shown, outcome.Printable(want.Test))
			}
		}
	})
}

// memoCalls are calls whose shapes a memo might confuse: CLI calls whose
// words join alike, the same call with and without standard input, queries
// with repeated, ignored and value names, a method in lower case.
var memoCalls = []Observation{
	{Kind: cfgschema.KindCLI, Call: Call{Argv: []string{"git", "log", "--oneline"}}},
	{Kind: cfgschema.KindCLI, Call: Call{Argv: []string{"git", "log --oneline"}}},
	{Kind: cfgschema.KindCLI, Call: Call{Argv: []string{"git", "log\x00--oneline"}}},
	{Kind: cfgschema.KindCLI, Call: Call{Argv: []string{"git", "log", "--oneline"}, Stdin: true}},
	{Kind: cfgschema.KindCLI, Call: Call{Argv: []string{"git"}}},
	{Kind: cfgschema.KindCLI, Call: Call{Argv: []string{"gh", "api", "repos/{owner}/{repo}/issues?state=open", "-f", "q=1"}}},
	{Kind: cfgschema.KindCLI, Call: Call{Argv: []string{"gh", "api", "graphql", "-f", "query=query Viewer { viewer { login } }"}}},
	{Kind: cfgschema.KindHTTP, Call: Call{Method: "get", URL: "/v1/r1/items?page=2&page=3&per_page=9&sort"}},
	{Kind: cfgschema.KindHTTP, Call: Call{Method: "GET", URL: "/v1/r1/items?trace=1&page=2"}},
	{Kind: cfgschema.KindHTTP, Call: Call{Method: "GET", URL: "/v1/r1/items?0a3f9c1d2e=1&filter[state]=x&&="}},
	{Kind: cfgschema.KindHTTP, Call: Call{Method: "GET", URL: "/v1/r1/items"}},
	{Kind: cfgschema.KindHTTP, Call: Call{Method: "DELETE!", URL: "https://h.test/v1/%7Bx%7D/a%2Fb?q=%20"}},
	{Kind: cfgschema.KindHTTP, Call: Call{Method: "POST", URL: "/v1/items", ContentType: "application/json", Body: `{"name":"a","tags":[{"id":1}]}`}},
	{Kind: cfgschema.KindHTTP, Call: Call{Method: "PUT", URL: "/v1/items/1", BodyBytes: 2 << 20}},
}

func memoRules(t testing.TB, memo bool) *Rules {
	depth := 2
	r, probs := NewRules(&cfgschema.Adapter{Coverage: cfgschema.Coverage{Paths: []string{"/v1/{name}"}, IgnoreQuery: []string{"trace"}, Depth: &depth}})
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	if memo {
		r.Memoize()
	}
	return r
}

// TestMemoizedShapesAgree: rules that remember what they worked out
// (Analyze's) give every call the shape rules without a memo give it, the
// first time and every time after, in any order.
func TestMemoizedShapesAgree(t *testing.T) {
	plain, memo := memoRules(t, false), memoRules(t, true)
	want := make([]Shape, len(memoCalls))
	for i, o := range memoCalls {
		want[i] = plain.Of(o)
	}
	for round := range 3 {
		for k := range memoCalls {
			i := k
			if round == 1 {
				i = len(memoCalls) - 1 - k
			}
			if got := Shape(memo.appendShape([]byte("junk"), &memoCalls[i])[4:]); got != want[i] {
				t.Errorf("round %d, %+v: memoized %q, want %q", round, memoCalls[i].Call, got, want[i])
			}
			if got := memo.Of(memoCalls[i]); got != want[i] {
				t.Errorf("round %d, %+v: memoized Of %q, want %q", round, memoCalls[i].Call, got, want[i])
			}
		}
	}
}

// FuzzMemoizedShape: for any two calls, rules with a memo give each the
// shape rules without one give it, whichever came first.
func FuzzMemoizedShape(f *testing.F) {
	f.Add("git\nlog\n--oneline", "git\nlog --oneline", "GET", "/v1/r1/items?page=1&page=2", "/v1/{name}/x?trace=1&b&a")
	f.Fuzz(func(t *testing.T, argv1, argv2, method, url1, url2 string) {
		plain, memo := memoRules(t, false), memoRules(t, true)
		calls := []Observation{
			{Kind: cfgschema.KindCLI, Call: Call{Argv: strings.Split(argv1, "\n")}},
			{Kind: cfgschema.KindCLI, Call: Call{Argv: strings.Split(argv2, "\n"), Stdin: len(argv2)%2 == 1}},
			{Kind: cfgschema.KindHTTP, Call: Call{Method: method, URL: url1}},
			{Kind: cfgschema.KindHTTP, Call: Call{Method: method, URL: url2}},
		}
		for range 2 {
			for _, o := range calls {
				if got, want := Shape(memo.appendShape(nil, &o)), plain.Of(o); got != want {
					t.Fatalf("%+v: memoized %q, want %q", o.Call, got, want)
				}
			}
		}
	})
}
