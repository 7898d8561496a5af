package infra

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// Failure is one classified failure to reach a real service: the one
// classification record, verify and refresh share. Every class is
// infrastructure (exit 3): a recording during which one happened is not a
// recording of the service, so it never becomes a cassette, a drift, a
// refresh branch, a pull request or an issue.
type Failure struct {
	Reason outcome.Reason // E_REAL_UNREACHABLE, E_REAL_DNS, E_REAL_TLS, E_REAL_RESET, E_TIMEOUT, E_PROVIDER_5XX, E_RATE_LIMIT
	// Class says what happened in a few words ("connection refused",
	// "TLS: certificate signed by an unknown authority", "503 Service
	// Unavailable").
	Class string
}

// ClassifyTransport classifies the error of a request that got no complete
// response (the connection, the TLS handshake or the body failed). Unknown
// errors are E_REAL_UNREACHABLE.
func ClassifyTransport(err error) Failure {
	var (
		unknownCA   x509.UnknownAuthorityError
		hostErr     x509.HostnameError
		invalid     x509.CertificateInvalidError
		verifyErr   *tls.CertificateVerificationError
		recordErr   tls.RecordHeaderError
		alert       tls.AlertError
		dnsErr      *net.DNSError
		netErr      net.Error
		unknownCAp  *x509.UnknownAuthorityError
		hostErrp    *x509.HostnameError
		invalidp    *x509.CertificateInvalidError
		certInvalid = func(r x509.InvalidReason) Failure {
			if r == x509.Expired {
				return Failure{outcome.ERealTLS, "TLS: the certificate has expired or is not yet valid"}
			}
			return Failure{outcome.ERealTLS, "TLS: the certificate is not valid"}
		}
	)
	switch {
	case err == nil:
		return Failure{}
	case errors.As(err, &unknownCA), errors.As(err, &unknownCAp):
		return Failure{outcome.ERealTLS, "TLS: certificate signed by an unknown authority"}
	case errors.As(err, &hostErr), errors.As(err, &hostErrp):
		return Failure{outcome.ERealTLS, "TLS: the certificate is not valid for this host name"}
	case errors.As(err, &invalid):
		return certInvalid(invalid.Reason)
	case errors.As(err, &invalidp):
		return certInvalid(invalidp.Reason)
	case errors.As(err, &verifyErr), errors.As(err, &recordErr), errors.As(err, &alert):
		return Failure{outcome.ERealTLS, "TLS: the handshake failed"}
	case errors.As(err, &dnsErr):
		return Failure{outcome.ERealDNS, "DNS: the host name does not resolve"}
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return Failure{outcome.ETimeout, "timed out"}
	case errors.Is(err, syscall.ECONNREFUSED):
		return Failure{outcome.ERealUnreachable, "connection refused"}
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNABORTED),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return Failure{outcome.ERealReset, "the connection was closed or reset before the response was complete"}
	case strings.Contains(err.Error(), "tls: "), strings.Contains(err.Error(), "x509: "):
		return Failure{outcome.ERealTLS, "TLS: the handshake failed"}
	}
	return Failure{outcome.ERealUnreachable, "the service could not be reached"}
}

// ClassifyStatus classifies a response status that says the service failed
// rather than answered: 401 and 403 (the credentials were refused: a
// recording of that would overwrite a good cassette), 408 and 429 (after
// the retry policy, which retries them), and every 5xx (specs/002:
// "provider returned 5xx"). The retry policy retries only specs/000's list (500, 502, 503, 504, 529); any
// other 5xx (501, 505, …) fails at its first answer. ok is false for every
// other status, which is the service's real answer and is recorded. A
// status a scenario answers on purpose is the caller's to let through.
func ClassifyStatus(code int) (f Failure, ok bool) {
	class := http.StatusText(code)
	if code == 529 {
		class = "Site Overloaded"
	}
	class = strings.TrimSpace(strconv.Itoa(code) + " " + class)
	switch code {
	case http.StatusUnauthorized, http.StatusForbidden: // wrong or expired credentials: no answer of the service to keep
		return Failure{outcome.ERealAuth, class}, true
	case http.StatusTooManyRequests:
		return Failure{outcome.ERateLimit, class}, true
	case http.StatusRequestTimeout:
		return Failure{outcome.ETimeout, class}, true
	}
	if code >= 500 && code <= 599 {
		return Failure{outcome.EProvider5xx, class}, true
	}
	return Failure{}, false
}

// Advice says what to address before running the command again, for the
// message of an error of this class (the next step itself is only the
// command, so that it runs as printed).
func (f Failure) Advice() string {
	advice := "the service or the network failed; run it again later"
	switch {
	case f.Reason == outcome.ERealTLS && strings.Contains(f.Class, "unknown authority"):
		advice = "first trust the service's CA: real.ca_file in cassette.yaml or --upstream-ca FILE"
	case f.Reason == outcome.ERealTLS:
		advice = "first check the service's certificate (name, expiry) or the client certificate (real.client_cert)"
	case f.Reason == outcome.ERealDNS || f.Reason == outcome.ERealUnreachable:
		advice = "first check the network, real.base_url and HTTPS_PROXY"
	case f.Reason == outcome.ERateLimit || f.Reason == outcome.EProvider5xx:
		advice = "run it again once the service has recovered"
	case f.Reason == outcome.ERealAuth:
		advice = "first check the credentials (real.credentials and real.headers in cassette.yaml, and that the variables are set and current); a scenario whose refusal is the behaviour under test declares it (record --allow-status 401, or status: in the scenario)"
	case f.Reason == outcome.ERealUpgrade:
		advice = "first check the WebSocket URL, the credentials it needs, and that the service speaks WebSocket there"
	}
	return advice
}

// Upgrade is the failure of a WebSocket upgrade: the real service answered
// status (its status line) where 101 Switching Protocols was asked for, or
// a 101 whose handshake is not valid (why says how). A refused upgrade is
// never recorded: what the client got is not a session to replay.
func Upgrade(status, why string) Failure {
	if why != "" {
		return Failure{outcome.ERealUpgrade, "WebSocket upgrade: " + why}
	}
	return Failure{outcome.ERealUpgrade, "WebSocket upgrade refused: " + status}
}
