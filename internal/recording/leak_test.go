package recording

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
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
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
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

// compressingServer echoes the request's Authorization header and body
// (a gzip request body decoded), compressed with the codings the
// request's X-Encode header lists, in order ("gzip, br"), and labelled so
// in Content-Encoding — unless X-Encode starts with "unlabelled " (the
// bytes are compressed, no header says so) or is "corrupt" (a gzip body
// with a byte changed).
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
		plain := []byte(`{"echo":"` + r.Header.Get("Authorization") + `","body":"` + strings.ReplaceAll(string(body), `"`, `'`) +
			`","password":"pw-in-body-314","key":"` + compressedKey + `"}`)
		spec := r.Header.Get("X-Encode")
		label := true
		if rest, ok := strings.CutPrefix(spec, "unlabelled "); ok {
			spec, label = rest, false
		}
		out := plain
		if spec == "corrupt" {
			out = bytes.Clone(gz(t, string(plain)))
			out[len(out)/2] ^= 0x5a
			w.Header().Set("Content-Encoding", "gzip")
		} else if spec != "" {
			for _, c := range strings.Split(spec, ",") {
				var err error
				if out, err = redact.Encode(strings.TrimSpace(c), out); err != nil {
					http.Error(w, err.Error(), 500)
					return
				}
			}
			if label {
				w.Header().Set("Content-Encoding", spec)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// compressedKey is a token of a known format the compressing server
// answers with (a realistic npm token; none is live).
const compressedKey = "npm_a8Kq2Lm9Xv4Rt7Wz1Np6Bc3Df5Jk0Sy8Ue2I"

// TestRecordHTTPDecodesCompressedBodies: a compressed response (and
// request) body, whatever its coding — gzip, deflate, br, zstd, layered,
// or gzip and zstd with no Content-Encoding — is read by redaction: the
// bearer token, the password field and the npm token in it are gone from
// the cassette, stored decoded. One compressed without a Content-Encoding
// (gzip or zstd magic: an archive, #35) is never rewritten: holding the
// token, it is refused, naming the body and the rule. A corrupt one is
// refused, not stored unread.
func TestRecordHTTPDecodesCompressedBodies(t *testing.T) {
	const token = "compressed-secret-token-42"
	srv := compressingServer(t)
	for _, enc := range []string{"gzip", "deflate", "br", "zstd", "gzip, br", "deflate, zstd", "unlabelled gzip", "unlabelled zstd", "corrupt"} {
		t.Run(enc, func(t *testing.T) {
			recs, err := RecordHTTP(context.Background(), HTTPOptions{
				Meta:    Meta{Adapter: "srv", Now: fixedNow},
				BaseURL: srv.URL, Transport: srv.Client().Transport,
				Headers:     map[string]string{"Authorization": "Bearer ${SRV_TOKEN}"},
				Credentials: []string{"SRV_TOKEN"}, LookupEnv: env(map[string]string{"SRV_TOKEN": token}),
				Scenarios: []Scenario{{Name: "echo", Method: "POST", Path: "/echo",
					Headers: map[string]string{"X-Encode": enc, "Accept-Encoding": "identity", "Content-Encoding": "gzip"},
					Body:    string(gz(t, "sent "+token))}},
			})
			if strings.HasPrefix(enc, "unlabelled ") {
				var ce *outcome.Error
				if !errors.As(err, &ce) || ce.Reason != outcome.ESecretLeak || !strings.Contains(fmt.Sprint(ce.Problems), "interactions[0].response.body: a credential (npm-access-token)") {
					t.Fatalf("err = %v, want E_SECRET_LEAK naming the response body and npm-access-token", err)
				}
				if strings.Contains(ce.Error()+fmt.Sprint(ce.Problems), compressedKey) {
					t.Errorf("the refusal shows the key")
				}
				return
			}
			if enc == "corrupt" {
				var ce *outcome.Error
				if !errors.As(err, &ce) || ce.Reason != outcome.ESecretLeak || !strings.Contains(ce.Error()+fmt.Sprint(ce.Problems), "cannot be decoded as gzip") {
					t.Fatalf("err = %v, want E_SECRET_LEAK: the body cannot be decoded", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			in := recs[0].Cassette.Interactions[0]
			want := `{"echo":"Bearer [REDACTED]","body":"sent [REDACTED]","password":"[REDACTED]","key":"[REDACTED]"}`
			got := []byte(in.Response.Body)
			if ce := in.Response.Headers.Get("Content-Encoding"); ce != "" || !in.Response.Uncompressed || in.Response.ContentLength != int64(len(want)) {
				t.Errorf("response: Content-Encoding %q, uncompressed %v, content_length %d (want %d)", ce, in.Response.Uncompressed, in.Response.ContentLength, len(want))
			}
			if string(got) != want {
				t.Errorf("response body = %q, want %q", got, want)
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
	var ce *outcome.Error
	if !errors.As(err, &ce) || ce.Reason != outcome.ESecretLeak {
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
	var ce *outcome.Error
	if !errors.As(err, &ce) || ce.Reason != outcome.ESecretLeak || !strings.Contains(ce.Message, "real.credentials") ||
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
	var ce *outcome.Error
	if !errors.As(err, &ce) || ce.Reason != outcome.ESecretLeak || len(ce.Problems) != 1 || ce.Problems[0].Field != "input.stdin" {
		t.Fatalf("err = %v, want E_SECRET_LEAK on input.stdin", err)
	}
	if strings.Contains(ce.Error()+ce.NextStep, val) {
		t.Errorf("the error shows the value")
	}
}

// TestRecordCLIRefusesCredentialsByName: a command line that passes a
// credential under its name (--token=X, --password X, a header in an sh -c
// script, a URL's password) or a standard input that holds one
// ({"password": …}) is refused before the command runs, naming the field,
// never the value; the next step refers to a variable.
func TestRecordCLIRefusesCredentialsByName(t *testing.T) {
	const val = "byname-Pq7wLm2xZk"
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
		field string
	}{
		{"flag=value", []string{"-c", "touch " + marker, "sh", "--token=" + val}, "", "input.args[3]"},
		{"flag value", []string{"-c", "touch " + marker, "sh", "--password", val}, "", "input.args[4]"},
		{"header in a script", []string{"-c", "touch " + marker + "; curl -H 'Authorization: Bearer " + val + "' https://example.invalid/"}, "", "input.args[1]"},
		{"URL password in a script", []string{"-c", "touch " + marker + "; psql postgres://app:" + val + "@db/x"}, "", "input.args[1]"},
		{"stdin JSON", []string{"-c", "touch " + marker + "; cat"}, `{"user":"bob","password":"` + val + `"}`, "input.stdin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := RecordCLI(context.Background(), CLIOptions{
				Meta:    Meta{Adapter: "tool", Scenario: "login", Now: fixedNow},
				Command: "sh", Args: tc.args, Stdin: []byte(tc.stdin), LookupEnv: env(nil),
				Environ: []string{"PATH=" + os.Getenv("PATH")},
			})
			var ce *outcome.Error
			if !errors.As(err, &ce) || ce.Reason != outcome.ESecretLeak {
				t.Fatalf("err = %v, want E_SECRET_LEAK", err)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("the command ran")
			}
			if len(ce.Problems) == 0 || ce.Problems[0].Field != tc.field {
				t.Errorf("problems = %+v, want one on %s", ce.Problems, tc.field)
			}
			if strings.Contains(ce.Error()+ce.NextStep+fmt.Sprint(ce.Problems), val) {
				t.Errorf("the error shows the value:\n%s\n%s", ce.Error(), ce.NextStep)
			}
			if tc.field != "input.stdin" && !strings.Contains(ce.NextStep, "${TOOL_TOKEN}") {
				t.Errorf("next step %q does not refer to a variable", ce.NextStep)
			}
		})
	}
}

// TestRecordCLIRedactsOutputByName: what a command prints under a
// credential name (JSON keys on stdout and stderr; the values come from
// variables of ordinary names), and the value of an undeclared
// credential-named variable of its environment wherever it prints it, are
// gone from the cassette and from the output echoed to the user.
func TestRecordCLIRedactsOutputByName(t *testing.T) {
	const envTok = "env-npm-Pq7wLm2xZk4v"
	var out, errOut bytes.Buffer
	c, err := RecordCLI(context.Background(), CLIOptions{
		Meta:    Meta{Adapter: "tool", Scenario: "whoami", Now: fixedNow},
		Command: "sh", Args: []string{"-c", `printf '{"user":"bob","password":"%s","session_id":"%s"}\n' "$A" "$B"; echo "using $NPM_TOKEN"; printf '{"client_secret":"%s"}' "$C" >&2`},
		LookupEnv: env(nil), Environ: []string{"PATH=" + os.Getenv("PATH"), "NPM_TOKEN=" + envTok, "A=out-pw-271828", "B=sess-161803", "C=err-cs-141421"},
		Stdout: &out, Stderr: &errOut,
	})
	if err != nil {
		t.Fatal(err)
	}
	data, err := cassettes.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"out-pw-271828", "sess-161803", "err-cs-141421", envTok} {
		for where, text := range map[string]string{"cassette": string(data), "echoed stdout": out.String(), "echoed stderr": errOut.String()} {
			if strings.Contains(text, v) {
				t.Errorf("the %s holds %s:\n%s", where, v, text)
			}
		}
	}
	if !strings.Contains(string(c.Output.Stdout), `"user":"bob","password":"[REDACTED]"`) || !strings.Contains(out.String(), "using [REDACTED]") {
		t.Errorf("stdout = %q, echoed %q", c.Output.Stdout, out.String())
	}
}
