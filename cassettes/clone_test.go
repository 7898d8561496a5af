package cassettes

import (
	"net/http"
	"net/url"
	"reflect"
	"testing"
)

// TestRequestClone: a door that redacts or prepares the clone leaves the
// recorded request as it was, headers, trailer, form and all.
func TestRequestClone(t *testing.T) {
	orig := Request{Method: "POST", URL: "https://api.example.com/x?token=abc",
		Headers: http.Header{"Authorization": {"Bearer abc"}}, Trailer: http.Header{"X-Sum": {"1"}},
		Form: url.Values{"token": {"abc"}}, TransferEncoding: []string{"chunked"}}
	keep := Request{Method: "POST", URL: "https://api.example.com/x?token=abc",
		Headers: http.Header{"Authorization": {"Bearer abc"}}, Trailer: http.Header{"X-Sum": {"1"}},
		Form: url.Values{"token": {"abc"}}, TransferEncoding: []string{"chunked"}}
	c := orig.Clone()
	if !reflect.DeepEqual(c, orig) {
		t.Fatalf("clone differs: %+v", c)
	}
	c.Headers.Set("Authorization", "[REDACTED]")
	c.Trailer.Set("X-Sum", "2")
	c.Form["token"][0] = "[REDACTED]"
	c.Form.Set("other", "x")
	c.TransferEncoding[0] = "identity"
	if !reflect.DeepEqual(orig, keep) {
		t.Errorf("changing the clone changed the original: %+v", orig)
	}
	if (Request{}).Clone().Form != nil {
		t.Error("a request without a form gained one")
	}
}
