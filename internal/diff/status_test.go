package diff

import (
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
)

// TestReasonPhrase: real go-vcr cassettes hold `status: 200` (linodego) and
// `400 BAD REQUEST`; a Go fake sends "200 OK" and "400 Bad Request". Only
// the code and a different phrase are drift.
func TestReasonPhrase(t *testing.T) {
	for _, tc := range []struct {
		want, got string
		code      int
		drift     bool
	}{
		{"200", "200 OK", 200, false},
		{"400 BAD REQUEST", "400 Bad Request", 400, false},
		{"200 OK", "200 OK", 200, false},
		{"200 OK", "200 Fine", 200, true},
	} {
		mk := func(status string) *cassettes.Cassette {
			return &cassettes.Cassette{Kind: cfgschema.KindHTTP, Interactions: []cassettes.Interaction{{
				Request: cassettes.Request{Method: "GET", URL: "https://x/"}, Response: cassettes.Response{Code: tc.code, Status: status}}}}
		}
		p, err := Pipeline(mk(tc.want), Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := ComparePipeline(mk(tc.want), mk(tc.got), p, nil)
		if r.Equal == tc.drift {
			t.Errorf("%q vs %q: equal=%v", tc.want, tc.got, r.Equal)
		}
	}
}
