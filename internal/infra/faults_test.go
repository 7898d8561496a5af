package infra

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// TestBuiltinFaultsOfRealTools runs the real tools (curl, git, gh, docker)
// straight at a refused port, an unresolvable name, a certificate they do
// not trust and a service answering 501, without any proxy, and reads what
// they print with the built-in signatures: each run is its failure class;
// what is the service's answer (404, a missing repository) matches none.
func TestBuiltinFaultsOfRealTools(t *testing.T) {
	for _, tool := range []string{"curl", "git", "gh", "docker"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not installed: CI must install it (.ci/run)", tool)
			}
			t.Skipf("%s is not installed", tool)
		}
	}
	answer := func(code int, body string) *httptest.Server {
		return httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if body == "" {
				w.WriteHeader(code)
				return
			}
			http.Error(w, body, code)
		}))
	}
	s501, s501empty, s404 := answer(501, "not here"), answer(501, ""), answer(404, "no such thing")
	defer s501.Close()
	defer s501empty.Close()
	defer s404.Close()
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem") // the three servers share httptest's certificate
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s501.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "other.pem"), otherCA(t), 0o644); err != nil {
		t.Fatal(err)
	}
	host := func(s *httptest.Server) string { return strings.TrimPrefix(s.URL, "https://") }
	const refused, unresolvable = "127.0.0.1:1", "nonexistent.invalid"
	for _, tc := range []struct {
		name string
		argv []string
		want outcome.Reason // "" when the run is the service's answer
	}{
		{"curl refused", []string{"curl", "-sS", "https://" + refused + "/pets"}, outcome.ERealUnreachable},
		{"curl dns", []string{"curl", "-sS", "https://" + unresolvable + "/pets"}, outcome.ERealDNS},
		{"curl untrusted", []string{"curl", "-sS", s501.URL + "/pets"}, outcome.ERealTLS},
		{"curl 501", []string{"curl", "-sS", "--fail", "--cacert", ca, s501.URL + "/pets"}, outcome.EProvider5xx},
		{"curl 404", []string{"curl", "-sS", "--fail", "--cacert", ca, s404.URL + "/pets"}, ""},
		{"git refused", []string{"git", "ls-remote", "https://" + refused + "/r.git"}, outcome.ERealUnreachable},
		{"git dns", []string{"git", "ls-remote", "https://" + unresolvable + "/r.git"}, outcome.ERealDNS},
		{"git untrusted", []string{"git", "ls-remote", s501.URL + "/r.git"}, outcome.ERealTLS},
		{"git 501", []string{"git", "-c", "http.sslCAInfo=" + ca, "ls-remote", s501.URL + "/r.git"}, outcome.EProvider5xx},
		{"git 404", []string{"git", "-c", "http.sslCAInfo=" + ca, "ls-remote", s404.URL + "/r.git"}, ""},
		{"git no repository", []string{"git", "-C", dir, "log"}, ""},
		{"gh dns", []string{"gh", "api", "--hostname", unresolvable, "/pets"}, outcome.ERealUnreachable}, // gh says only "error connecting to"
		{"docker refused", []string{"docker", "-H", "tcp://" + refused, "ps"}, outcome.ERealUnreachable},
		{"docker dns", []string{"docker", "-H", "tcp://" + unresolvable + ":2376", "ps"}, outcome.ERealDNS},
		{"docker untrusted", []string{"docker", "--tlsverify", "--tlscacert", filepath.Join(dir, "other.pem"), "-H", "tcp://" + host(s501), "ps"}, outcome.ERealTLS},
		{"docker 501", []string{"docker", "--tlsverify", "--tlscacert", ca, "-H", "tcp://" + host(s501empty), "ps"}, outcome.EProvider5xx},
		{"docker 404", []string{"docker", "--tlsverify", "--tlscacert", ca, "-H", "tcp://" + host(s404), "inspect", "nosuch"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exit, stderr := run(t, dir, tc.argv, "GH_ENTERPRISE_TOKEN=test") // gh has a token for any host but github.com
			f, err := FaultsFor(tc.argv[0], nil)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := f.Match(exit, stderr)
			switch {
			case tc.want == "" && ok:
				t.Errorf("exit %d, stderr %q: matched %+v, but it is the service's answer", exit, stderr, got)
			case tc.want != "" && (!ok || got.Reason != tc.want):
				t.Errorf("exit %d, stderr %q: %+v %v, want %s", exit, stderr, got, ok, tc.want)
			case ok && got.Reason.Exit() != outcome.ExitInfra:
				t.Errorf("%s is not infrastructure", got.Reason)
			}
		})
	}
}

// TestNotLoggedIn: gh without a token says so (exit 4) and matches no
// network fault; a declared pattern works for any tool.
func TestNotLoggedIn(t *testing.T) {
	if _, err := exec.LookPath("gh"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("gh is not installed: CI must install it (.ci/run)")
		}
		t.Skip("gh is not installed")
	}
	dir := t.TempDir()
	exit, stderr := run(t, dir, []string{"gh", "api", "/user"})
	f, _ := FaultsFor("/usr/bin/gh", nil)
	if !f.LoggedOut(exit, stderr) || f.Login != "gh auth login" {
		t.Errorf("gh without a token: exit %d, stderr %q: not seen as logged out", exit, stderr)
	}
	if _, ok := f.Match(exit, stderr); ok {
		t.Errorf("logged out is not a network fault")
	}
	no := false
	f, err := FaultsFor("mytool", &cfgschema.Faults{NotLoggedIn: []string{`please sign in`}, ExitCodes: []int{69}, Stderr: []string{`backend (down|gone)`}, Builtin: &no, Strict: &no})
	if err != nil {
		t.Fatal(err)
	}
	if !f.LoggedOut(1, []byte("error: please sign in first")) || f.LoggedOut(0, []byte("please sign in")) {
		t.Errorf("declared not_logged_in")
	}
	if r, ok := f.Match(69, nil); !ok || r.Reason != outcome.ERealUnreachable {
		t.Errorf("declared exit code: %+v %v", r, ok)
	}
	if r, ok := f.Match(1, []byte("backend down: i/o timeout")); !ok || r.Reason != outcome.ETimeout {
		t.Errorf("declared pattern, classified by its text: %+v %v", r, ok)
	}
	if f.Strict {
		t.Errorf("strict: false is not kept")
	}
	curl, _ := FaultsFor("curl", &cfgschema.Faults{Builtin: &no})
	if _, ok := curl.Match(60, nil); ok {
		t.Errorf("builtin: false keeps the built-in signatures")
	}
	if _, err := FaultsFor("x", &cfgschema.Faults{Stderr: []string{"("}}); err == nil {
		t.Errorf("a pattern that does not compile is accepted")
	}
}

// run runs argv in dir with a clean environment (no proxy, no user
// configuration) and env, and returns its exit code and stderr.
func run(t *testing.T, dir string, argv []string, env ...string) (int, []byte) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
		"GH_CONFIG_DIR=" + filepath.Join(dir, "gh"), "GH_NO_UPDATE_NOTIFIER=1", "DOCKER_CONFIG=" + filepath.Join(dir, "docker")}, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("%v: %v", argv, err)
	}
	return cmd.ProcessState.ExitCode(), stderr.Bytes()
}

// otherCA is the PEM of a new self-signed CA that signed none of the
// servers' certificates.
func otherCA(t *testing.T) []byte {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "some other CA"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}
