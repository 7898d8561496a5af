package recorder

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/redact"
)

const plantedValue = "pl4nted-Value/with+chars" // declared, matches no known format

func TestRedactorURL(t *testing.T) {
	r := NewRedactor(map[string]string{"API_TOKEN": plantedValue})
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
	gh := "ghp_" + strings.Repeat("A1b2", 9)
	r := NewRedactor(map[string]string{"API_TOKEN": plantedValue, "SHORT": "abc"})
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

func TestRedactorInteraction(t *testing.T) {
	r := NewRedactor(map[string]string{"API_TOKEN": plantedValue})
	body := `{"echo":"` + plantedValue + `"}`
	in := cassettes.Interaction{
		Request: cassettes.Request{
			Method: "POST", URL: "https://api.example.com/x?token=" + url.QueryEscape(plantedValue),
			RemoteAddr: "127.0.0.1:53211",
			Headers: http.Header{
				"Authorization":  {"Bearer " + plantedValue},
				"X-Github-Token": {"whatever"},
				"X-Trace":        {"id-" + plantedValue},
				"Accept":         {"application/json"},
			},
			Form:          url.Values{"password": {"hunter22"}, "q": {plantedValue}},
			Body:          cassettes.Body(body),
			ContentLength: int64(len(body)),
		},
		Response: cassettes.Response{
			Code: 200, Status: "200 OK",
			Headers:       http.Header{"Set-Cookie": {"s=1"}, "Content-Length": {"99"}, "Content-Type": {"application/json"}},
			Body:          cassettes.Body(body),
			ContentLength: int64(len(body)),
		},
	}
	r.Interaction(&in)
	want := `{"echo":"[REDACTED]"}`
	checks := []struct{ name, got, want string }{
		{"authorization", in.Request.Headers.Get("Authorization"), redact.Redacted},
		{"header named like a token", in.Request.Headers.Get("X-Github-Token"), redact.Redacted},
		{"value in another header", in.Request.Headers.Get("X-Trace"), "id-" + redact.Redacted},
		{"harmless header kept", in.Request.Headers.Get("Accept"), "application/json"},
		{"query", in.Request.URL, "https://api.example.com/x?token=%5BREDACTED%5D"},
		{"remote addr dropped", in.Request.RemoteAddr, ""},
		{"form credential", in.Request.Form.Get("password"), redact.Redacted},
		{"form value", in.Request.Form.Get("q"), redact.Redacted},
		{"request body", string(in.Request.Body), want},
		{"response body", string(in.Response.Body), want},
		{"set-cookie", in.Response.Headers.Get("Set-Cookie"), redact.Redacted},
		{"content-length header follows the body", in.Response.Headers.Get("Content-Length"), "21"},
		{"harmless response header kept", in.Response.Headers.Get("Content-Type"), "application/json"},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if c.got != c.want {
				t.Errorf("got %q, want %q", c.got, c.want)
			}
		})
	}
	if in.Request.ContentLength != int64(len(want)) || in.Response.ContentLength != int64(len(want)) {
		t.Errorf("content lengths %d/%d, want %d", in.Request.ContentLength, in.Response.ContentLength, len(want))
	}
}

func TestCheckRefusesLeftoverSecretsWithoutShowingThem(t *testing.T) {
	r := NewRedactor(map[string]string{"API_TOKEN": plantedValue})
	c := &cassettes.Cassette{Version: 2, Path: "cassettes/gh/x.yaml", Output: &cassettes.Output{
		Stdout: cassettes.Body("line one\nleak: " + plantedValue + "\n"),
	}}
	err := r.Check(c)
	var ce *cassettes.Error
	if !errors.As(err, &ce) {
		t.Fatalf("Check = %v, want a *cassettes.Error", err)
	}
	if ce.Reason != cassettes.ESecretLeak {
		t.Errorf("reason = %s, want %s", ce.Reason, cassettes.ESecretLeak)
	}
	if len(ce.Problems) == 0 || ce.Problems[0].Line == 0 || ce.Problems[0].File != c.Path {
		t.Errorf("problems = %+v, want one with file and line", ce.Problems)
	}
	if strings.Contains(ce.Error(), plantedValue) || strings.Contains(ce.NextStep, plantedValue) {
		t.Errorf("the error shows the secret: %s", ce.Error())
	}
	if !strings.Contains(ce.Error(), "declared:API_TOKEN") {
		t.Errorf("the error does not name the variable: %s", ce.Error())
	}
	r.Cassette(c)
	if err := r.Check(c); err != nil {
		t.Errorf("after redaction, Check = %v", err)
	}
}

// BenchmarkRedactorBytes measures redaction throughput and reports it as a
// ratio to a plain copy of the same bytes, measured in the same run.
func BenchmarkRedactorBytes(b *testing.B) {
	r := NewRedactor(map[string]string{"A": plantedValue, "B": "another-secret-value"})
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
