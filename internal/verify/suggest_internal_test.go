package verify

import (
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
)

func jsonCassette(body string) *cassettes.Cassette {
	c := &cassettes.Cassette{Kind: cfgschema.KindHTTP, Adapter: "svc", Scenario: "get-thing", Path: "cassettes/svc/get-thing.yaml"}
	it := cassettes.Interaction{}
	it.Request.Method, it.Request.URL = "GET", "http://h/thing"
	it.Response.Code, it.Response.Body = 200, cassettes.Body(body)
	it.Response.Headers = map[string][]string{"Content-Type": {"application/json"}}
	c.Interactions = []cassettes.Interaction{it}
	return c
}

// TestVolatileDriftSuggestsANormalizer: two UUIDs that differ say so with
// the built-in that covers them and the learn command; two names that
// differ are a plain drift.
func TestVolatileDriftSuggestsANormalizer(t *testing.T) {
	want := jsonCassette(`{"id":"6f1c0000-aaaa-4bbb-8ccc-1234567890a0","name":"a","message":"msg_01R8GdyyLQUhUfyjqSCMbnWg"}`)
	got := jsonCassette(`{"id":"0b9e51f2-1d3c-4e5f-8a9b-0c1d2e3f4a5b","name":"b","message":"msg_01Inrow6sX8z99MgMyctmaJY"}`)
	want.Interactions[0].Response.Headers["Last-Modified"] = []string{"Mon, 23 Nov 2026 15:39:32 GMT"}
	got.Interactions[0].Response.Headers["Last-Modified"] = []string{"Tue, 01 Dec 2026 20:30:00 GMT"}
	cmp, err := CompareSides(Case{Cassette: want, Adapter: &cfgschema.Adapter{ContractHeaders: []string{"Last-Modified"}}}, got, Options{Config: &cfgschema.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	var id, name, date, msg string
	for _, d := range cmp.Drifts {
		switch {
		case d.JSONPath == "$.message":
			msg = d.Message
		case d.JSONPath == "$.id":
			id = d.Message
		case d.JSONPath == "$.name":
			name = d.Message
		case strings.Contains(d.Field, "Last-Modified"):
			date = d.Message
		}
	}
	if !strings.Contains(date, "rfc1123 values") || !strings.Contains(date, "timestamps.RFC1123") {
		t.Errorf("the date header drift does not suggest the normalizer: %q", date)
	}
	if !strings.Contains(id, "uuid values") || !strings.Contains(id, "normalizer uuid") || !strings.Contains(id, "cassette learn --adapter svc --scenario get-thing") {
		t.Errorf("the UUID drift does not suggest the normalizer: %q", id)
	}
	if !strings.Contains(msg, "prefixed-id values") || !strings.Contains(msg, "cassette learn --adapter svc --scenario get-thing") {
		t.Errorf("the message id drift does not suggest learning: %q", msg)
	}
	if name == "" || strings.Contains(name, "normalizer") {
		t.Errorf("the name drift should be plain: %q", name)
	}
	if !strings.Contains(cmp.Explain, "normalizer uuid") {
		t.Errorf("the explanation does not show the hint:\n%s", cmp.Explain)
	}
}
