package proxy

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/internal/outcome"
)

func TestLoadOrCreateCA(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cfg", "ca")
	ca, err := LoadOrCreateCA(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		mode os.FileMode
	}{
		{dir, 0o700},
		{filepath.Join(dir, CAKeyFile), 0o600},
		{ca.CertFile(), 0o644},
	} {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			st, err := os.Stat(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if got := st.Mode().Perm(); got != tc.mode {
				t.Errorf("mode %04o, want %04o", got, tc.mode)
			}
		})
	}
	c := ca.Certificate()
	if !c.IsCA || c.PublicKeyAlgorithm.String() != "ECDSA" {
		t.Errorf("CA certificate: IsCA=%v alg=%v", c.IsCA, c.PublicKeyAlgorithm)
	}
	again, err := LoadOrCreateCA(dir)
	if err != nil {
		t.Fatal(err)
	}
	if again.Fingerprint() != ca.Fingerprint() {
		t.Error("a second load made a new CA")
	}
	pemBytes, _ := os.ReadFile(ca.CertFile())
	if bytes.Contains(pemBytes, []byte("PRIVATE KEY")) {
		t.Error("the certificate file holds the private key")
	}
}

func TestLoadOrCreateCAConcurrentFirstUse(t *testing.T) {
	dir := t.TempDir()
	const n = 8
	fps := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ca, err := LoadOrCreateCA(dir)
			errs[i] = err
			if err == nil {
				fps[i] = ca.Fingerprint()
			}
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if fps[i] != fps[0] {
			t.Fatalf("caller %d got CA %s, caller 0 got %s", i, fps[i], fps[0])
		}
	}
}

func TestLoadCAErrors(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(t *testing.T, dir string)
		reason outcome.Reason
		want   string
	}{
		{"key readable by others", func(t *testing.T, dir string) {
			if err := os.Chmod(filepath.Join(dir, CAKeyFile), 0o644); err != nil {
				t.Fatal(err)
			}
		}, outcome.ECfgParse, "chmod 600"},
		{"damaged key file", func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, CAKeyFile), []byte("not pem"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, outcome.ECfgParse, "rm -r "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := LoadOrCreateCA(dir); err != nil {
				t.Fatal(err)
			}
			tc.setup(t, dir)
			_, err := LoadOrCreateCA(dir)
			var ce *outcome.Error
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want a *outcome.Error", err)
			}
			if ce.Reason != tc.reason || !strings.Contains(ce.NextStep, tc.want) {
				t.Errorf("reason %s next %q, want %s and %q", ce.Reason, ce.NextStep, tc.reason, tc.want)
			}
		})
	}
}

func TestChildEnv(t *testing.T) {
	ca := testCA(t)
	env := ca.ChildEnv("http://127.0.0.1:9")
	got := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		got[k] = v
	}
	want := map[string]string{
		"HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9",
		"https_proxy": "http://127.0.0.1:9", "http_proxy": "http://127.0.0.1:9",
		"NO_PROXY": "", "no_proxy": "",
		"SSL_CERT_FILE": ca.CertFile(), "NODE_EXTRA_CA_CERTS": ca.CertFile(), "REQUESTS_CA_BUNDLE": ca.CertFile(),
		"CURL_CA_BUNDLE": ca.CertFile(), "GIT_SSL_CAINFO": ca.CertFile(),
	}
	for k, v := range want {
		t.Run(k, func(t *testing.T) {
			if g, ok := got[k]; !ok || g != v {
				t.Errorf("%s=%q (present %v), want %q", k, g, ok, v)
			}
		})
	}
	if len(got) != len(want) {
		t.Errorf("ChildEnv has %d variables, want %d: %v", len(got), len(want), env)
	}
}

func TestLeafCache(t *testing.T) {
	ca := testCA(t)
	now := time.Now()
	c := newLeafCache(ca, 2, func() time.Time { return now })
	get := func(host string) []byte {
		t.Helper()
		cert, err := c.get(host)
		if err != nil {
			t.Fatal(err)
		}
		return cert.Certificate[0]
	}
	a := get("a.example")
	tests := []struct {
		name       string
		step       func() []byte
		wantSame   bool
		wantSigned int
	}{
		{"cached leaf is reused", func() []byte { return get("A.example.") }, true, 1},
		{"near expiry is regenerated", func() []byte { now = now.Add(leafValidity - time.Minute); return get("a.example") }, false, 2},
		{"ip host", func() []byte { return get("127.0.0.1") }, false, 3},
		{"cap evicts the oldest", func() []byte { get("b.example"); return get("a.example") }, false, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.step()
			if bytes.Equal(got, a) != tc.wantSame {
				t.Errorf("same leaf = %v, want %v", !tc.wantSame, tc.wantSame)
			}
			if c.signed != tc.wantSigned {
				t.Errorf("signed %d leaves, want %d", c.signed, tc.wantSigned)
			}
			if len(c.certs) > 2 || len(c.order) > 2 {
				t.Errorf("cache holds %d/%d entries, cap 2", len(c.certs), len(c.order))
			}
			a = got
		})
	}
}

func TestDefaultCADir(t *testing.T) {
	t.Setenv("CASSETTE_CA_DIR", "/x/y")
	if d, err := DefaultCADir(); err != nil || d != "/x/y" {
		t.Errorf("DefaultCADir() = %q, %v", d, err)
	}
	t.Setenv("CASSETTE_CA_DIR", "")
	t.Setenv("XDG_CONFIG_HOME", "/cfg")
	if d, err := DefaultCADir(); err != nil || d != "/cfg/cassette/ca" {
		t.Errorf("DefaultCADir() = %q, %v", d, err)
	}
}

var (
	sharedCAOnce sync.Once
	sharedCA     *CA
	sharedCAErr  error
	sharedCADir  string
)

// testCA returns one CA for the whole test binary (creating it costs
// little, but curl and git read it from a file that must outlive a test).
func testCA(t testing.TB) *CA {
	t.Helper()
	sharedCAOnce.Do(func() {
		sharedCADir, sharedCAErr = os.MkdirTemp("", "cassette-ca-")
		if sharedCAErr == nil {
			sharedCA, sharedCAErr = LoadOrCreateCA(sharedCADir)
		}
	})
	if sharedCAErr != nil {
		t.Fatal(sharedCAErr)
	}
	return sharedCA
}

func TestMain(m *testing.M) {
	code := m.Run()
	if sharedCADir != "" {
		os.RemoveAll(sharedCADir)
	}
	os.Exit(code)
}
