package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/proxy"
)

// TestCACommands: `ca init` creates the CA once and says so, `ca show` and
// `ca init` print how to trust it and every variable a child needs (both
// spellings of the proxy variables: curl reads only the lower-case
// http_proxy), `ca path` prints the certificate's path alone, and nothing
// prints key material.
func TestCACommands(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ca")
	cert := filepath.Join(dir, proxy.CACertFile)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"ca", "init", "--dir", dir}, []string{"created a new cassette CA", "SSL_CERT_FILE=", "GIT_SSL_CAINFO=", "update-ca-certificates", "sha256:"}},
		{[]string{"ca", "init", "--dir", dir}, []string{"already exists"}},
		{[]string{"ca", "show", "--dir", dir}, []string{"NODE_EXTRA_CA_CERTS=" + cert, "HTTPS_PROXY=", "HTTP_PROXY=", "https_proxy=", "http_proxy=", "no_proxy="}},
		{[]string{"ca", "path", "--dir", dir}, []string{cert + "\n"}},
	} {
		var out, errw bytes.Buffer
		if code := Main(tc.args, strings.NewReader(""), &out, &errw); code != 0 {
			t.Fatalf("cassette %s: exit %d\n%s", strings.Join(tc.args, " "), code, errw.String())
		}
		for _, w := range tc.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("cassette %s: output lacks %q:\n%s", strings.Join(tc.args, " "), w, out.String())
			}
		}
		if strings.Contains(out.String(), "BEGIN") {
			t.Errorf("cassette %s prints PEM material", strings.Join(tc.args, " "))
		}
	}
}
