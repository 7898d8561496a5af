package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// The fault-injection commands of the scripts (testdata/script/fault*.txtar):
// a real upstream on a real socket whose behaviour a script switches, and a
// check that the next step an error printed runs as printed.

// upstream is the script's fault-injecting real service.
type upstream struct {
	mu    sync.Mutex
	mode  string
	certs map[string]*tls.Certificate // by mode: ok, untrusted, mismatch, expired
	srv   *httptest.Server
	stop  chan struct{} // closed at the script's end: a "slow" handler returns
}

var upstreams sync.Map // *testscript.TestScript → *upstream

// faultupstream starts an HTTPS service on 127.0.0.1 whose certificate is
// signed by a private CA: $UPSTREAM_URL is its base URL ($UPSTREAM_HOST its
// host:port, for a client given an address), $UPSTREAM_CA the
// CA's PEM file (what real.ca_file or --upstream-ca names), $CLIENT_CERT and
// $CLIENT_KEY a client certificate from the same CA. With "mtls" it
// requires that client certificate. It answers GET / with a small JSON
// body until `fault MODE` says otherwise.
func faultupstream(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) > 1 || (len(args) == 1 && args[0] != "mtls") {
		ts.Fatalf("usage: faultupstream [mtls]")
	}
	ca, caKey := newCA(ts, "cassette test CA")
	other, otherKey := newCA(ts, "some other CA")
	now := time.Now()
	u := &upstream{mode: "ok", stop: make(chan struct{}), certs: map[string]*tls.Certificate{
		"ok":        leaf(ts, ca, caKey, "127.0.0.1", now.Add(time.Hour), false),
		"untrusted": leaf(ts, other, otherKey, "127.0.0.1", now.Add(time.Hour), false),
		"mismatch":  leaf(ts, ca, caKey, "wrong.example", now.Add(time.Hour), false),
		"expired":   leaf(ts, ca, caKey, "127.0.0.1", now.Add(-time.Hour), false),
	}}
	client := leaf(ts, ca, caKey, "client", now.Add(time.Hour), true)
	u.srv = httptest.NewUnstartedServer(http.HandlerFunc(u.serve))
	// GetConfigForClient, unlike GetCertificate, runs for a client that
	// sends no server name (an IP address): each handshake gets the mode's
	// certificate.
	var clientCAs *x509.CertPool
	if len(args) == 1 {
		clientCAs = x509.NewCertPool()
		clientCAs.AddCert(ca)
	}
	u.srv.TLS = &tls.Config{GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
		u.mu.Lock()
		defer u.mu.Unlock()
		c, ok := u.certs[u.mode]
		if !ok {
			c = u.certs["ok"]
		}
		cfg := &tls.Config{Certificates: []tls.Certificate{*c}, NextProtos: []string{"http/1.1"}}
		if clientCAs != nil {
			cfg.ClientAuth, cfg.ClientCAs = tls.RequireAndVerifyClientCert, clientCAs
		}
		return cfg, nil
	}}
	u.srv.StartTLS()
	upstreams.Store(ts, u)
	ts.Defer(func() {
		close(u.stop)
		u.srv.CloseClientConnections()
		u.srv.Close()
	})
	writePEM(ts, "upstream-ca.pem", "CERTIFICATE", ca.Raw)
	writePEM(ts, "client.pem", "CERTIFICATE", client.Certificate[0])
	der, err := x509.MarshalECPrivateKey(client.PrivateKey.(*ecdsa.PrivateKey))
	if err != nil {
		ts.Fatalf("%v", err)
	}
	writePEM(ts, "client-key.pem", "EC PRIVATE KEY", der)
	ts.Setenv("UPSTREAM_URL", u.srv.URL)
	ts.Setenv("UPSTREAM_HOST", u.srv.Listener.Addr().String())
	ts.Setenv("UPSTREAM_CA", ts.MkAbs("upstream-ca.pem"))
	ts.Setenv("CLIENT_CERT", ts.MkAbs("client.pem"))
	ts.Setenv("CLIENT_KEY", ts.MkAbs("client-key.pem"))
}

// fault switches the upstream's behaviour: ok, untrusted (certificate from
// an unknown CA), mismatch (certificate for another name), expired, 503,
// 501 or 505 (every request answers that status), reset (the body is cut off mid-way and the connection
// closed), slow (no answer until the client gives up), down (the listener
// is closed: connections are refused).
func fault(ts *testscript.TestScript, neg bool, args []string) {
	modes := "ok|untrusted|mismatch|expired|503|501|505|reset|slow|down"
	if neg || len(args) != 1 || !strings.Contains("|"+modes+"|", "|"+args[0]+"|") {
		ts.Fatalf("usage: fault %s", modes)
	}
	v, ok := upstreams.Load(ts)
	if !ok {
		ts.Fatalf("fault: run faultupstream first")
	}
	u := v.(*upstream)
	u.mu.Lock()
	u.mode = args[0]
	u.mu.Unlock()
	u.srv.CloseClientConnections() // a new certificate needs a new handshake
	if args[0] == "down" {
		u.srv.Listener.Close()
	}
}

func (u *upstream) serve(w http.ResponseWriter, r *http.Request) {
	u.mu.Lock()
	mode := u.mode
	u.mu.Unlock()
	switch mode {
	case "503":
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
	case "501", "505":
		code, _ := strconv.Atoi(mode)
		http.Error(w, "not here: "+http.StatusText(code), code)
	case "reset":
		w.Header().Set("Content-Length", "1000")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"pets": [`))
		w.(http.Flusher).Flush()
		if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
			if tc, ok := c.(*tls.Conn); ok {
				if nc, ok := tc.NetConn().(*net.TCPConn); ok {
					_ = nc.SetLinger(0) // RST, not FIN
				}
			}
			c.Close()
		}
	case "slow":
		// Never answers while the script runs: the client gives up. At the
		// script's end the connection is dropped without a response.
		<-u.stop
		if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
			c.Close()
		}
	default:
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"pets": ["cat", "dog"]}` + "\n"))
	}
}

func newCA(ts *testscript.TestScript, name string) (*x509.Certificate, *ecdsa.PrivateKey) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		ts.Fatalf("%v", err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		ts.Fatalf("%v", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		ts.Fatalf("%v", err)
	}
	return cert, key
}

var serial int64 = 100

func leaf(ts *testscript.TestScript, ca *x509.Certificate, caKey *ecdsa.PrivateKey, name string, notAfter time.Time, client bool) *tls.Certificate {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		ts.Fatalf("%v", err)
	}
	serial++
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
		NotBefore: notAfter.Add(-2 * time.Hour), NotAfter: notAfter, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	if client {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	} else if ip := net.ParseIP(name); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	} else {
		tmpl.DNSNames = []string{name}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		ts.Fatalf("%v", err)
	}
	return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func writePEM(ts *testscript.TestScript, name, typ string, der []byte) {
	if err := os.WriteFile(ts.MkAbs(name), pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		ts.Fatalf("%v", err)
	}
}

var nextLine = regexp.MustCompile(`(?m)^next: (.+)$`)

// runnext runs, as printed, the next step that the previous command wrote
// to stderr (`next: COMMAND   # comment`) in a shell, and fails when the
// shell cannot run it as a command (126, 127) or cassette rejects it as a
// user or config error (exit 2). Any other outcome (the same
// infrastructure failure again, exit 3) is the step working as printed.
func runnext(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: runnext")
	}
	m := nextLine.FindStringSubmatch(ts.ReadFile("stderr"))
	if m == nil {
		ts.Fatalf("runnext: the previous command printed no next step")
	}
	code, out := shellRun(ts, m[1])
	ts.Logf("next step %q: exit %d\n%s", m[1], code, out)
	if code == 127 || code == 126 || code == 2 {
		ts.Fatalf("the next step %q does not run as printed (exit %d):\n%s", m[1], code, out)
	}
}

// faultfake is a fake HTTP service (run as a program by the scripts) that
// listens on $PORT, answers its ready check, and dies on the first other
// request before answering it: a fake that crashes mid-run.
func faultfake() {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { os.Exit(3) })
	_ = http.ListenAndServe("127.0.0.1:"+os.Getenv("PORT"), mux)
	os.Exit(4)
}
