package proxy

import (
	"bytes"
	"strings"
	"testing"
)

// TestInitCA: `cassette ca init` without the process: the first run
// creates the CA, the second finds it; both say how to trust it.
func TestInitCA(t *testing.T) {
	dir := t.TempDir()
	for _, want := range []string{"created a new cassette CA in " + dir, "the cassette CA already exists in " + dir} {
		var out bytes.Buffer
		if err := InitCA(&out, dir); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(out.String(), want+"\n") || !strings.Contains(out.String(), "export SSL_CERT_FILE="+dir) {
			t.Fatalf("InitCA wrote:\n%s\nwant it to start %q and name the certificate", out.String(), want)
		}
	}
}
