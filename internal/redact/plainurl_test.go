package redact

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// parsedURL is Redactor.URL as it was before plainURLQuery: every URL
// parsed. The fast path must give what it gives.
func parsedURL(r *Redactor, raw string) string {
	if raw == "" {
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return r.String(raw)
	}
	if u.User != nil {
		if pw, has := u.User.Password(); has {
			if pw != "" {
				u.User = url.UserPassword(u.User.Username(), Redacted)
			}
		} else if u.User.Username() != "" {
			u.User = url.User(Redacted)
		}
	}
	if u.RawQuery != "" {
		u.RawQuery, _ = r.rules.RedactQuery(u.RawQuery)
	}
	return r.String(u.String())
}

// parsedLearnURL is Redactor.LearnURL as it was before plainURLQuery.
func parsedLearnURL(r *Redactor, raw string) {
	if raw == "" {
		return
	}
	u, err := url.Parse(raw)
	if err != nil {
		return
	}
	if u.User != nil {
		if pw, ok := u.User.Password(); ok {
			r.Learn(pw)
		} else {
			r.Learn(u.User.Username())
		}
	}
	for _, p := range strings.Split(u.RawQuery, "&") {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			continue
		}
		name, err := url.QueryUnescape(k)
		if err != nil {
			name = k
		}
		if !r.rules.IsCredentialName(name) {
			continue
		}
		if dv, err := url.QueryUnescape(v); err == nil {
			r.Learn(dv)
		}
		r.Learn(v)
	}
}

// plainURLSeeds are URLs of the cassettes in /work/shared/testdata (go-vcr's
// and others' recordings) and tricky ones: userinfo, percent-escapes, IPv6
// hosts, ports, fragments, upper-case schemes, query values named like
// credentials, a learned value in the path.
var plainURLSeeds = []string{
	"http://127.0.0.1:2379/v2/keys/foo?quorum=false&recursive=false&sorted=false",
	"http://go-vcr/request2?query=example",
	"https://api.datadoghq.com/api/v1/monitor/can_delete?monitor_ids=238669218",
	"https://api.datadoghq.com/api/v2/team?page%5Bsize%5D=2&page%5Bnumber%5D=0",
	"https://api.scaleway.com/marketplace/v2/local-images?image_label=foo-bar-image&order_by=type_asc&type=unknown_type&zone=fr-par-1",
	"https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-haiku-4-5-20251001-v1%3A0/invoke-with-response-stream",
	"https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
	"https://us-east-1.linodeobjects.com:443/go-bucket-test-def/test?Signature=AR8zXFhZ7YiFXg5d92BWdbftFNk%3D&Expires=1777580764&AWSAccessKeyID=SANITIZED",
	"/v1/r7/items?page=12",
	"/v1/items?access_token=s3cr3t-t0ken-value&page=2",
	"/v1/items?api_key=abcdef123456&key=zyxwvu987654#frag",
	"/users/s3cr3t-t0ken-value/repos",
	"/a?",
	"/a?&&=x&=&token=&token",
	"/?%zz=1&token=%zz",
	"//host/path",
	"/a b",
	"/a%20b",
	"/a#b",
	"/a(b)*!",
	"/a:b@c;d=e,f+g$h&i~j",
	"https://user:pa55w0rd-long@api.test/x",
	"https://TOKEN0123456789@api.test/x",
	"https://user:@api.test/x",
	"https://[::1]:8080/x?token=abcdefgh",
	"https://[fe80::1%25en0]/x",
	"HTTPS://API.test/X",
	"https://API.test/X?Q=1",
	"https://api.test:/x",
	"https://api.test:99999/x",
	"https://api.test:8x/x",
	"https://api.test",
	"https://api.test?token=abcdefghij",
	"https://api.test/?token=abc%2Fdef%3Dghij",
	"http:///x",
	"http:x",
	"mailto:someone@example.com",
	"git+ssh://host/x",
	"a:b/c",
	"relative/path?token=abcdefghij",
	"/x?q=\x01",
	"/x?q=\u00e9t\u00e9&token=\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9",
	"/x?q=a b",
	"/x?q=a%2",
	"/x\x7f",
	"ghp_0123456789abcdefghijklmnopqrstuvwxyzAB",
	"/repos?token=ghp_0123456789abcdefghijklmnopqrstuvwxyzAB",
}

// TestPlainURLQuery holds plainURLQuery to what url.Parse makes of a URL it
// takes: no error, no user, the same query, written back byte for byte
// (with any other query in its place too).
func TestPlainURLQuery(t *testing.T) {
	for _, tc := range []struct {
		raw, query string
		plain      bool
	}{
		{"/v1/r7/items?page=12", "page=12", true},
		{"/v1/items", "", true},
		{"/a?", "", true},
		{"https://api.test:443/x?a=1&b=2", "a=1&b=2", true},
		{"https://api.test", "", true},
		{"https://api.test?q", "q", true},
		{"//host/path", "", false},
		{"/a%20b", "", false},
		{"/a b", "", false},
		{"/a#b", "", false},
		{"/a?b#c", "", false},
		{"/a?b c", "", false},
		{"https://u:p@api.test/x", "", false},
		{"https://[::1]/x", "", false},
		{"HTTPS://api.test/x", "", false},
		{"https://api.test:8x/x", "", false},
		{"http:///x", "", false},
		{"relative?q", "", false},
		{"", "", false},
	} {
		query, plain := plainURLQuery(tc.raw)
		if query != tc.query || plain != tc.plain {
			t.Errorf("plainURLQuery(%q) = %q, %v; want %q, %v", tc.raw, query, plain, tc.query, tc.plain)
		}
	}
	for _, raw := range plainURLSeeds {
		checkPlainURL(t, raw)
	}
}

func checkPlainURL(t *testing.T, raw string) {
	t.Helper()
	query, plain := plainURLQuery(raw)
	if !plain {
		return
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("plainURLQuery(%q) is plain, url.Parse fails: %v", raw, err)
	}
	if u.User != nil || u.RawQuery != query || u.String() != raw {
		t.Fatalf("plainURLQuery(%q) = %q, plain; url.Parse: user %v, query %q, written back %q", raw, query, u.User, u.RawQuery, u.String())
	}
	if query != "" {
		u.RawQuery = "token=%5BREDACTED%5D&b"
		if want := raw[:len(raw)-len(query)] + u.RawQuery; u.String() != want {
			t.Fatalf("%q with another query: url.Parse writes %q, the fast path %q", raw, u.String(), want)
		}
	}
}

// TestURLAgreesWithParse: Redactor.URL and LearnURL give what the
// parse-based versions give, for every seed, with values declared and
// learned.
func TestURLAgreesWithParse(t *testing.T) {
	for _, raw := range plainURLSeeds {
		checkURLAgrees(t, raw)
	}
}

func checkURLAgrees(t *testing.T, raw string) {
	t.Helper()
	declared := map[string]string{"API_TOKEN": "s3cr3t-t0ken-value"}
	fast, slow := New(nil, declared), New(nil, declared)
	fast.LearnURL(raw)
	parsedLearnURL(slow, raw)
	fv, sv := fast.Values(), slow.Values()
	if len(fv) != len(sv) {
		t.Fatalf("LearnURL(%q) learned %d forms, the parse-based one %d", raw, len(fv), len(sv))
	}
	for k, v := range sv {
		if fv[k] != v {
			t.Fatalf("LearnURL(%q): form %s differs", raw, k)
		}
	}
	if got, want := fast.URL(raw), parsedURL(slow, raw); got != want {
		t.Fatalf("URL(%q) = %q, the parse-based one %q", raw, got, want)
	}
}

func FuzzPlainURL(f *testing.F) {
	for _, raw := range plainURLSeeds {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		checkPlainURL(t, raw)
		checkURLAgrees(t, raw)
	})
}

// TestSessionURLsAgree: one Redactor over many URLs (its memo of query
// names filled, then full) gives what the parse-based code gives with a
// Redactor of its own that learned the same URLs.
func TestSessionURLsAgree(t *testing.T) {
	declared := map[string]string{"API_TOKEN": "s3cr3t-t0ken-value"}
	fast, slow := New(nil, declared), New(nil, declared)
	var urls []string
	for range 2 { // the second time, every name is remembered
		urls = append(urls, plainURLSeeds...)
	}
	for i := range maxQueryKeyMemo + 10 { // past the memo's bound
		urls = append(urls, fmt.Sprintf("/v1/items?n%d=1&page=%d", i, i))
	}
	urls = append(urls, plainURLSeeds...)
	urls = append(urls, "/v1/items?fresh_token=new-secret-value-1&n0=1", "/v1/items?n9999_token=new-secret-value-2")
	for _, raw := range urls {
		fast.LearnURL(raw)
		parsedLearnURL(slow, raw)
		if got, want := fast.URL(raw), parsedURL(slow, raw); got != want {
			t.Fatalf("URL(%q) = %q, the parse-based one %q", raw, got, want)
		}
	}
	if fast.Known() != slow.Known() {
		t.Fatalf("learned %d forms, the parse-based one %d", fast.Known(), slow.Known())
	}
	if got := fast.URL("/x?n9999_token=abc&q=new-secret-value-1"); got != "/x?n9999_token=%5BREDACTED%5D&q=[REDACTED]" {
		t.Fatalf("past the memo's bound: %q", got)
	}
}
