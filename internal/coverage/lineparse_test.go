package coverage

import (
	"encoding/json"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/cfgschema"
)

// TestDecodeLineTakesWhatWritersWrite: the lines Writer writes (a CLI call
// with standard input, an HTTP call with a JSON body full of escapes) are
// decoded without encoding/json, to what json.Unmarshal gives; a line
// decodeLine leaves to json.Unmarshal is still decoded or refused by it.
func TestDecodeLineTakesWhatWritersWrite(t *testing.T) {
	for _, o := range []Observation{
		{V: 1, Adapter: "git", Kind: cfgschema.KindCLI, Shape: "git log --oneline", Call: Call{Argv: []string{"git", "log", "--oneline", "é \"q\" \\ <&>"}, Stdin: true, Input: "line 1\n\tline 2\u2028"}, Test: "TestLog", Source: "shim"},
		{V: 1, Adapter: "api", Kind: cfgschema.KindHTTP, Call: Call{Method: "POST", URL: "/v1/items?page=2&q=%20", ContentType: "application/json", Body: `{"name":"a\u0001b","n":[1,2]}`, BodyBytes: 0}, Source: "proxy"},
		{V: 1, Adapter: "api", Kind: cfgschema.KindHTTP, Call: Call{Method: "PUT", URL: "/x", BodyBytes: 2 << 20}},
	} {
		line, err := marshalLine(o)
		if err != nil {
			t.Fatal(err)
		}
		var got Observation
		if !decodeLine(line, &got) {
			t.Errorf("a line Writer writes is left to json.Unmarshal: %s", line)
		}
		if !reflect.DeepEqual(got, o) {
			t.Errorf("decoded\n%+v\nwant\n%+v", got, o)
		}
	}
	for _, line := range []string{`{"V":1,"adapter":"git"}`, `{"v":1.0}`, `{"v":1,"adapter":null}`, `{"v":1} x`, `{"v":1,"test":"\ud83d\ude00"}`, "{\"v\":1,\"test\":\"\xff\"}", `{"v":1,"extra":{}}`} {
		if decodeLine([]byte(line), &Observation{}) {
			t.Errorf("decodeLine took %s, which is json.Unmarshal's to decode", line)
		}
	}
	if _, _, msg := parseLine([]byte(`{"v":1,"adapter":"git","kind":"cli","call":{"argv":["git"]},"extra":1} x`)); !strings.Contains(msg, "not a JSON object") {
		t.Errorf("a line with data after its object: %q", msg)
	}
}

func FuzzDecodeLine(f *testing.F) {
	f.Add(`{"v":1,"adapter":"api","kind":"http","call":{"method":"GET","url":"/v1/r1/items?page=3"},"test":"TestItems1","source":"proxy"}`)
	f.Add(`{"v":1,"adapter":"git","kind":"cli","call":{"argv":["git","log"],"stdin":true,"input":"a\nb"},"test":"T"}`)
	f.Add(`{ "v" : -0 , "call" : { "body_bytes" : 12 , "argv" : [ ] } }`)
	f.Fuzz(func(t *testing.T, line string) {
		var got Observation
		if !decodeLine([]byte(line), &got) {
			return
		}
		var want Observation
		if err := json.Unmarshal([]byte(line), &want); err != nil {
			t.Fatalf("decodeLine took %q, which json.Unmarshal refuses: %v", line, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\ndecodeLine %+v\nUnmarshal  %+v", line, got, want)
		}
	})
}

// FuzzPlainURL: where plainURL splits a URL itself, it gives the escaped
// path and the query that url.Parse gives (or HTTPShape's fallback for a
// URL that url.Parse refuses).
func FuzzPlainURL(f *testing.F) {
	for _, s := range []string{"/v1/r1/items?page=3", "/a//b/", "/x?", "/x?a=%zz&b", "/x?\x01", "//host/x", "/a#f", "/%41"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		path, query, ok := plainURL(raw)
		if !ok {
			return
		}
		u, err := url.Parse(raw)
		if err != nil {
			u = &url.URL{Path: raw}
			if p, q, ok := strings.Cut(raw, "?"); ok {
				u.Path, u.RawQuery = p, q
			}
		}
		if u.EscapedPath() != path || u.RawQuery != query {
			t.Fatalf("%q: plainURL %q %q, url.Parse %q %q", raw, path, query, u.EscapedPath(), u.RawQuery)
		}
	})
}
