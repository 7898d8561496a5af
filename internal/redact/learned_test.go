package redact

import (
	"strings"
	"testing"
)

// TestLearnedValueScrubbedWhole: a learned value is replaced where it
// stands as a whole value (a JSON string value, a header or query value, a
// token between non-word characters) and kept inside a longer word and as
// a JSON object key; a declared one is replaced wherever it appears (#35).
func TestLearnedValueScrubbedWhole(t *testing.T) {
	const v = "k3y-Value9"
	r := New(nil, map[string]string{"TOOL_TOKEN": "decl4red-v4lue"})
	r.Learn(v)
	tests := []struct{ in, want string }{
		{`{"t":"k3y-Value9"}`, `{"t":"[REDACTED]"}`},
		{`Bearer k3y-Value9`, `Bearer [REDACTED]`},
		{`https://e.com/?q=k3y-Value9&page=2`, `https://e.com/?q=[REDACTED]&page=2`},
		{`(k3y-Value9)`, `([REDACTED])`},
		{`"body":"\r\n\r\nk3y-Value9\r\n--x"`, `"body":"\r\n\r\n[REDACTED]\r\n--x"`}, // after JSON escapes
		{`a=1\u0026t=k3y-Value9`, `a=1\u0026t=[REDACTED]`},
		{`q=Bearer%20k3y-Value9`, `q=Bearer%20[REDACTED]`},               // percent-encoded
		{`\\nk3y-Value9`, `\\nk3y-Value9`},                               // an escaped backslash, then the letter n
		{`{"k3y-Value9":1}`, `{"k3y-Value9":1}`},                         // a key
		{`{\"k3y-Value9\" : 1}`, `{\"k3y-Value9\" : 1}`},                 // a key, inside a quoted string
		{`{"client_k3y-Value9_post":1}`, `{"client_k3y-Value9_post":1}`}, // glued
		{`xk3y-Value9`, `xk3y-Value9`},
		{`k3y-Value9s`, `k3y-Value9s`},
		{`k3y-Value9k3y-Value9 k3y-Value9`, `k3y-Value9k3y-Value9 [REDACTED]`},
		{`xdecl4red-v4luex`, `x[REDACTED]x`}, // declared: anywhere
	}
	for _, tt := range tests {
		if got := r.String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
		// The scan agrees with the replacement: what is kept is no finding.
		if f := r.Scan([]byte(r.String(tt.in))); len(f) != 0 {
			t.Errorf("Scan(String(%q)) = %+v, want nothing", tt.in, f)
		}
	}
	if got := r.NamesIn(`{"client_k3y-Value9_post":1}`); len(got) != 0 {
		t.Errorf("NamesIn of a glued value = %q", got)
	}
}

// TestDictionaryWordsNotLearned: a password that is a dictionary word is
// replaced where it stood as a credential and not learned: the rest of the
// session keeps the word (`{"password":"secret"}` at login, then
// `{"secret_encoded":false}`, was saved as `{"[REDACTED]_encoded":false}`).
func TestDictionaryWordsNotLearned(t *testing.T) {
	r := New(nil, nil)
	login := `{"username":"me","password":"secret"}`
	if got := string(r.Body("application/json", []byte(login))); got != `{"username":"me","password":"[REDACTED]"}` {
		t.Errorf("login body = %s", got)
	}
	for _, w := range []string{"secret", "password", "changeme", "PASSWORD", "12345678", "Password123"} {
		r.LearnBody("application/json", []byte(`{"password":"`+w+`"}`))
	}
	later := `{"secret_encoded":false,"token_endpoint_auth_method":"client_secret_post","secrets":[],"note":"changeme secret password 12345678"}`
	if got := string(r.Body("application/json", []byte(later))); got != later {
		t.Errorf("a later body changed:\n got %s\nwant %s", got, later)
	}
	if len(r.Values()) != 0 {
		t.Errorf("learned %d forms of dictionary words", len(r.Values()))
	}
	for _, strong := range []string{"hunter2-x", "Tr0ub4dor&3", "correcthorsebatterystaple"} {
		if weak(strong) {
			t.Errorf("weak(%q) = true: a real password would not be learned", strong)
		}
	}
	r.Learn("hunter2-x")
	if got := r.String("echo hunter2-x"); !strings.HasSuffix(got, Redacted) {
		t.Errorf("a learned password was kept: %q", got)
	}
}

// TestEmptyValuesKept: an empty value under a credential name hides
// nothing and stays as it was (GitHub's "temp_clone_token": "" was stored
// as "[REDACTED]"), in JSON, a query, a form, a header and a URL.
func TestEmptyValuesKept(t *testing.T) {
	r := New(nil, nil)
	for _, body := range []string{`{"temp_clone_token":"","name":"r"}`, `{"tokens":["", "x"]}`} {
		want := strings.Replace(body, `"x"`, `"[REDACTED]"`, 1)
		if got := string(r.Body("application/json", []byte(body))); got != want {
			t.Errorf("Body(%s) = %s, want %s", body, got, want)
		}
	}
	if got := string(r.Body("application/x-www-form-urlencoded", []byte("password=&user=me"))); got != "password=&user=me" {
		t.Errorf("form: %s", got)
	}
	if got := r.URL("https://u:@e.com/?access_token=&page=2"); got != "https://u:@e.com/?access_token=&page=2" {
		t.Errorf("URL: %s", got)
	}
	if got := r.Headers(map[string][]string{"Authorization": {""}, "X-Api-Key": {"k3y-Value9"}}); got["Authorization"][0] != "" || got["X-Api-Key"][0] != Redacted {
		t.Errorf("headers: %v", got)
	}
}

// TestOAuthCodeRedacted: an OAuth authorization code is a credential in a
// redirect's query (?code=…&state=…) and in the token request's form, not
// as a JSON key ("code": 404).
func TestOAuthCodeRedacted(t *testing.T) {
	r := New(nil, nil)
	if got := r.URL("https://app.example/callback?code=SplxlOBeZQQYbYS6WxSbIA&state=xyz"); got != "https://app.example/callback?code=%5BREDACTED%5D&state=xyz" {
		t.Errorf("URL: %s", got)
	}
	if got := string(r.Body("application/x-www-form-urlencoded", []byte("grant_type=authorization_code&code=SplxlOBeZQQYbYS6WxSbIA&redirect_uri=x"))); got != "grant_type=authorization_code&code=%5BREDACTED%5D&redirect_uri=x" {
		t.Errorf("form: %s", got)
	}
	if got := string(r.Body("application/json", []byte(`{"code":404,"error":{"code":"not_found"}}`))); got != `{"code":404,"error":{"code":"not_found"}}` {
		t.Errorf("JSON: %s", got)
	}
}
