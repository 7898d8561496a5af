package proxy

import (
	"net/http"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/redact"
)

// TestRecordKeepsWordsOfALoginPassword records, through the MITM proxy
// with a real Go client over real TLS, a login that posts
// {"password":"secret"} and is answered a token, then a call with that
// token whose answer holds "secret_encoded", "client_secret_post" and the
// token echoed (#35). The password and the token are replaced where they
// stood; every other byte is kept (it was saved as
// {"[REDACTED]_encoded":false}), and replay serves it.
func TestRecordKeepsWordsOfALoginPassword(t *testing.T) {
	const token = "tok-7Qx2mZ9vK4pL8w"
	const clients = `{"jwt_configuration":{"secret_encoded":false},"token_endpoint_auth_method":"client_secret_post","secrets":[],"echo":"` + token + `"}`
	up := newUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/oauth/token" {
			w.Write([]byte(`{"access_token":"` + token + `","token_type":"Bearer"}`))
			return
		}
		w.Write([]byte(clients))
	}), false)
	opts := Options{Mode: ModeRecord, CA: testCA(t), Transport: trusting(up), Redact: redact.New(nil, nil)}
	rec := startProxy(t, opts)
	client := forwardClient(t, rec, false)
	do(t, client, up.URL, call{"POST", "/oauth/token", "application/json", `{"username":"me","password":"secret"}`})
	req, _ := http.NewRequest("GET", up.URL+"/api/v2/clients", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	its := flushed(t, rec)
	if len(its) != 2 {
		t.Fatalf("recorded %d interactions", len(its))
	}
	if got := string(its[0].Request.Body); got != `{"username":"me","password":"[REDACTED]"}` {
		t.Errorf("login request recorded as %s", got)
	}
	want := strings.Replace(clients, token, redact.Redacted, 1)
	if got := string(its[1].Response.Body); got != want {
		t.Errorf("recorded\n %s\nwant\n %s", got, want)
	}
	rec.Close()
	up.Close()
	opts.Mode, opts.Cassettes = ModeReplay, []*cassettes.Cassette{{Interactions: its}}
	rep := startProxy(t, opts)
	code, body, _ := do(t, forwardClient(t, rep, false), up.URL, call{"GET", "/api/v2/clients", "", ""})
	if code != 200 || string(body) != want {
		t.Errorf("replay: %d %s", code, body)
	}
}
