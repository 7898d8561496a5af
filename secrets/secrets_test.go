package secrets

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

// samples are fake credentials of each known format (none is a live key).
var samples = map[string]string{
	"github-token":      "ghp_" + strings.Repeat("A1b2", 9),
	"aws-access-key-id": "AKIA" + "ABCDEFGHIJKLMNOP",
	"slack-token":       "xoxb-" + "123456789012-abcdefghij",
	"slack-webhook":     "https://hooks.slack.com/services/T0000000/B0000000/" + strings.Repeat("x", 24),
	"anthropic-key":     "sk-ant-" + "api03-" + strings.Repeat("k", 30),
	"openai-key":        "sk-proj-" + strings.Repeat("Z", 40),
	"google-api-key":    "AIza" + strings.Repeat("G", 35),
	"stripe-key":        "sk_live_" + strings.Repeat("4", 24),
	"jwt":               "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
	"private-key":       "-----BEGIN RSA PRIVATE KEY-----",
}

func TestPatterns(t *testing.T) {
	for _, p := range Patterns {
		s, ok := samples[p.Name]
		if !ok {
			t.Errorf("pattern %s has no sample", p.Name)
			continue
		}
		t.Run(p.Name, func(t *testing.T) {
			text := []byte("line one\n  token: " + s + " end\n")
			f := Scan(text, nil)
			if len(f) == 0 || f[0].Line != 2 || f[0].Column != 10 {
				t.Fatalf("Scan = %+v, want a finding at 2:10", f)
			}
			if !p.mayMatch(text) {
				t.Errorf("the literal prefilter would skip a real match")
			}
			red := Redact(text, nil)
			if bytes.Contains(red, []byte(s)) || !bytes.Contains(red, []byte(Redacted)) {
				t.Errorf("Redact left the credential: %s", red)
			}
			if got := Scan(red, nil); len(got) != 0 {
				t.Errorf("a redacted text still scans dirty: %+v", got)
			}
		})
	}
}

func TestDeclared(t *testing.T) {
	declared := map[string]string{"MY_TOKEN": "hunter2-hunter2", "INNER": "hunter2", "SHORT": "abc"}
	text := []byte("a hunter2-hunter2 b\nc abc d\n")
	f := Scan(text, declared)
	if len(f) == 0 {
		t.Fatal("the declared value was not found")
	}
	for _, x := range f {
		if x.Line != 1 || x.Kind == "declared:SHORT" {
			t.Errorf("finding %+v: only line 1 holds a declared value of 6 bytes or more", x)
		}
	}
	red := string(Redact(text, declared))
	if red != "a [REDACTED] b\nc abc d\n" {
		t.Errorf("Redact = %q: the longest value goes first, values under 6 bytes are left", red)
	}
}

func TestHeaders(t *testing.T) {
	h := http.Header{"Authorization": {"Bearer x"}, "X-Github-Token": {"y"}, "Content-Type": {"text/plain"}, "X-Note": {"has hunter2-long"}}
	got := RedactHeaders(h, map[string]string{"P": "hunter2-long"})
	if got.Get("Authorization") != Redacted || got.Get("X-Github-Token") != Redacted || got.Get("Content-Type") != "text/plain" || got.Get("X-Note") != "has "+Redacted {
		t.Errorf("RedactHeaders = %v", got)
	}
	if h.Get("Authorization") != "Bearer x" {
		t.Error("RedactHeaders changed its input")
	}
	for name, want := range map[string]bool{"cookie": true, "X-Api-Key": true, "X-Session-Id": true, "Accept": false, "Etag": false} {
		if IsCredentialHeader(name) != want {
			t.Errorf("IsCredentialHeader(%q) = %v", name, !want)
		}
	}
}

func FuzzScan(f *testing.F) {
	for _, s := range samples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		red := Redact(data, map[string]string{"V": "secret-value"})
		if len(Scan(red, map[string]string{"V": "secret-value"})) != 0 {
			t.Fatalf("Redact output still scans dirty: %q", red)
		}
	})
}

// BenchmarkScan measures the scan over a clean 1 MiB JSON body (the common
// case: every recorded body is scanned) against bytes.Contains of one
// literal over the same bytes, measured in the same run.
func BenchmarkScan(b *testing.B) {
	var buf bytes.Buffer
	for buf.Len() < 1<<20 {
		buf.WriteString(`{"id":"b1e2","login":"octocat","url":"https://api.github.com/users/octocat","site_admin":false},`)
	}
	data := buf.Bytes()
	b.Run("baseline-contains", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			bytes.Contains(data, []byte("ghp_"))
		}
	})
	b.Run("scan", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			Scan(data, map[string]string{"T": "not-present-value"})
		}
	})
}
