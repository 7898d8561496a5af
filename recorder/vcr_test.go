package recorder

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/match"
)

// TestTransportRecordThenReplayOffline records through the RoundTripper
// against a real TLS server, closes the server, then replays the same table
// with a new recorder: proof that replay used no network.
func TestRecorderRecordThenReplayOffline(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, r.Method+" "+r.URL.Path+" auth="+r.Header.Get("Authorization")+" body="+string(body)+"\nline two\n")
	}))
	t.Setenv("API_TOKEN", plantedValue)
	dir := project(t)
	path := filepath.Join(dir, "cassettes", "api", "echo.yaml")
	table := []struct {
		name, method, path, body string
	}{
		{"get", "GET", "/a", ""},
		{"get with token in query", "GET", "/b?token=" + url.QueryEscape(plantedValue), ""},
		{"post json", "POST", "/c", `{"k":"v","t":"` + plantedValue + `"}`},
		// redacted by name when recorded: replay must match it the same way
		{"post json with an undeclared password", "POST", "/d", `{"user":"bob","password":"undeclared-pw-42"}`},
	}
	run := func(t *testing.T, tr *Recorder) []string {
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

	opts := []Option{withClock(fixedNow), WithProject(dir), WithRealTransport(srv.Client().Transport)}
	rec, err := New(path, append(opts, WithMode(ModeRecordOnly))...)
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
	if c.Adapter != "api" || c.Scenario != "echo" || len(c.Interactions) != len(table) || c.Cassette != cassettes.SchemaVersion ||
		!slices.Equal(c.Normalizers, []string{"headers.volatile"}) {
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
	opts = append(opts, WithMode(ModeReplayOnly))
	rep, err := New(path, opts...)
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
	rep2, err := New(path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rep2.Client().Get(srv.URL + "/never"); err == nil {
		t.Errorf("an unrecorded request was answered")
	}
}

// TestRecorderTakesTheProjectsMatch: WithProject replays by the `match:`
// of the cassette's adapter in cassette.yaml (here a nonce left out of a
// JSON body), and rules given with WithMatch replace it.
func TestRecorderTakesTheProjectsMatch(t *testing.T) {
	srv, _ := counter(t)
	dir := project(t, `match: {ignore_json: ["$.nonce"]}`)
	path := filepath.Join(dir, "cassettes", "api", "chat.yaml")
	rec := open(t, path, []Option{WithProject(dir), WithRealTransport(srv.Client().Transport)}, ModeRecordOnly)
	send(t, rec, "POST", srv.URL+"/v1/chat", `{"q":"hi","nonce":"n-1"}`)
	stop(t, rec)
	srv.Close()

	if got := send(t, open(t, path, []Option{WithProject(dir)}, ModeReplayOnly), "POST", srv.URL+"/v1/chat", `{"nonce":"n-2","q":"hi"}`); got != "1" {
		t.Errorf("by the project's match: %q, want the recorded answer", got)
	}
	got := send(t, open(t, path, []Option{WithProject(dir), WithMatch(match.Rules{})}, ModeReplayOnly), "POST", srv.URL+"/v1/chat", `{"nonce":"n-2","q":"hi"}`)
	if !strings.HasPrefix(got, "miss: ") {
		t.Errorf("WithMatch's raw body did not replace the project's match: %q", got)
	}
}

func TestNewRejectsNonYAMLPath(t *testing.T) {
	if _, err := New(filepath.Join(t.TempDir(), "x.json")); err == nil {
		t.Fatal("want an error")
	}
}

// plantedValue is a declared credential's value that matches no known key
// format: only the project's declaration can redact it.
const plantedValue = "pl4nted-Value/with+chars"

var fixedNow = func() time.Time { return time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC) }

// project writes a cassette.yaml declaring adapter api (credential
// API_TOKEN, normalizer headers.volatile) into a new directory.
// More lines of adapter api's settings may be given.
func project(t *testing.T, more ...string) string {
	t.Helper()
	dir := t.TempDir()
	cfg := `version: 1
adapters:
  api:
    kind: http
    real: {base_url: "https://api.example.test", credentials: [API_TOKEN]}
    fake: {command: [./fake], base_url: "http://127.0.0.1:${PORT}"}
    normalizers: [headers.volatile]
`
	for _, m := range more {
		cfg += "    " + m + "\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "cassette.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
