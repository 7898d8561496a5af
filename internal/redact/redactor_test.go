package redact

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

const plantedValue = "pl4nted-Value/with+chars" // declared, matches no known format

func TestRedactorURL(t *testing.T) {
	r := New(nil, map[string]string{"API_TOKEN": plantedValue})
	tests := []struct {
		name, in, want string
	}{
		{"credential-named parameter", "https://api.example.com/x?access_token=abc123&page=2",
			"https://api.example.com/x?access_token=%5BREDACTED%5D&page=2"},
		{"api_key parameter", "https://api.example.com/x?api_key=abc&b=1", "https://api.example.com/x?api_key=%5BREDACTED%5D&b=1"},
		{"declared value, query-escaped", "https://api.example.com/x?q=" + url.QueryEscape(plantedValue),
			"https://api.example.com/x?q=[REDACTED]"},
		{"declared value in the path", "https://api.example.com/u/" + url.PathEscape(plantedValue) + "/x",
			"https://api.example.com/u/[REDACTED]/x"},
		{"userinfo password", "https://bob:hunter22@example.com/", "https://bob:%5BREDACTED%5D@example.com/"},
		{"a token as the user", "https://x9Kq2Lm7Xv4Rt8Wz1Np6Bc@github.com/a.git", "https://%5BREDACTED%5D@github.com/a.git"},
		{"order and encoding of other parameters kept", "https://e.com/?b=2&a=%20x&a=y", "https://e.com/?b=2&a=%20x&a=y"},
		{"no query", "https://e.com/p", "https://e.com/p"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.URL(tt.in); got != tt.want {
				t.Errorf("URL(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestRedactorBytes(t *testing.T) {
	gh := "ghp_" + "R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4u"
	r := New(nil, map[string]string{"API_TOKEN": plantedValue, "SHORT": "abc"})
	tests := []struct {
		name, in, want string
	}{
		{"plain declared value", "token is " + plantedValue + ".", "token is [REDACTED]."},
		{"JSON-escaped value", `{"t":"pl4nted-Value\/with+chars"}`, `{"t":"[REDACTED]"}`},
		{"base64 of the value", "Basic " + "cGw0bnRlZC1WYWx1ZS93aXRoK2NoYXJz", "Basic [REDACTED]"},
		{"known format undeclared", "use " + gh + " now", "use [REDACTED] now"},
		{"short values are not scrubbed (too many false hits)", "abc abc", "abc abc"},
		{"nothing to do", "hello", "hello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(r.Bytes([]byte(tt.in))); got != tt.want {
				t.Errorf("Bytes(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestEncodings: every form a value takes on the wire is listed once, and
// a learned value is scrubbed in each of them, like a declared one.
func TestEncodings(t *testing.T) {
	const v = "a/b?c>d&e+f~g" // 13 bytes: base64 needs padding; "/", "+" and "&" escape differently
	b := []byte(v)
	want := []string{v, url.QueryEscape(v), url.PathEscape(v),
		`a\/b?c>d&e+f~g`, `a/b?c\u003ed\u0026e+f~g`, `a\/b?c\u003ed\u0026e+f~g`,
		base64.StdEncoding.EncodeToString(b), base64.RawStdEncoding.EncodeToString(b),
		base64.URLEncoding.EncodeToString(b), base64.RawURLEncoding.EncodeToString(b)}
	got := Encodings(v)
	seen := map[string]bool{}
	for _, f := range got {
		if seen[f] {
			t.Errorf("%q listed twice", f)
		}
		seen[f] = true
	}
	for _, f := range want {
		if !seen[f] {
			t.Errorf("Encodings(%q) lacks %q (got %q)", v, f, got)
		}
	}
	r := New(nil, nil)
	r.Learn(v)
	for _, f := range want {
		if out := string(r.Bytes([]byte("x " + f + " y"))); out != "x [REDACTED] y" {
			t.Errorf("learned value in form %q: %q", f, out)
		}
	}
	if got := r.NamesIn(want[4]); len(got) != 1 || got[0] != Learned {
		t.Errorf("NamesIn = %q, want [%s]", got, Learned)
	}
}

// TestRedactorLearns: what a Redactor hides by name it learns (header
// secrets, credential-named URL and form parameters, JSON keys), short
// and already-redacted values excepted; it is used concurrently.
func TestRedactorLearns(t *testing.T) {
	r := New(NewRules([]string{"X-Tenant-Pin"}), nil)
	var wg sync.WaitGroup
	for _, learn := range []func(){
		func() {
			r.LearnHeaders(http.Header{"Authorization": {"Bearer header-token-1"}, "X-Tenant-Pin": {"tenant-pin-22"}})
		},
		func() { r.LearnURL("https://u:url-password-3@e.com/?access_token=query-token-4&page=2") },
		func() { r.LearnForm(url.Values{"client_secret": {"form-secret-5"}, "name": {"not-a-secret"}}) },
		func() {
			r.LearnBody("application/json", []byte(`{"refresh_token":"json-token-6","id":"not-a-secret"}`))
		},
		func() { r.Learn("short") },
		func() { r.Learn("%5BREDACTED%5D-long") },
	} {
		wg.Add(1)
		go func() { defer wg.Done(); learn() }()
	}
	wg.Wait()
	text := "header-token-1 tenant-pin-22 url-password-3 query-token-4 form-secret-5 json-token-6 not-a-secret short"
	want := "[REDACTED] [REDACTED] [REDACTED] [REDACTED] [REDACTED] [REDACTED] not-a-secret short"
	if got := r.String(text); got != want {
		t.Errorf("String =\n %q\nwant\n %q", got, want)
	}
	if f := r.Scan([]byte(text)); len(f) != 6 || !strings.HasPrefix(f[0].Kind, "declared:"+Learned) {
		t.Errorf("Scan = %+v, want 6 findings of learned values", f)
	}
}

// TestDecode: every coding of the table, layered ones undone from the
// last, gzip and zstd recognised by their magic bytes without a header; a
// body that says or looks compressed and does not decode is
// ErrUndecodable, unless it is text (mislabelled).
func TestDecode(t *testing.T) {
	const plain = "hello secret world"
	enc := func(codings ...string) []byte {
		b := []byte(plain)
		for _, c := range codings {
			var err error
			if b, err = Encode(c, b); err != nil {
				t.Fatal(err)
			}
		}
		return b
	}
	var raw bytes.Buffer
	fw, _ := flate.NewWriter(&raw, flate.BestSpeed)
	io.WriteString(fw, plain)
	fw.Close()
	// Corrupt: a byte of the deflate stream changed (the checksum or the
	// stream breaks), not merely cut short.
	corrupt := bytes.Clone(enc("gzip"))
	corrupt[len(corrupt)/2] ^= 0x5a
	tests := []struct {
		name     string
		encoding string
		body     []byte
		ok       bool
		sniffed  string
	}{
		{"gzip", "gzip", enc("gzip"), true, ""},
		{"x-gzip, case and spaces", " X-Gzip ", enc("gzip"), true, ""},
		{"deflate is zlib", "deflate", enc("deflate"), true, ""},
		{"raw deflate too", "deflate", raw.Bytes(), true, ""},
		{"brotli", "br", enc("br"), true, ""},
		{"zstd", "zstd", enc("zstd"), true, ""},
		{"layered: gzip then br", "gzip, br", enc("gzip", "br"), true, ""},
		{"gzip magic, no header", "", enc("gzip"), true, "gzip"},
		{"zstd magic, no header", "", enc("zstd"), true, "zstd"},
		{"identity only", "identity", []byte(plain), true, ""},
		{"mislabelled text", "gzip", []byte(plain), true, ""},
		{"corrupt gzip", "gzip", corrupt, false, ""},
		{"corrupt gzip, no header", "", corrupt, false, "gzip"},
		{"a coding without a decoder", "compress", []byte{0x1f, 0x9d, 0x90, 0x00}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			if tt.encoding != "" {
				h.Set("Content-Encoding", tt.encoding)
			}
			got, sniffed, err := Readable(h, tt.body)
			if (err == nil) != tt.ok || (tt.ok && string(got) != plain) || sniffed != tt.sniffed {
				t.Errorf("Readable = %q, %q, %v; want ok %v, sniffed %q", got, sniffed, err, tt.ok, tt.sniffed)
			}
			if err != nil && !errors.Is(err, ErrUndecodable) {
				t.Errorf("err = %v, want ErrUndecodable", err)
			}
		})
	}
	if _, err := Open([]string{"gzip"}, enc("zstd")); !errors.Is(err, ErrUndecodable) || !strings.Contains(err.Error(), "as gzip") {
		t.Errorf("Open of zstd as gzip: %v", err)
	}
}

// BenchmarkRedactorBytes measures redaction throughput and reports it as a
// ratio to a plain copy of the same bytes, measured in the same run.
func BenchmarkRedactorBytes(b *testing.B) {
	r := New(nil, map[string]string{"A": plantedValue, "B": "another-secret-value"})
	data := []byte(strings.Repeat(`{"id":12345,"name":"some repository","url":"https://api.example.com/repos/x"},`, 4096))
	b.SetBytes(int64(len(data)))
	var base, subj time.Duration
	for b.Loop() {
		t0 := time.Now()
		_ = append([]byte(nil), data...)
		t1 := time.Now()
		_ = r.Bytes(data)
		base, subj = base+t1.Sub(t0), subj+time.Since(t1)
	}
	b.ReportMetric(float64(subj)/float64(base), "x-copy-time")
	b.ReportMetric(float64(len(data))*float64(b.N)/subj.Seconds()/1e6, "redact-MB/s")
}

// FuzzRedactor: a learned value, written in any of its forms anywhere in a
// text, never survives Bytes (Scan finds nothing of it), and Bytes is
// idempotent.
func FuzzRedactor(f *testing.F) {
	f.Add("ab/cd/ef?gh>0123456789~", "token: ", uint8(3), " end")
	f.Add("pl4nted-Value/with+chars", `{"t":"`, uint8(4), `"}`)
	f.Fuzz(func(t *testing.T, value, before string, form uint8, after string) {
		if !learnable(strings.TrimSpace(value)) || strings.Contains(before+after, "REDACTED") {
			return
		}
		r := New(nil, nil)
		r.Learn(value)
		forms := Encodings(strings.TrimSpace(value))
		text := []byte(before + forms[int(form)%len(forms)] + after)
		out := r.Bytes(text)
		if got := r.Scan(out); len(got) != 0 {
			t.Fatalf("Bytes(%q) = %q still holds the value: %+v", text, out, got)
		}
		if again := r.Bytes(out); !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %q then %q", out, again)
		}
	})
}

// FuzzStringAgreesWithBytes: String, which returns a text holding no value
// and no format keyword as it is, gives what Bytes gives, with values
// declared and learned, and with KeepFormats.
func FuzzStringAgreesWithBytes(f *testing.F) {
	for _, s := range plainURLSeeds {
		f.Add(s)
	}
	for _, s := range []string{"token is " + plantedValue + ".", `{"t":"pl4nted-Value\/with+chars"}`, "Basic cGw0bnRlZC1WYWx1ZS93aXRoK2NoYXJz",
		"use ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4u now", "learned-s3cret-v4lue", "xlearned-s3cret-v4lue", "hello", ""} {
		f.Add(s)
	}
	rs := []*Redactor{New(nil, nil), New(nil, map[string]string{"API_TOKEN": plantedValue}), New(nil, map[string]string{"API_TOKEN": plantedValue}).KeepFormats()}
	for _, r := range rs[1:] {
		r.Learn("learned-s3cret-v4lue")
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i, r := range rs {
			if got, want := r.String(s), string(r.Bytes([]byte(s))); got != want {
				t.Fatalf("redactor %d: String(%q) = %q, Bytes %q", i, s, got, want)
			}
		}
	})
}
