package recording

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
)

const plantedValue = "pl4nted-Value/with+chars" // declared, matches no known format

// echoServer is a real TLS server that answers with what it was sent.
func echoServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Echo-Header", r.Header.Get("Authorization"))
		w.Header().Set("Set-Cookie", "session=abcdef123456")
		io.WriteString(w, `{"method":"`+r.Method+`","uri":"`+r.URL.RequestURI()+`","body":`+string(body)+`}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestRecordHTTP(t *testing.T) {
	srv := echoServer(t)
	yes := true
	recs, err := RecordHTTP(context.Background(), HTTPOptions{
		Meta:        Meta{Adapter: "shop", Normalizers: []string{"headers.volatile"}, Now: fixedNow},
		BaseURL:     srv.URL + "/api/",
		Headers:     map[string]string{"Authorization": "Bearer ${SHOP_TOKEN}", "Accept": "application/json"},
		Credentials: []string{"SHOP_TOKEN"},
		LookupEnv:   env(map[string]string{"SHOP_TOKEN": plantedValue}),
		Transport:   srv.Client().Transport,
		Scenarios: []Scenario{
			{Name: "list-items", Path: "/items?page=2"},
			{Name: "create-item", Method: "post", Path: "/items", Body: `{"name":"x"}`, Replayable: &yes},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("got %d recordings, want 2", len(recs))
	}
	tests := []struct {
		i                  int
		scenario, method   string
		url, reqBody, resp string
	}{
		{0, "list-items", "GET", srv.URL + "/api/items?page=2", "", `{"method":"GET","uri":"/api/items?page=2","body":}`},
		{1, "create-item", "POST", srv.URL + "/api/items", `{"name":"x"}`, `{"method":"POST","uri":"/api/items","body":{"name":"x"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			c := recs[tt.i].Cassette
			if c.Scenario != tt.scenario || c.Adapter != "shop" || c.Kind != cfgschema.KindHTTP || c.RecordedAt == nil || !c.RecordedAt.Equal(fixedNow()) {
				t.Errorf("metadata = %+v", c)
			}
			if len(c.Interactions) != 1 {
				t.Fatalf("%d interactions", len(c.Interactions))
			}
			in := c.Interactions[0]
			if in.Request.Method != tt.method || in.Request.URL != tt.url || string(in.Request.Body) != tt.reqBody {
				t.Errorf("request = %s %s %q", in.Request.Method, in.Request.URL, in.Request.Body)
			}
			if got := in.Request.Headers.Get("Authorization"); got != "[REDACTED]" {
				t.Errorf("Authorization recorded as %q", got)
			}
			if got := in.Response.Headers.Get("X-Echo-Header"); got != "Bearer [REDACTED]" {
				t.Errorf("echoed credential recorded as %q", got)
			}
			if in.Response.Code != 200 || string(in.Response.Body) != tt.resp || in.Response.ContentLength != int64(len(tt.resp)) {
				t.Errorf("response = %d %q (length %d)", in.Response.Code, in.Response.Body, in.Response.ContentLength)
			}
			if l := recs[tt.i].Live; len(l.Calls) != 1 || l.Calls[0].Attempts != 1 || l.ExecutionMode != "live_record" {
				t.Errorf("live = %+v", l)
			}
		})
	}
	if recs[1].Cassette.Replayable == nil || !*recs[1].Cassette.Replayable {
		t.Errorf("replayable flag not copied")
	}
}

func TestRecordHTTPRetriesThenFails(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	sl := &sleeper{}
	p := DefaultPolicy()
	p.Sleep = sl.Sleep
	recs, err := RecordHTTP(context.Background(), HTTPOptions{
		Meta: Meta{Adapter: "shop", Now: fixedNow}, BaseURL: srv.URL, Transport: srv.Client().Transport, Policy: &p,
		Scenarios: []Scenario{{Name: "list", Path: "/"}},
	})
	var ce *outcome.Error
	if !errors.As(err, &ce) || ce.Reason != outcome.ERateLimit {
		t.Fatalf("err = %v, want E_RATE_LIMIT", err)
	}
	if len(recs) != 0 || n.Load() != 3 || len(sl.waits) != 2 {
		t.Errorf("recordings %d, requests %d, waits %v", len(recs), n.Load(), sl.waits)
	}
	if !strings.Contains(ce.NextStep, "cassette record") {
		t.Errorf("next step = %q", ce.NextStep)
	}
}

func TestRecordHTTPMissingVariable(t *testing.T) {
	_, err := RecordHTTP(context.Background(), HTTPOptions{
		Meta: Meta{Adapter: "shop"}, BaseURL: "https://127.0.0.1:1",
		Headers:   map[string]string{"Authorization": "Bearer ${SHOP_TOKEN}"},
		LookupEnv: env(nil), Scenarios: []Scenario{{Name: "list", Path: "/"}},
	})
	var ce *outcome.Error
	if !errors.As(err, &ce) || ce.Reason != outcome.EMissingConfig || !strings.Contains(ce.Error(), "SHOP_TOKEN") {
		t.Fatalf("err = %v, want E_MISSING_CONFIG naming SHOP_TOKEN", err)
	}
}

func TestRerecordHTTP(t *testing.T) {
	srv := echoServer(t)
	old := &cassettes.Cassette{Adapter: "shop", Scenario: "create", Path: "cassettes/shop/create.yaml", Kind: cfgschema.KindHTTP,
		Interactions: []cassettes.Interaction{{Request: cassettes.Request{Method: "POST",
			URL:     "https://api.shop.example/v1/items?x=1",
			Headers: http.Header{"Authorization": {"[REDACTED]"}, "Content-Type": {"application/json"}},
			Body:    `{"a":1}`}}}}
	rec, err := RerecordHTTP(context.Background(), old, HTTPOptions{
		BaseURL: srv.URL, Transport: srv.Client().Transport, Meta: Meta{Now: fixedNow},
		Headers: map[string]string{"Authorization": "Bearer ${T}"}, Credentials: []string{"T"},
		LookupEnv: env(map[string]string{"T": plantedValue}),
	})
	if err != nil {
		t.Fatal(err)
	}
	in := rec.Cassette.Interactions[0]
	if want := `{"method":"POST","uri":"/v1/items?x=1","body":{"a":1}}`; string(in.Response.Body) != want {
		t.Errorf("body = %s, want %s", in.Response.Body, want)
	}
	if in.Response.Headers.Get("X-Echo-Header") != "Bearer [REDACTED]" || in.Request.Headers.Get("Content-Type") != "application/json" {
		t.Errorf("headers: req %v resp %v", in.Request.Headers, in.Response.Headers)
	}
	if rec.Cassette.Path != old.Path {
		t.Errorf("path = %q", rec.Cassette.Path)
	}
}

// TestSecretsNeverReachDisk plants a token in a request header, a query
// string, a JSON body, CLI stdout and an environment variable, records, saves
// everything under one directory and greps all of it.
func TestSecretsNeverReachDisk(t *testing.T) {
	ghToken := "ghp_" + "R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4z" // a known format nobody declared
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Seen-Header", r.Header.Get("Authorization"))
		w.Header().Set("X-Seen-Query", r.URL.RawQuery)
		io.WriteString(w, `{"seen":`+string(body)+`,"query":"`+r.URL.Query().Get("q")+`","leaked":"`+ghToken+`"}`)
	}))
	defer srv.Close()
	vars := map[string]string{"API_TOKEN": plantedValue}
	dir := t.TempDir()

	recs, err := RecordHTTP(context.Background(), HTTPOptions{
		Meta:        Meta{Adapter: "api", Now: fixedNow},
		BaseURL:     srv.URL,
		Headers:     map[string]string{"Authorization": "token ${API_TOKEN}", "X-Client": "c-${API_TOKEN}"},
		Credentials: []string{"API_TOKEN"}, LookupEnv: env(vars), Transport: srv.Client().Transport,
		Scenarios: []Scenario{{Name: "planted", Method: "POST",
			Path: "/search?q=${API_TOKEN}&access_token=${API_TOKEN}",
			Body: `{"token":"${API_TOKEN}","nested":{"t":"${API_TOKEN}"}}`}},
	})
	if err != nil {
		t.Fatal(err)
	}
	cli, err := RecordCLI(context.Background(), CLIOptions{
		Meta:    Meta{Adapter: "tool", Scenario: "planted", Now: fixedNow},
		Command: "sh", Args: []string{"-c", `echo "stdout $API_TOKEN"; echo "stderr $API_TOKEN" >&2; echo "gh ` + ghToken + `"`, "--token=${API_TOKEN}"},
		Stdin:       []byte("stdin holds no credential: that is refused (TestRecordCLIRefusesCredentialInStdin)\n"),
		Credentials: []string{"API_TOKEN"}, LookupEnv: env(vars),
		Environ: []string{"PATH=" + os.Getenv("PATH"), "API_TOKEN=" + plantedValue},
	})
	if err != nil {
		t.Fatal(err)
	}
	red := redact.New(nil, vars)
	for _, c := range []*cassettes.Cassette{recs[0].Cassette, cli} {
		c.Path = filepath.Join(dir, "cassettes", c.Adapter, c.Scenario+".yaml")
		if err := cassettes.Save(c, cassettes.SaveOptionsFor(red)); err != nil {
			t.Fatal(err)
		}
	}
	forbidden := []string{plantedValue, url.QueryEscape(plantedValue), url.PathEscape(plantedValue),
		base64.StdEncoding.EncodeToString([]byte(plantedValue)), ghToken}
	files := 0
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, f := range forbidden {
			if strings.Contains(string(data), f) {
				t.Errorf("%s contains a planted secret (form %d)", p, strings.Index(strings.Join(forbidden, "\x00"), f))
			}
		}
		if !strings.Contains(string(data), "[REDACTED]") {
			t.Errorf("%s has no [REDACTED] marker: the planted values were not where the test thinks", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files != 2 {
		t.Errorf("%d files written, want 2", files)
	}
	// The planted values really went over the wire: the server saw them.
	if got := recs[0].Cassette.Interactions[0].Response.Headers.Get("X-Seen-Header"); got != "token [REDACTED]" {
		t.Errorf("X-Seen-Header = %q", got)
	}
}

// BenchmarkRecordHTTP measures recording one scenario (request, capture,
// redaction, leak scan) against a plain GET of the same bytes from the same
// local server, as a ratio measured in the same run.
func BenchmarkRecordHTTP(b *testing.B) {
	payload := strings.Repeat(`{"id":1,"name":"item"},`, 2000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, payload) }))
	defer srv.Close()
	opts := HTTPOptions{Meta: Meta{Adapter: "a", Now: time.Now}, BaseURL: srv.URL, Transport: srv.Client().Transport,
		Credentials: []string{"T"}, LookupEnv: env(map[string]string{"T": plantedValue}),
		Scenarios: []Scenario{{Name: "s", Path: "/"}}}
	b.SetBytes(int64(len(payload)))
	var base, subj time.Duration
	for b.Loop() {
		t0 := time.Now()
		resp, err := srv.Client().Get(srv.URL)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		t1 := time.Now()
		if _, err := RecordHTTP(context.Background(), opts); err != nil {
			b.Fatal(err)
		}
		base, subj = base+t1.Sub(t0), subj+time.Since(t1)
	}
	b.ReportMetric(float64(subj)/float64(base), "x-plain-get-time")
}

// Retry telemetry is per live call (specs/000): two requests retried once
// each are two calls of 2 attempts and one 500 ms backoff, not one of 4
// attempts; two requests answered at once are two calls of 1 attempt.
func TestRerecordHTTPTelemetryPerCall(t *testing.T) {
	var failedOnce sync.Map // path → true once it answered 503
	flaky := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, seen := failedOnce.LoadOrStore(r.URL.Path, true); !seen {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ok")
	}))
	defer flaky.Close()
	steady := echoServer(t)
	old := &cassettes.Cassette{Adapter: "shop", Scenario: "two", Kind: cfgschema.KindHTTP, Interactions: []cassettes.Interaction{
		{Request: cassettes.Request{Method: "GET", URL: "https://api.shop.example/a"}},
		{Request: cassettes.Request{Method: "GET", URL: "https://api.shop.example/b"}}}}
	for _, tc := range []struct {
		name string
		srv  *httptest.Server
		want []Telemetry
	}{
		{"each retried once", flaky, []Telemetry{{Attempts: 2, RetryBackoffMS: []int64{500}, Statuses: []int{503, 200}}, {Attempts: 2, RetryBackoffMS: []int64{500}, Statuses: []int{503, 200}}}},
		{"no retry", steady, []Telemetry{{Attempts: 1, Statuses: []int{200}}, {Attempts: 1, Statuses: []int{200}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sl := &sleeper{}
			p := DefaultPolicy()
			p.Sleep = sl.Sleep
			rec, err := RerecordHTTP(context.Background(), old, HTTPOptions{BaseURL: tc.srv.URL, Transport: tc.srv.Client().Transport, Policy: &p, Meta: Meta{Now: fixedNow}})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(rec.Live.Calls, tc.want) {
				t.Errorf("calls = %+v, want %+v", rec.Live.Calls, tc.want)
			}
		})
	}
}
