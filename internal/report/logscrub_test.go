package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteScrubsFakeLogs: a fake that logs its environment or a private
// key it was handed leaves no credential in the report directory: its log
// gets the cassettes' redaction before the reports point at it.
func TestWriteScrubsFakeLogs(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "logs", "fake-github.log")
	os.MkdirAll(filepath.Dir(logPath), 0o755)
	const declared = "live-declared-value-123"
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----"
	os.WriteFile(logPath, []byte("listening\nGITHUB_TOKEN="+declared+"\n"+key+"\nbye\n"), 0o644)
	run := failingRun() // its drift case points at logs/fake-github.log
	if err := Write(dir, run, Options{Declared: map[string]string{"GITHUB_TOKEN": declared}}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(logPath)
	if want := "listening\nGITHUB_TOKEN=[REDACTED]\n[REDACTED]\nbye\n"; string(got) != want {
		t.Errorf("log = %q, want %q", got, want)
	}
	if strings.Contains(string(got), "b3BlbnNz") {
		t.Error("the key body is still in the log")
	}
}
