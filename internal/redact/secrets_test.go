package redact

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

// builtin are the built-in names alone (a nil *Rules).
var builtin *Rules

// samples are fake credentials of the formats the scan had before it took
// gitleaks' rules, under the rule that finds each now (none is a live key).
var samples = map[string]string{
	"github-pat":            "ghp_" + "R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4u",
	"aws-access-token":      "AKIA" + "Q3EGT7DKXW5HNZ2L",
	"slack-bot-token":       "xoxb-" + "918273645012-1029384756102-Pq7wLm2xZk4vRt8y",
	"slack-webhook-url":     "https://hooks.slack.com/services/" + "T0PLANT01/B0PLANT02/Pq7wLm2xZk4vRt8yN3bC6dF1",
	"anthropic-key":         "sk-ant-" + "api03-" + "Pq7wLm2xZk4vRt8yN3bC6dF1hJ5sD0gY",
	"openai-key":            "sk-proj-" + "Pq7wLm2xZk4vRt8yN3bC6dF1hJ5sD0gY2aE4u9Kc",
	"gcp-api-key":           "AIza" + "SyB7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2a",
	"stripe-access-token":   "sk_live_" + "Pq7wLm2xZk4vRt8yN3bC6dF1",
	"jwt":                   "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
	"private-key":           "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1234567890abcdefghij\nQWERTYUIOPasdfghjkl0987654321zxcvbnm==\n-----END RSA PRIVATE KEY-----",
	"aws-secret-access-key": "aws_secret_access_key = " + "h7Gq2Lp9Xv4Rt8Wm1Zn6Bc3Df5Jk0Sy7Ue2Ia9Ob",
}

// TestSamples: each sample, set in a text, is found at its place under its
// rule, redacted, and the redacted text scans clean.
func TestSamples(t *testing.T) {
	for kind, s := range samples {
		t.Run(kind, func(t *testing.T) {
			text := []byte("line one\n  token: " + s + " end\n")
			f := Scan(text, nil)
			wantCol := 10
			if kind == "aws-secret-access-key" {
				wantCol += strings.Index(s, "h7Gq") // only the value is the secret
			}
			if len(f) == 0 || f[0].Line != 2 || f[0].Column != wantCol || f[0].Kind != kind {
				t.Fatalf("Scan = %+v, want %s at 2:%d", f, kind, wantCol)
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
	got := builtin.RedactHeaders(h, map[string]string{"P": "hunter2-long"})
	if got.Get("Authorization") != Redacted || got.Get("X-Github-Token") != Redacted || got.Get("Content-Type") != "text/plain" || got.Get("X-Note") != "has "+Redacted {
		t.Errorf("RedactHeaders = %v", got)
	}
	if h.Get("Authorization") != "Bearer x" {
		t.Error("RedactHeaders changed its input")
	}
	for name, want := range map[string]bool{"cookie": true, "X-Api-Key": true, "Accept": false, "Etag": false} {
		if builtin.IsCredentialHeader(name) != want {
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

// TestPrivateKeyBlocks: the whole block goes, BEGIN to END, whatever its
// armour, also JSON-escaped and cut short; nothing of it is left to scan.
func TestPrivateKeyBlocks(t *testing.T) {
	body := "MIIEowIBAAKCAQEAxKeyMaterialLine1abcdefghijklmnop\nZZZsecondLineOfKeyMaterial0123456789==\n"
	tests := map[string]string{
		"rsa":       "-----BEGIN RSA PRIVATE KEY-----\n" + body + "-----END RSA PRIVATE KEY-----\n",
		"pkcs8":     "-----BEGIN PRIVATE KEY-----\n" + body + "-----END PRIVATE KEY-----",
		"encrypted": "-----BEGIN ENCRYPTED PRIVATE KEY-----\n" + body + "-----END ENCRYPTED PRIVATE KEY-----",
		"openssh":   "-----BEGIN OPENSSH PRIVATE KEY-----\n" + body + "-----END OPENSSH PRIVATE KEY-----",
		"ec":        "-----BEGIN EC PRIVATE KEY-----\n" + body + "-----END EC PRIVATE KEY-----",
		"pgp":       "-----BEGIN PGP PRIVATE KEY BLOCK-----\nComment: x\n\n" + body + "=ABCD\n-----END PGP PRIVATE KEY BLOCK-----",
		"json":      `{"key":"-----BEGIN RSA PRIVATE KEY-----\n` + strings.ReplaceAll(body, "\n", `\n`) + `-----END RSA PRIVATE KEY-----\n","id":1}`,
		"cut short": "-----BEGIN RSA PRIVATE KEY-----\n" + body,
		"lone end":  "ZZZsecondLineOfKeyMaterial0123456789==\n-----END RSA PRIVATE KEY-----",
	}
	for name, text := range tests {
		t.Run(name, func(t *testing.T) {
			in := []byte("before\n" + text + "\nafter")
			if len(Scan(in, nil)) == 0 {
				t.Fatal("Scan found nothing")
			}
			red := string(Redact(in, nil))
			for _, frag := range []string{"KeyMaterial", "PRIVATE KEY"} {
				if strings.Contains(red, frag) && name != "lone end" {
					t.Errorf("Redact left %q: %q", frag, red)
				}
			}
			if !strings.HasPrefix(red, "before\n") || (name != "cut short" && !strings.HasSuffix(red, "after")) {
				t.Errorf("Redact removed more than the block: %q", red)
			}
			if got := Scan([]byte(red), nil); len(got) != 0 {
				t.Errorf("the redacted text still scans dirty: %+v", got)
			}
		})
	}
	if got := string(Redact([]byte(tests["json"]), nil)); got != `{"key":"[REDACTED]\n","id":1}` {
		t.Errorf("JSON body = %q", got)
	}
}

// TestCredentialNames: one list for headers, parameters and JSON keys,
// case-insensitive, with _ and - variants; the project can add names.
func TestCredentialNames(t *testing.T) {
	yes := []string{"Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "api_key", "apiKey", "APIKEY",
		"X-Auth", "X-Auth-Token", "Ocp-Apim-Subscription-Key", "X-Access-Key", "Private-Token",
		"X-Amz-Security-Token", "X-Goog-Api-Key", "client_secret", "clientSecret", "Client-Secret", "password", "Password",
		"pass", "pwd", "passwd", "token", "access_token", "accessToken", "refresh_token", "id_token", "aws_secret_access_key",
		"SecretAccessKey", "private_key", "password_confirmation", "X-Hub-Signature", "X-Hub-Signature-256", "token_2", "key", "session",
		"session_id", "sessionId", "X-Session-Id", "sid", "PHPSESSID", "JSESSIONID", "connect.sid"}
	no := []string{"Accept", "Content-Type", "Etag", "Idempotency-Key", "Sec-Websocket-Key", "token_type", "secret_name",
		"Www-Authenticate", "author", "id", "name", "bypass", "X-Request-Id", "Keep-Alive", "expires_in", "monkey", "account_sid", "sid_type", "token_type_2", "256", "-"}
	for _, n := range yes {
		if !builtin.IsCredentialName(n) {
			t.Errorf("IsCredentialName(%q) = false", n)
		}
	}
	for _, n := range no {
		if builtin.IsCredentialName(n) {
			t.Errorf("IsCredentialName(%q) = true", n)
		}
	}
	project := NewRules([]string{"X-Tenant-Pin", "membership_number"})
	for _, n := range []string{"x_tenant_pin", "X-TENANT-PIN", "membershipNumber", "Membership-Number"} {
		if !project.IsCredentialName(n) {
			t.Errorf("added name: IsCredentialName(%q) = false", n)
		}
	}
}

func TestRedactByName(t *testing.T) {
	tests := []struct {
		name, ct, in, want string
		hidden             []string
	}{
		{"json keys at any depth", "application/json",
			`{"client_secret": "cs1", "user": {"password":"p2", "name":"bob"}, "token_type":"bearer", "n": 3}`,
			`{"client_secret": "[REDACTED]", "user": {"password":"[REDACTED]", "name":"bob"}, "token_type":"bearer", "n": 3}`,
			[]string{"cs1", "p2"}},
		{"json array under a credential key, escaped strings", "application/vnd.api+json",
			`[{"tokens":["a\"1","b2"],"access_token":"x\u0041y"}]`,
			`[{"tokens":["[REDACTED]","[REDACTED]"],"access_token":"[REDACTED]"}]`, []string{`a"1`, "b2", "xAy"}},
		{"ndjson stream", "application/x-ndjson", "{\"token\":\"t1\"}\n{\"token\":\"t2\"}\n",
			"{\"token\":\"[REDACTED]\"}\n{\"token\":\"[REDACTED]\"}\n", []string{"t1", "t2"}},
		{"a broken line does not stop the stream", "application/x-ndjson", "{\"x\":\"cut\n{\"token\":\"t3\"}\n",
			"{\"x\":\"cut\n{\"token\":\"[REDACTED]\"}\n", []string{"t3"}},
		{"json sniffed without a type", "", `{"pwd":"zz"}`, `{"pwd":"[REDACTED]"}`, []string{"zz"}},
		{"cut short json keeps the redacted prefix", "application/json", `{"secret":"s1","x":"unterminated`,
			`{"secret":"[REDACTED]","x":"unterminated`, []string{"s1"}},
		{"form", "application/x-www-form-urlencoded", "grant_type=password&password=p%40ss&client_secret=c1&u=bob",
			"grant_type=password&password=%5BREDACTED%5D&client_secret=%5BREDACTED%5D&u=bob", []string{"p@ss", "p%40ss", "c1", "c1"}},
		{"multipart", "multipart/form-data; boundary=XyZ",
			"--XyZ\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nbob\r\n--XyZ\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nmp-secret\r\n--XyZ\r\nContent-Disposition: form-data; name=\"token\"; filename=\"t.txt\"\r\n\r\nfile\r\n--XyZ--\r\n",
			"--XyZ\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nbob\r\n--XyZ\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\n[REDACTED]\r\n--XyZ\r\nContent-Disposition: form-data; name=\"token\"; filename=\"t.txt\"\r\n\r\nfile\r\n--XyZ--\r\n",
			[]string{"mp-secret"}},
		{"plain text untouched", "text/plain", "password: x", "password: x", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, hidden := builtin.RedactByName(tt.ct, []byte(tt.in))
			if string(got) != tt.want {
				t.Errorf("body\n got %s\nwant %s", got, tt.want)
			}
			if strings.Join(hidden, "|") != strings.Join(tt.hidden, "|") {
				t.Errorf("hidden = %q, want %q", hidden, tt.hidden)
			}
			again, more := builtin.RedactByName(tt.ct, got)
			if string(again) != string(got) || len(more) != 0 {
				t.Errorf("not idempotent: %s %q", again, more)
			}
		})
	}
}

// FuzzRedactByName: whatever the body, redaction by name never panics,
// is idempotent, and leaves no value it reported hidden under a JSON key.
func FuzzRedactByName(f *testing.F) {
	f.Add("application/json", []byte(`{"password":"p","a":[{"token":"t"}]}`))
	f.Add("application/x-www-form-urlencoded", []byte("a=1&secret=2"))
	f.Add("multipart/form-data; boundary=b", []byte("--b\r\nContent-Disposition: form-data; name=\"pwd\"\r\n\r\nv\r\n--b--\r\n"))
	f.Fuzz(func(t *testing.T, ct string, body []byte) {
		out, _ := builtin.RedactByName(ct, body)
		again, _ := builtin.RedactByName(ct, out)
		if !bytes.Equal(out, again) {
			t.Fatalf("not idempotent:\n%q\n%q", out, again)
		}
	})
}

// FuzzCredentialName: the allocation-free split of ASCII names agrees with
// the general one (nameParts) on every name.
func FuzzCredentialName(f *testing.F) {
	for _, s := range []string{"X-Api-Key", "clientSecret", "XMLHttpToken", "aws_secret_access_key", "key", "", "--", "Émile-token"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		var buf [64]byte
		compact, last, prev, ok := splitASCII(name, buf[:0])
		if !ok {
			return
		}
		parts := nameParts(name)
		if got, want := string(compact), strings.Join(parts, ""); got != want {
			t.Fatalf("compact %q, want %q", got, want)
		}
		if len(parts) == 0 {
			return
		}
		wantPrev := ""
		if len(parts) > 1 {
			wantPrev = parts[len(parts)-2]
		}
		if string(compact[last:]) != parts[len(parts)-1] || string(compact[prev:last]) != wantPrev {
			t.Fatalf("last %q prev %q, want %q %q", compact[last:], compact[prev:last], parts[len(parts)-1], wantPrev)
		}
	})
}

// BenchmarkRedactByName measures redaction by name over a key-dense 1 MiB
// JSON body with no credential in it (the common case: every recorded JSON
// body goes through it).
func BenchmarkRedactByName(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString("[")
	for buf.Len() < 1<<20 {
		buf.WriteString(`{"id":"b1e2","login":"octocat","url":"https://api.github.com/users/octocat","site_admin":false},`)
	}
	buf.WriteString(`{"id":1}]`)
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		builtin.RedactByName("application/json", data)
	}
}

// TestBareKeyIsDataInBodies: "key" alone is a credential in a query or a
// header (Google's ?key=), but data as a JSON key or multipart field (etcd's
// {"key":"/foo"} and go-vcr's middleware example's key=value form, as
// go-vcr's own cassettes record them); a qualified
// key stays a credential everywhere.
func TestBareKeyIsDataInBodies(t *testing.T) {
	if !builtin.IsCredentialName("key") || builtin.IsCredentialField("key") || builtin.IsCredentialField("Key") || !builtin.IsCredentialField("api_key") || !builtin.IsCredentialField("password") {
		t.Fatal("IsCredentialField: bare key must be data, qualified keys and passwords credentials")
	}
	body := `{"action":"set","node":{"key":"/foo","value":"bar"},"api_key":"k-123456"}`
	got, hidden := builtin.RedactByName("application/json", []byte(body))
	if want := `{"action":"set","node":{"key":"/foo","value":"bar"},"api_key":"[REDACTED]"}`; string(got) != want || len(hidden) != 1 {
		t.Errorf("RedactByName = %s (hid %q), want %s", got, hidden, want)
	}
	if q, _ := builtin.RedactQuery("key=AIzaSyA-secret&q=1"); q != "key=%5BREDACTED%5D&q=1" {
		t.Errorf("RedactQuery = %s", q)
	}
	if f, _ := builtin.RedactByName("application/x-www-form-urlencoded", []byte("key=value&password=hunter22")); string(f) != "key=value&password=%5BREDACTED%5D" {
		t.Errorf("form body = %s", f)
	}
}
