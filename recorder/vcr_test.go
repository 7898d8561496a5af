package recorder

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"

	"github.com/cassette-dev/cassette/cassettes"
)

// TestTransportRecordThenReplayOffline records through the RoundTripper
// against a real TLS server, closes the server, then replays the same table
// with a new transport: proof that replay used no network.
func TestTransportRecordThenReplayOffline(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, r.Method+" "+r.URL.Path+" auth="+r.Header.Get("Authorization")+" body="+string(body)+"\nline two\n")
	}))
	vars := map[string]string{"API_TOKEN": plantedValue}
	path := filepath.Join(t.TempDir(), "cassettes", "api", "echo.yaml")
	table := []struct {
		name, method, path, body string
	}{
		{"get", "GET", "/a", ""},
		{"get with token in query", "GET", "/b?token=" + url.QueryEscape(plantedValue), ""},
		{"post json", "POST", "/c", `{"k":"v","t":"` + plantedValue + `"}`},
		// redacted by name when recorded: replay must match it the same way
		{"post json with an undeclared password", "POST", "/d", `{"user":"bob","password":"undeclared-pw-42"}`},
	}
	run := func(t *testing.T, tr *Transport) []string {
		var got []string
		for _, tt := range table {
			req, err := http.NewRequest(tt.method, srv.URL+tt.path, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+plantedValue)
			resp, err := tr.Client().Do(req)
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			got = append(got, string(b))
		}
		return got
	}

	opts := TransportOptions{Meta: Meta{Adapter: "api", Scenario: "echo", Now: fixedNow, Normalizers: []string{"headers.volatile"}},
		Mode: ModeRecordOnly, Real: srv.Client().Transport, Credentials: []string{"API_TOKEN"}, LookupEnv: env(vars)}
	rec, err := NewTransport(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	recorded := run(t, rec)
	if err := rec.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, b := range recorded {
		if strings.Contains(b, plantedValue) {
			t.Errorf("the client saw an unredacted recorded response: %q", b)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), plantedValue) || strings.Contains(string(data), url.QueryEscape(plantedValue)) {
		t.Fatalf("the cassette holds the token:\n%s", data)
	}
	c, err := cassettes.Load(path, cassettes.LoadOptions{})
	if err != nil {
		t.Fatalf("our loader rejects the file: %v\n%s", err, data)
	}
	if c.Adapter != "api" || c.Scenario != "echo" || len(c.Interactions) != len(table) || c.Cassette != cassettes.SchemaVersion {
		t.Errorf("loaded %+v", c)
	}
	// go-vcr itself loads what we wrote.
	vc, err := cassette.Load(strings.TrimSuffix(path, ".yaml"))
	if err != nil {
		t.Fatalf("go-vcr rejects the file: %v", err)
	}
	if len(vc.Interactions) != len(table) || vc.Interactions[2].Response.Body != recorded[2] {
		t.Errorf("go-vcr read %d interactions, body %q", len(vc.Interactions), vc.Interactions[2].Response.Body)
	}

	srv.Close()
	opts.Mode = ModeReplayOnly
	rep, err := NewTransport(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	replayed := run(t, rep)
	for i := range table {
		t.Run(table[i].name, func(t *testing.T) {
			if replayed[i] != recorded[i] {
				t.Errorf("replay %q, recorded %q", replayed[i], recorded[i])
			}
		})
	}
	if err := rep.Stop(); err != nil {
		t.Fatal(err)
	}
	// A request that was not recorded fails, never reaching the network.
	rep2, err := NewTransport(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rep2.Client().Get(srv.URL + "/never"); err == nil {
		t.Errorf("an unrecorded request was answered")
	}
}

func TestNewTransportRejectsNonYAMLPath(t *testing.T) {
	if _, err := NewTransport(filepath.Join(t.TempDir(), "x.json"), TransportOptions{}); err == nil {
		t.Fatal("want an error")
	}
}
