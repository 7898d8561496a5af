package cassettes

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestClassifyTransport: the one classification of failures to reach a
// real service, on real errors where this machine can make them (a refused
// connection, an untrusted certificate, a name mismatch) and on the errors
// the standard library wraps otherwise.
func TestClassifyTransport(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	_, refused := http.Get("http://127.0.0.1:1/")
	_, untrusted := http.Get(srv.URL)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	tr := srv.Client().Transport.(*http.Transport).Clone()
	tr.TLSClientConfig.ServerName = "wrong.example"
	_, mismatch := (&http.Client{Transport: tr}).Get(srv.URL)
	for _, tc := range []struct {
		name   string
		err    error
		reason Reason
		class  string
	}{
		{"refused", refused, ERealUnreachable, "connection refused"},
		{"untrusted", untrusted, ERealTLS, "unknown authority"},
		{"mismatch", mismatch, ERealTLS, "host name"},
		{"expired", fmt.Errorf("get: %w", x509.CertificateInvalidError{Reason: x509.Expired}), ERealTLS, "expired"},
		{"dns", &net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: "api.invalid", IsNotFound: true}}, ERealDNS, "DNS"},
		{"reset", &net.OpError{Op: "read", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, ERealReset, "reset"},
		{"cut short", fmt.Errorf("reading body: %w", io.ErrUnexpectedEOF), ERealReset, "reset"},
		{"timeout", fmt.Errorf("get: %w", context.DeadlineExceeded), ETimeout, "timed out"},
		{"unknown", errors.New("something else"), ERealUnreachable, "could not be reached"},
	} {
		f := ClassifyTransport(tc.err)
		if f.Reason != tc.reason || !strings.Contains(f.Class, tc.class) || f.Reason.Exit() != ExitInfra {
			t.Errorf("%s: %v → %+v, want %s (%s), exit 3", tc.name, tc.err, f, tc.reason, tc.class)
		}
	}
	for code, want := range map[int]Reason{429: ERateLimit, 408: ETimeout, 500: EProvider5xx, 503: EProvider5xx, 529: EProvider5xx} {
		if f, ok := ClassifyStatus(code); !ok || f.Reason != want {
			t.Errorf("status %d → %+v %v, want %s", code, f, ok, want)
		}
	}
	for _, code := range []int{200, 404, 401, 501} {
		if _, ok := ClassifyStatus(code); ok {
			t.Errorf("status %d is the service's answer, not a failure", code)
		}
	}
	if a := (Failure{Reason: ERealTLS, Class: "TLS: certificate signed by an unknown authority"}).Advice(); !strings.Contains(a, "real.ca_file") {
		t.Errorf("advice %q", a)
	}
}

// TestCLICassetteNeedsNoVersion: `version` is go-vcr's, for HTTP cassettes;
// an absent number is reported missing, never as the value 0;
// a CLI cassette without it loads, and an HTTP cassette without it is told
// the field is missing, never that `0` is not supported.
func TestCLICassetteNeedsNoVersion(t *testing.T) {
	dir := t.TempDir()
	cfg := &Config{Adapters: map[string]*Adapter{"greet": {Kind: KindCLI}, "api": {Kind: KindHTTP}}, Dir: dir}
	write := func(rel, data string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cli := write("cassettes/greet/hi.yaml", "cassette: 1\nadapter: greet\nscenario: hi\nkind: cli\ninput: {command: greet}\noutput: {stdout: \"hi\\n\", exit_code: 0}\n")
	if _, err := Load(cli, LoadOptions{Config: cfg}); err != nil {
		t.Errorf("a CLI cassette without version: %v", err)
	}
	api := write("cassettes/api/get.yaml", "cassette: 1\nadapter: api\nscenario: get\nkind: http\ninteractions:\n  - request: {method: GET, url: \"http://x.example/\"}\n    response: {code: 200}\n")
	_, err := Load(api, LoadOptions{Config: cfg})
	if err == nil || strings.Contains(err.Error(), "`0`") || !strings.Contains(err.Error(), "version") {
		t.Errorf("an HTTP cassette without version: %v; want version named as missing", err)
	}
	nocode := write("cassettes/api/nocode.yaml", "cassette: 1\nversion: 2\nadapter: api\nscenario: nocode\nkind: http\ninteractions:\n  - request: {method: GET, url: \"http://x.example/\"}\n    response: {body: ok}\n")
	_, err = Load(nocode, LoadOptions{Config: cfg})
	if err == nil || strings.Contains(err.Error(), "`0`") || !strings.Contains(err.Error(), "response.code: is missing") {
		t.Errorf("a response without code: %v; want it named as missing", err)
	}
}
