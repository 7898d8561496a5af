package proxy

import (
	"net/http"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
)

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
	// What cassette record's redactor does to a secret-named form field.
	redact := func(it *cassettes.Interaction) {
		it.Request.Body = cassettes.Body(strings.Replace(string(it.Request.Body), "client_secret=test-client_secret", "client_secret=[REDACTED]", 1))
	}
	p := startProxy(t, Options{Mode: ModeReplay, CA: testCA(t), Transport: trusting(up), Cassettes: []*cassettes.Cassette{c}, Redact: redact})
	code, body, _ := do(t, forwardClient(t, p, false), up.URL, call{"POST", "/oauth/token", "application/x-www-form-urlencoded", form})
	if code != 200 {
		t.Fatalf("status %d:\n%s", code, body)
	}
}
