package recording

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/redact"
)

const churnToken = "tok-123456789abc"

// stableService answers every request with what it got, and no Date
// header: an unchanged service, byte for byte.
func stableService(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header()["Date"] = nil
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"got":"`+r.Method+" "+r.URL.RequestURI()+" "+string(b)+`"}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// rerecordBytes records old again against base, with a fixed clock, and
// returns the bytes Save writes.
func rerecordBytes(t *testing.T, old *cassettes.Cassette, base string) []byte {
	t.Helper()
	rec, err := RerecordHTTP(context.Background(), old, HTTPOptions{Meta: Meta{Now: fixedNow}, BaseURL: base,
		Headers: map[string]string{"Authorization": "Bearer ${TOK}"}, Credentials: []string{"TOK"},
		LookupEnv: env(map[string]string{"TOK": churnToken})})
	if err != nil {
		t.Fatal(err)
	}
	data, err := cassettes.Marshal(rec.Cassette)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestRerecordUnchangedServiceIsByteIdentical: a cassette recorded through
// the proxy (a form POST and a GET with a query, as a client sends them)
// and re-recorded against the same, unchanged service is the same bytes.
// Re-recording used to drop the request's `form:` and its Content-Length
// header, so that every refresh PR carried changes the service did not
// make. A cassette recorded from declared scenarios (which has neither)
// does not gain them.
func TestRerecordUnchangedServiceIsByteIdentical(t *testing.T) {
	up := stableService(t)
	red := redact.New(nil, map[string]string{"TOK": churnToken})
	auth := http.Header{"Authorization": {"Bearer " + churnToken}}
	p := recordThrough(t, up.URL, red,
		call{"POST", "/login?next=%2Fhome", "user=ada&lang=en", http.Header{"Authorization": auth["Authorization"], "Content-Type": {"application/x-www-form-urlencoded"}}},
		call{"GET", "/v1/pets?limit=2", "", auth})
	path := filepath.Join(t.TempDir(), "shop", "login.yaml")
	c, err := SaveProxy(p, ProxySave{Meta: Meta{Adapter: "shop", Scenario: "login", Now: fixedNow}, Path: path, Redactor: red})
	if err != nil {
		t.Fatal(err)
	}
	// The proxy measures durations with its own clock, which this package
	// cannot set; the re-recording's clock is fixed at zero duration too.
	for i := range c.Interactions {
		c.Interactions[i].Response.Duration = 0
	}
	if err := cassettes.Save(c, cassettes.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(want, []byte("form:")) || !bytes.Contains(want, []byte("Content-Length:")) {
		t.Fatalf("the proxy's recording has no form or Content-Length header:\n%s", want)
	}
	old, err := cassettes.Load(path, cassettes.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := rerecordBytes(t, old, up.URL); !bytes.Equal(got, want) {
		t.Errorf("re-recording an unchanged service changed the cassette:\n--- recorded\n%s\n--- re-recorded\n%s", want, got)
	}

	recs, err := RecordHTTP(context.Background(), HTTPOptions{Meta: Meta{Adapter: "shop", Now: fixedNow}, BaseURL: up.URL,
		Headers: map[string]string{"Authorization": "Bearer ${TOK}"}, Credentials: []string{"TOK"}, LookupEnv: env(map[string]string{"TOK": churnToken}),
		Scenarios: []Scenario{{Name: "order", Method: "POST", Path: "/orders?x=1", Headers: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, Body: "item=7"}}})
	if err != nil {
		t.Fatal(err)
	}
	declared, err := cassettes.Marshal(recs[0].Cassette)
	if err != nil {
		t.Fatal(err)
	}
	if got := rerecordBytes(t, recs[0].Cassette, up.URL); !bytes.Equal(got, declared) {
		t.Errorf("re-recording a declared scenario changed the cassette:\n--- recorded\n%s\n--- re-recorded\n%s", declared, got)
	}
}
