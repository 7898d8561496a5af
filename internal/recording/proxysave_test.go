package recording

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/proxy"
	"github.com/cassette-dev/cassette/internal/redact"
)

// call is one request a client sends through the recording proxy.
type call struct {
	method, path, body string
	header             http.Header
}

// recordThrough starts a reverse recording proxy in front of upstream,
// redacting with red, sends the calls through it in order, and stops it.
func recordThrough(t *testing.T, upstream string, red *redact.Redactor, calls ...call) *proxy.Proxy {
	t.Helper()
	p, err := proxy.New(proxy.Options{Mode: proxy.ModeRecord, Upstream: upstream, Redact: red})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		req, err := http.NewRequest(c.method, p.URL()+c.path, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		for k, vs := range c.header {
			req.Header[k] = vs
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSaveProxyWritesAfterBefore: what the proxy recorded is saved after
// the interactions kept before it (replay-with-new-episodes), numbered
// from 0, with the declared credential scrubbed, and the file loads.
func TestSaveProxyWritesAfterBefore(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "item "+strings.TrimPrefix(r.URL.Path, "/item/")+" for tok-decl-123456")
	}))
	defer up.Close()
	red := redact.New(nil, map[string]string{"SHOP_TOKEN": "tok-decl-123456"})
	p := recordThrough(t, up.URL, red, call{method: "GET", path: "/item/3"})
	path := filepath.Join(t.TempDir(), "cassettes", "shop", "items.yaml")
	before := []cassettes.Interaction{{ID: 7, Request: cassettes.Request{Method: "GET", URL: up.URL + "/item/1"}, Response: cassettes.Response{Code: 200, Body: "item 1"}}}
	c, err := SaveProxy(p, ProxySave{Meta: Meta{Adapter: "shop", Scenario: "items", Now: fixedNow}, Path: path, Before: before, Redactor: red})
	if err != nil {
		t.Fatal(err)
	}
	got, err := cassettes.Load(path, cassettes.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Path != path || len(got.Interactions) != 2 || got.Interactions[0].ID != 0 || got.Interactions[1].ID != 1 ||
		string(got.Interactions[1].Response.Body) != "item 3 for [REDACTED]" || got.Adapter != "shop" || got.Scenario != "items" {
		t.Errorf("saved %+v", got.Interactions)
	}
}

// TestSaveProxyRefusesAFailedRecording: a recording during which the real
// service failed is not saved; the error is the failure's class (exit 3)
// with the command to run again. A recording of nothing saves nothing.
func TestSaveProxyRefusesAFailedRecording(t *testing.T) {
	red := redact.New(nil, nil)
	p := recordThrough(t, "http://127.0.0.1:1", red, call{method: "GET", path: "/things"})
	path := filepath.Join(t.TempDir(), "x.yaml")
	c, err := SaveProxy(p, ProxySave{Path: path, Redactor: red, Again: "cassette proxy --mode record"})
	ce := outcome.AsError(err)
	if c != nil || ce == nil || ce.Reason != outcome.ERealUnreachable || ce.Reason.Exit() != outcome.ExitInfra ||
		!strings.HasPrefix(ce.NextStep, "cassette proxy --mode record") || strings.Contains(ce.NextStep, "#") || !strings.Contains(ce.Message, "first check the network") || len(ce.Problems) != 1 {
		t.Fatalf("SaveProxy = %v, %v (next %q), want E_REAL_UNREACHABLE", c, err, ce.NextStep)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed recording was written: %v", err)
	}

	empty := recordThrough(t, "http://127.0.0.1:1", red)
	if c, err := SaveProxy(empty, ProxySave{Path: path, Redactor: red}); c != nil || err != nil {
		t.Errorf("nothing recorded: %v, %v", c, err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an empty recording was written: %v", err)
	}
}
