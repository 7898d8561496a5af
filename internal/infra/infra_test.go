package infra

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
	"strings"
	"syscall"
	"testing"

	"github.com/cassette-dev/cassette/internal/outcome"
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
		reason outcome.Reason
		class  string
	}{
		{"refused", refused, outcome.ERealUnreachable, "connection refused"},
		{"untrusted", untrusted, outcome.ERealTLS, "unknown authority"},
		{"mismatch", mismatch, outcome.ERealTLS, "host name"},
		{"expired", fmt.Errorf("get: %w", x509.CertificateInvalidError{Reason: x509.Expired}), outcome.ERealTLS, "expired"},
		{"dns", &net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: "api.invalid", IsNotFound: true}}, outcome.ERealDNS, "DNS"},
		{"reset", &net.OpError{Op: "read", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, outcome.ERealReset, "reset"},
		{"cut short", fmt.Errorf("reading body: %w", io.ErrUnexpectedEOF), outcome.ERealReset, "reset"},
		{"timeout", fmt.Errorf("get: %w", context.DeadlineExceeded), outcome.ETimeout, "timed out"},
		{"unknown", errors.New("something else"), outcome.ERealUnreachable, "could not be reached"},
	} {
		f := ClassifyTransport(tc.err)
		if f.Reason != tc.reason || !strings.Contains(f.Class, tc.class) || f.Reason.Exit() != outcome.ExitInfra {
			t.Errorf("%s: %v → %+v, want %s (%s), exit 3", tc.name, tc.err, f, tc.reason, tc.class)
		}
	}
	// Every 5xx fails a recording (specs/002), not only the ones the retry
	// policy retries (specs/000).
	// 401 and 403 are the credentials refused (#35: a recording of them
	// overwrote a good cassette), not the service's answer to keep.
	for code, want := range map[int]outcome.Reason{401: outcome.ERealAuth, 403: outcome.ERealAuth, 429: outcome.ERateLimit, 408: outcome.ETimeout, 500: outcome.EProvider5xx, 503: outcome.EProvider5xx, 529: outcome.EProvider5xx,
		501: outcome.EProvider5xx, 505: outcome.EProvider5xx, 507: outcome.EProvider5xx, 599: outcome.EProvider5xx} {
		if f, ok := ClassifyStatus(code); !ok || f.Reason != want {
			t.Errorf("status %d → %+v %v, want %s", code, f, ok, want)
		}
	}
	if f, _ := ClassifyStatus(501); f.Class != "501 Not Implemented" {
		t.Errorf("501 is %q", f.Class)
	}
	for _, code := range []int{200, 404, 409, 499, 600} {
		if _, ok := ClassifyStatus(code); ok {
			t.Errorf("status %d is the service's answer, not a failure", code)
		}
	}
	if a := (Failure{Reason: outcome.ERealTLS, Class: "TLS: certificate signed by an unknown authority"}).Advice(); !strings.Contains(a, "real.ca_file") {
		t.Errorf("advice %q", a)
	}
}
