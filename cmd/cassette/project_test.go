package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedactNamesProject: `cassette verify` on the project that
// cassettetest's TestRedactNamesProject verifies in process: its
// redact.names apply to the fake's output (a live tenant_pin against the
// recorded [REDACTED]), so both pass.
func TestRedactNamesProject(t *testing.T) {
	var out, errw bytes.Buffer
	config := filepath.Join("..", "..", "cassettetest", "testdata", "redact-names", "cassette.yaml")
	code := Main([]string{"verify", "--config", config, "--report-dir", t.TempDir()}, strings.NewReader(""), &out, &errw)
	if code != 0 || !strings.Contains(out.String(), "1 passed, 0 failed") {
		t.Fatalf("cassette verify exited %d:\n%s%s", code, out.String(), errw.String())
	}
}
