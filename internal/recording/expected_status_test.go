package recording

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// TestExpectedFailingStatusIsRecorded: a scenario that answers 503 on
// purpose (status: 503 in cassette.yaml) is recorded at the first answer,
// not retried and not refused; the same cassette recorded again (refresh)
// expects it again; another scenario answering 503 is still refused.
func TestExpectedFailingStatusIsRecorded(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	sl := &sleeper{}
	p := DefaultPolicy()
	p.Sleep = sl.Sleep
	opts := HTTPOptions{Meta: Meta{Adapter: "shop", Now: fixedNow}, BaseURL: srv.URL, Transport: srv.Client().Transport, Policy: &p,
		Scenarios: []Scenario{{Name: "down", Path: "/", Status: 503}}}
	recs, err := RecordHTTP(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Cassette.Interactions[0].Response.Code != 503 || n.Load() != 1 || len(sl.waits) != 0 {
		t.Fatalf("recordings %d, requests %d, waits %v", len(recs), n.Load(), sl.waits)
	}
	if _, err := RerecordHTTP(context.Background(), recs[0].Cassette, opts); err != nil {
		t.Errorf("re-recording a cassette that holds a 503 on purpose: %v", err)
	}
	opts.Scenarios = []Scenario{{Name: "list", Path: "/"}}
	if _, err := RecordHTTP(context.Background(), opts); outcome.AsError(err).Reason != outcome.EProvider5xx {
		t.Errorf("a 503 nobody expected: err = %v, want E_PROVIDER_5XX", err)
	}
}

// TestRecordCLIAllowStatus: behind the recording proxy, a 500 the command
// gets on purpose is recorded with --allow-status 500, and refused without.
func TestRecordCLIAllowStatus(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		missingTool(t, "curl not installed")
	}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	}))
	defer srv.Close()
	dir := t.TempDir()
	rec := func(allow []int) (*cassettes.Cassette, error) {
		return RecordCLI(context.Background(), CLIOptions{
			Meta:    Meta{Adapter: "curl", Scenario: "boom", Now: fixedNow},
			Command: "curl", Args: []string{"-sS", srv.URL + "/boom"},
			Environ:   []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir},
			Intercept: ProxyInterceptor(ProxyConfig{CADir: filepath.Join(dir, "ca"), Transport: srv.Client().Transport.(*http.Transport).Clone(), AllowStatus: allow}),
		})
	}
	if _, err := rec(nil); outcome.AsError(err).Reason != outcome.EProvider5xx {
		t.Errorf("without --allow-status: err = %v, want E_PROVIDER_5XX", err)
	}
	c, err := rec([]int{500})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Interactions) != 1 || c.Interactions[0].Response.Code != 500 {
		t.Errorf("recorded %+v", c.Interactions)
	}
	if got := ExpectedStatuses(c); len(got) != 1 || got[0] != 500 {
		t.Errorf("ExpectedStatuses = %v", got)
	}
}

// TestAnyFiveHundredFails: a 5xx the retry policy does not retry (501, 505)
// is still the service failing (specs/002: E_PROVIDER_5XX), refused at its
// first answer, directly and behind the recording proxy; declared on
// purpose it is recorded, and a cassette holding it expects it again.
func TestAnyFiveHundredFails(t *testing.T) {
	for _, code := range []int{501, 505} {
		var n atomic.Int32
		srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			http.Error(w, "no", code)
		}))
		sl := &sleeper{}
		p := DefaultPolicy()
		p.Sleep = sl.Sleep
		opts := HTTPOptions{Meta: Meta{Adapter: "shop", Now: fixedNow}, BaseURL: srv.URL, Transport: srv.Client().Transport, Policy: &p,
			Scenarios: []Scenario{{Name: "list", Path: "/"}}}
		recs, err := RecordHTTP(context.Background(), opts)
		if ce := outcome.AsError(err); ce == nil || ce.Reason != outcome.EProvider5xx || ce.Exit() != outcome.ExitInfra {
			t.Errorf("%d: err = %v, want E_PROVIDER_5XX (exit 3)", code, err)
		}
		if len(recs) != 0 || n.Load() != 1 || len(sl.waits) != 0 {
			t.Errorf("%d: recordings %d, requests %d (not retried: 1), waits %v", code, len(recs), n.Load(), sl.waits)
		}
		opts.Scenarios = []Scenario{{Name: "list", Path: "/", Status: code}}
		if recs, err = RecordHTTP(context.Background(), opts); err != nil || len(recs) != 1 {
			t.Fatalf("%d on purpose: %v", code, err)
		}
		if _, err := RerecordHTTP(context.Background(), recs[0].Cassette, opts); err != nil {
			t.Errorf("%d: re-recording a cassette that holds it on purpose: %v", code, err)
		}
		if got := ExpectedStatuses(recs[0].Cassette); len(got) != 1 || got[0] != code {
			t.Errorf("%d: ExpectedStatuses = %v", code, got)
		}
		srv.Close()
	}
}
