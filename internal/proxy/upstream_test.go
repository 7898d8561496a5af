package proxy

import (
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// TestUpstreamFailuresAreRecorded: a recording proxy that cannot complete a
// request against the real side says so in Failures, classified, while the
// client still gets an answer (a 502 naming the reason, or the relayed
// status). A request that did complete leaves no failure.
func TestUpstreamFailuresAreRecorded(t *testing.T) {
	untrusted := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer untrusted.Close()
	unavailable := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "maintenance", http.StatusServiceUnavailable)
	}))
	defer unavailable.Close()
	reset := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		_, _ = w.Write([]byte("partial"))
		w.(http.Flusher).Flush()
		c, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			_ = c.(*net.TCPConn).SetLinger(0)
			c.Close()
		}
	}))
	defer reset.Close()
	fine := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") }))
	defer fine.Close()

	for _, tc := range []struct {
		name, upstream string
		reason         outcome.Reason
		class          string
	}{
		{"untrusted certificate", untrusted.URL, outcome.ERealTLS, "unknown authority"},
		{"503", unavailable.URL, outcome.EProvider5xx, "503 Service Unavailable"},
		{"reset mid-body", reset.URL, outcome.ERealReset, "reset"},
		{"refused", "http://127.0.0.1:1", outcome.ERealUnreachable, "connection refused"},
		{"fine", fine.URL, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := startProxy(t, Options{Mode: ModeRecord, Upstream: tc.upstream})
			resp, err := http.Get(p.URL() + "/things?token=s3cr3t")
			if err == nil {
				_, _ = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			_ = p.Flush(t.Context())
			fails := p.Failures()
			if tc.reason == "" {
				if len(fails) != 0 {
					t.Fatalf("failures = %v, want none", fails)
				}
				return
			}
			if len(fails) != 1 || fails[0].Reason != tc.reason || !strings.Contains(fails[0].Class, tc.class) {
				t.Fatalf("failures = %+v, want one %s (%s)", fails, tc.reason, tc.class)
			}
			if strings.Contains(fails[0].String(), "s3cr3t") {
				t.Errorf("the failure quotes the query: %s", fails[0])
			}
		})
	}
}

// TestUpstreamChainsThroughCorporateProxy: with HTTPS_PROXY set in the
// cassette process's environment, the proxy reaches the real service
// through that proxy (CONNECT), trusting the private CA of real.ca_file.
func TestUpstreamChainsThroughCorporateProxy(t *testing.T) {
	real := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "from the real service") }))
	defer real.Close()
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: real.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	// The corporate proxy resolves names itself: example.com (the name in
	// httptest's certificate) is the real service. Loopback targets are
	// never proxied (NO_PROXY's built-in rule), so the test uses a name.
	_, port, _ := net.SplitHostPort(real.Listener.Addr().String())
	var connects atomic.Int64
	corp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect || r.Host != "example.com:"+port {
			http.Error(w, "corporate proxy: CONNECT example.com only, got "+r.Method+" "+r.Host, http.StatusForbidden)
			return
		}
		connects.Add(1)
		up, err := net.Dial("tcp", real.Listener.Addr().String())
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		w.WriteHeader(http.StatusOK)
		c, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			up.Close()
			return
		}
		go func() { _, _ = io.Copy(up, buf); up.Close() }()
		_, _ = io.Copy(c, up)
		c.Close()
	}))
	defer corp.Close()
	env := map[string]string{"HTTPS_PROXY": corp.URL}
	tr, err := Upstream{CAFile: caFile, LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}.Transport()
	if err != nil {
		t.Fatal(err)
	}
	p := startProxy(t, Options{Mode: ModeRecord, Upstream: "https://example.com:" + port, Transport: tr})
	resp, err := http.Get(p.URL() + "/hello")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "from the real service" || connects.Load() != 1 {
		t.Fatalf("status %d body %q connects %d; want 200 from the real service through one CONNECT", resp.StatusCode, body, connects.Load())
	}
	if f := p.Failures(); len(f) != 0 {
		t.Errorf("failures: %v", f)
	}
}

// TestUpstreamTransportErrors: a CA file that holds no certificate, or half
// of a client certificate pair, is a usage error naming the field.
func TestUpstreamTransportErrors(t *testing.T) {
	junk := filepath.Join(t.TempDir(), "junk.pem")
	if err := os.WriteFile(junk, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		u    Upstream
		want string
	}{
		{Upstream{CAFile: junk, Field: "adapters.a.real"}, "adapters.a.real.ca_file"},
		{Upstream{CAFile: junk + ".missing"}, "real.ca_file"},
		{Upstream{ClientCert: junk, Field: "adapters.a.real"}, "adapters.a.real.client_cert and adapters.a.real.client_key go together"},
		{Upstream{ClientCert: junk, ClientKey: junk}, "real.client_cert"},
	} {
		_, err := tc.u.Transport()
		ce := outcome.AsError(err)
		if ce == nil || ce.Reason != outcome.EUsage || !strings.Contains(ce.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want E_USAGE naming %s", tc.u, err, tc.want)
		}
	}
	if w := (Upstream{InsecureSkipVerify: true, Field: "adapters.a.real"}).Warning(); !strings.HasPrefix(w, "warning: adapters.a.real.insecure_skip_verify is set") {
		t.Errorf("warning = %q", w)
	}
	if w := (Upstream{}).Warning(); w != "" {
		t.Errorf("warning without the opt-in: %q", w)
	}
}

// TestReplayFrontDoor: a cassette recorded through the reverse proxy is
// replayed by a proxy started without --upstream (replay never contacts
// it): with one recorded host, origin-form requests are served from it.
func TestReplayFrontDoor(t *testing.T) {
	real := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "recorded "+r.URL.Path) }))
	rec := startProxy(t, Options{Mode: ModeRecord, Upstream: real.URL})
	resp, err := http.Get(rec.URL() + "/pets")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if err := rec.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	c := &cassettes.Cassette{Kind: cfgschema.KindHTTP, Interactions: rec.Interactions()}
	real.Close() // replay must not need it

	p := startProxy(t, Options{Mode: ModeReplay, CA: testCA(t), Cassettes: []*cassettes.Cassette{c}})
	resp, err = http.Get(p.URL() + "/pets")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "recorded /pets" {
		t.Fatalf("front door: %d %q, want 200 %q", resp.StatusCode, body, "recorded /pets")
	}

	// Two hosts: the front door cannot choose, and says which hosts there are.
	two := *c
	other := c.Interactions[0]
	other.Request.URL = "http://other.example/pets"
	two.Interactions = append(append([]cassettes.Interaction(nil), c.Interactions...), other)
	p2 := startProxy(t, Options{Mode: ModeReplay, CA: testCA(t), Cassettes: []*cassettes.Cassette{&two}})
	resp, err = http.Get(p2.URL() + "/pets")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "http://other.example") {
		t.Fatalf("two hosts: %d %q", resp.StatusCode, body)
	}
}
