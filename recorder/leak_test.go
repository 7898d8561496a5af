package recorder

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/redact"
)

func gz(t testing.TB, s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	io.WriteString(w, s)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// compressingServer echoes the request's Authorization header and body,
// compressed as the client's Accept-Encoding asks (gzip or deflate).
func compressingServer(t *testing.T) *httptest.Server {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			body, _ = io.ReadAll(zr)
		} else {
			body, _ = io.ReadAll(r.Body)
		}
		plain := `{"echo":"` + r.Header.Get("Authorization") + `","body":"` + strings.ReplaceAll(string(body), `"`, `'`) + `"}`
		var out bytes.Buffer
		switch ae := r.Header.Get("Accept-Encoding"); {
		case strings.Contains(ae, "gzip"):
			w.Header().Set("Content-Encoding", "gzip")
			out.Write(gz(t, plain))
		case strings.Contains(ae, "deflate"):
			w.Header().Set("Content-Encoding", "deflate")
			zw := zlib.NewWriter(&out)
			io.WriteString(zw, plain)
			zw.Close()
		default:
			out.WriteString(plain)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(out.Bytes())
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestRecordHTTPDecodesCompressedBodies: a compressed response (and request)
// body is stored decoded, so redaction and the scan see the token in it.
func TestRecordHTTPDecodesCompressedBodies(t *testing.T) {
	const token = "compressed-secret-token-42"
	srv := compressingServer(t)
	for _, enc := range []string{"gzip", "deflate"} {
		t.Run(enc, func(t *testing.T) {
			recs, err := RecordHTTP(context.Background(), HTTPOptions{
				Meta:    Meta{Adapter: "srv", Now: fixedNow},
				BaseURL: srv.URL, Transport: srv.Client().Transport,
				Headers:     map[string]string{"Authorization": "Bearer ${SRV_TOKEN}"},
				Credentials: []string{"SRV_TOKEN"}, LookupEnv: env(map[string]string{"SRV_TOKEN": token}),
				Scenarios: []Scenario{{Name: "echo", Method: "POST", Path: "/echo",
					Headers: map[string]string{"Accept-Encoding": enc, "Content-Encoding": "gzip"},
					Body:    string(gz(t, "sent "+token))}},
			})
			if err != nil {
				t.Fatal(err)
			}
			in := recs[0].Cassette.Interactions[0]
			want := `{"echo":"Bearer [REDACTED]","body":"sent [REDACTED]"}`
			if got := string(in.Response.Body); got != want {
				t.Errorf("response body = %q, want %q", got, want)
			}
			if ce := in.Response.Headers.Get("Content-Encoding"); ce != "" || !in.Response.Uncompressed || in.Response.ContentLength != int64(len(want)) {
				t.Errorf("response: Content-Encoding %q, uncompressed %v, content_length %d (want %d)", ce, in.Response.Uncompressed, in.Response.ContentLength, len(want))
			}
			if got := string(in.Request.Body); got != "sent [REDACTED]" || in.Request.Headers.Get("Content-Encoding") != "" || in.Request.ContentLength != int64(len(got)) {
				t.Errorf("request body = %q, Content-Encoding %q, content_length %d", got, in.Request.Headers.Get("Content-Encoding"), in.Request.ContentLength)
			}
			data, err := cassettes.Marshal(recs[0].Cassette)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(data, []byte("!!binary")) {
				t.Errorf("the cassette still holds a binary (compressed) body:\n%s", data)
			}
		})
	}
}

// undeclaredServer echoes the bearer token and the api_key parameter the
// client sent (neither is a declared variable) in its body, in Location and
// in WWW-Authenticate, and repeats the last token it saw to later requests.
func undeclaredServer(t *testing.T) *httptest.Server {
	var mu sync.Mutex
	var last string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if tok != "" {
			last = tok
		}
		key := r.URL.Query().Get("api_key")
		w.Header().Set("Location", "/next?t="+last)
		w.Header().Set("WWW-Authenticate", `Bearer realm="x", error="`+last+`"`)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"token":"`+last+`","key":"`+key+`"}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

const (
	undeclaredKey    = "undeclaredsecretvalue99"
	undeclaredBearer = "undeclared-bearer-0123456789"
)

// TestRecordHTTPScrubsValuesHiddenByName: a value blanked because of its
// name (api_key parameter, bearer token of an undeclared header value) is
// scrubbed from the body and headers of the same and later interactions.
func TestRecordHTTPScrubsValuesHiddenByName(t *testing.T) {
	srv := undeclaredServer(t)
	recs, err := RecordHTTP(context.Background(), HTTPOptions{
		Meta:    Meta{Adapter: "srv", Now: fixedNow},
		BaseURL: srv.URL, Transport: srv.Client().Transport, LookupEnv: env(nil),
		Scenarios: []Scenario{
			{Name: "first", Path: "/x?api_key=" + undeclaredKey, Headers: map[string]string{"Authorization": "Bearer " + undeclaredBearer}},
			{Name: "later", Path: "/y"}, // no credential sent; the server repeats the token
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		data, err := cassettes.Marshal(r.Cassette)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []string{undeclaredKey, undeclaredBearer} {
			if bytes.Contains(data, []byte(v)) {
				t.Errorf("%s: the cassette holds %s:\n%s", r.Cassette.Scenario, v, data)
			}
		}
		p := r.Cassette.Interactions[0].Response
		if !strings.Contains(string(p.Body), `"token":"[REDACTED]"`) || !strings.Contains(p.Headers.Get("WWW-Authenticate"), redact.Redacted) ||
			!strings.Contains(p.Headers.Get("Location"), redact.Redacted) {
			t.Errorf("%s: body %q, WWW-Authenticate %q, Location %q", r.Cassette.Scenario, p.Body, p.Headers.Get("WWW-Authenticate"), p.Headers.Get("Location"))
		}
	}
	if got := string(recs[0].Cassette.Interactions[0].Response.Body); got != `{"token":"[REDACTED]","key":"[REDACTED]"}` {
		t.Errorf("first body = %q", got)
	}
}

// TestRecordCLIRefusesCredentialInArgs: a declared value written in the
// command line is refused before the command runs, with a next step that
// refers to the variable and names the field.
func TestRecordCLIRefusesCredentialInArgs(t *testing.T) {
	const val = "s3cr3t-value"
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	_, err := RecordCLI(context.Background(), CLIOptions{
		Meta:    Meta{Adapter: "srv", Scenario: "login", Now: fixedNow},
		Command: "sh", Args: []string{"-c", "touch " + marker + "; curl -u user:" + val + " https://example.invalid/"},
		Credentials: []string{"SRV_TOKEN"}, LookupEnv: env(map[string]string{"SRV_TOKEN": val}),
	})
	var ce *cassettes.Error
	if !errors.As(err, &ce) || ce.Reason != cassettes.ESecretLeak {
		t.Fatalf("err = %v, want E_SECRET_LEAK", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the command ran")
	}
	want := "cassette record --adapter srv --scenario login -- sh -c 'touch " + marker + "; curl -u user:${SRV_TOKEN} https://example.invalid/'"
	if !strings.Contains(ce.NextStep, want) || strings.Contains(ce.NextStep, "declare the variable") {
		t.Errorf("next step = %q\nwant it to contain %q", ce.NextStep, want)
	}
	if len(ce.Problems) != 1 || ce.Problems[0].Field != "input.args[1]" || !strings.Contains(ce.Problems[0].Message, "SRV_TOKEN") {
		t.Errorf("problems = %+v", ce.Problems)
	}
	if strings.Contains(ce.Error()+ce.NextStep, val) {
		t.Errorf("the error shows the value")
	}

	// Without a shell, the suggestion wraps the command in sh -c.
	_, err = RecordCLI(context.Background(), CLIOptions{Meta: Meta{Adapter: "srv", Scenario: "s"},
		Command: "curl", Args: []string{"-u", "user:" + val, "https://example.invalid/"},
		Credentials: []string{"SRV_TOKEN"}, LookupEnv: env(map[string]string{"SRV_TOKEN": val})})
	if !errors.As(err, &ce) || !strings.Contains(ce.NextStep, `-- sh -c 'curl -u "user:${SRV_TOKEN}" https://example.invalid/'`) ||
		ce.Problems[0].Field != "input.args[1]" {
		t.Errorf("err = %v, next step %q", err, ce.NextStep)
	}
}

// TestRecordCLIThroughProxyScrubsUndeclaredBearer runs curl through the
// recording proxy with a bearer token that is not declared: the token is
// learned from the header and scrubbed from the recorded responses and the
// command's output; written in the arguments, it is refused.
func TestRecordCLIThroughProxyScrubsUndeclaredBearer(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		missingTool(t, "curl not installed")
	}
	srv := undeclaredServer(t)
	dir := t.TempDir()
	rec := func(script string) (*cassettes.Cassette, error) {
		return RecordCLI(context.Background(), CLIOptions{
			Meta:    Meta{Adapter: "curl", Scenario: "s", Now: fixedNow},
			Command: "sh", Args: []string{"-c", script},
			Environ:   []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TOK=" + undeclaredBearer},
			Intercept: ProxyInterceptor(ProxyConfig{CADir: filepath.Join(dir, "ca"), Transport: srv.Client().Transport.(*http.Transport).Clone()}),
		})
	}
	_, err := rec(`curl -sS -H "Authorization: Bearer $TOK" "` + srv.URL + `/x?api_key=` + undeclaredKey + `"; echo; curl -sS -D - "` + srv.URL + `/y"`)
	if err == nil {
		t.Fatal("the api_key value written in the arguments was not refused")
	}
	var ce *cassettes.Error
	if !errors.As(err, &ce) || ce.Reason != cassettes.ESecretLeak || !strings.Contains(ce.Message, "real.credentials") ||
		!strings.Contains(ce.NextStep, "${CURL_TOKEN}") || strings.Contains(ce.NextStep, "#") || strings.Contains(ce.Error()+ce.NextStep, undeclaredKey) {
		t.Errorf("err = %v\nnext step %q", err, ce.NextStep)
	}

	c, err := rec(`curl -sS -H "Authorization: Bearer $TOK" "` + srv.URL + `/x"; echo; curl -sS -D - "` + srv.URL + `/y"`)
	if err != nil {
		t.Fatal(err)
	}
	data, err := cassettes.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(undeclaredBearer)) {
		t.Errorf("the cassette holds the undeclared bearer token:\n%s", data)
	}
	if len(c.Interactions) != 2 || !strings.Contains(string(c.Output.Stdout), `"token":"[REDACTED]"`) {
		t.Errorf("%d interactions, stdout %q", len(c.Interactions), c.Output.Stdout)
	}
}

// TestRecordCLIRefusesCredentialInStdin: stdin is fed again on every
// re-recording, so a credential in it is refused, not silently redacted.
func TestRecordCLIRefusesCredentialInStdin(t *testing.T) {
	const val = "s3cr3t-stdin-value"
	_, err := RecordCLI(context.Background(), CLIOptions{Meta: Meta{Adapter: "srv", Scenario: "login", Now: fixedNow},
		Command: "cat", Stdin: []byte("password=" + val + "\n"),
		Credentials: []string{"SRV_TOKEN"}, LookupEnv: env(map[string]string{"SRV_TOKEN": val})})
	var ce *cassettes.Error
	if !errors.As(err, &ce) || ce.Reason != cassettes.ESecretLeak || len(ce.Problems) != 1 || ce.Problems[0].Field != "input.stdin" {
		t.Fatalf("err = %v, want E_SECRET_LEAK on input.stdin", err)
	}
	if strings.Contains(ce.Error()+ce.NextStep, val) {
		t.Errorf("the error shows the value")
	}
}
