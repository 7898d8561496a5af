package cassettes

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
)

const plantedValue = "pl4nted-Value/with+chars" // declared, matches no known format

func gzipped(t testing.TB, s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	io.WriteString(w, s)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encoded(t testing.TB, s string, codings ...string) []byte {
	b := []byte(s)
	for _, c := range codings {
		var err error
		if b, err = redact.Encode(c, b); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

func TestDecodeBodies(t *testing.T) {
	full := gzipped(t, "hello secret world")
	corrupt := bytes.Clone(full)
	corrupt[len(corrupt)/2] ^= 0x5a
	tests := []struct {
		name, enc string
		body      []byte
		want      string
		decoded   bool
	}{
		{"gzip", "gzip", full, "hello secret world", true},
		{"chain", "gzip, gzip", gzipped(t, string(full)), "hello secret world", true},
		{"cut short is kept (CheckLeaks refuses it)", "gzip", full[:len(full)-8], string(full[:len(full)-8]), false},
		{"brotli", "br", encoded(t, "hello secret world", "br"), "hello secret world", true},
		{"zstd", "zstd", encoded(t, "hello secret world", "zstd"), "hello secret world", true},
		{"layered gzip then br", "gzip, br", encoded(t, "hello secret world", "gzip", "br"), "hello secret world", true},
		{"an unknown coding is kept (CheckLeaks refuses it)", "compress", []byte("\x1f\x9d\x90hi"), "\x1f\x9d\x90hi", false},
		{"corrupt is kept (CheckLeaks refuses it)", "gzip", corrupt, string(corrupt), false},
		{"mislabelled is kept", "gzip", []byte("plain"), "plain", false},
		{"identity", "identity", []byte("plain"), "plain", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it := Interaction{Response: Response{Body: Body(tt.body), ContentLength: int64(len(tt.body)),
				Headers: http.Header{"Content-Encoding": {tt.enc}, "Content-Length": {"1"}}}}
			it.DecodeBodies()
			if string(it.Response.Body) != tt.want || it.Response.Uncompressed != tt.decoded ||
				(it.Response.Headers.Get("Content-Encoding") == "") != tt.decoded {
				t.Errorf("body %q uncompressed %v headers %v", it.Response.Body, it.Response.Uncompressed, it.Response.Headers)
			}
			if tt.decoded && (it.Response.ContentLength != int64(len(tt.want)) || it.Response.Headers.Get("Content-Length") != "18") {
				t.Errorf("lengths %d / %q, want %d", it.Response.ContentLength, it.Response.Headers.Get("Content-Length"), len(tt.want))
			}
		})
	}
}

func TestInteractionRedact(t *testing.T) {
	r := redact.New(nil, map[string]string{"API_TOKEN": plantedValue})
	body := `{"echo":"` + plantedValue + `"}`
	in := Interaction{
		Request: Request{
			Method: "POST", URL: "https://api.example.com/x?token=" + url.QueryEscape(plantedValue),
			RemoteAddr: "127.0.0.1:53211",
			Headers: http.Header{
				"Authorization":  {"Bearer " + plantedValue},
				"X-Github-Token": {"whatever"},
				"X-Trace":        {"id-" + plantedValue},
				"Accept":         {"application/json"},
			},
			Form:          url.Values{"password": {"hunter22"}, "q": {plantedValue}},
			Body:          Body(body),
			ContentLength: int64(len(body)),
		},
		Response: Response{
			Code: 200, Status: "200 OK",
			Headers:       http.Header{"Set-Cookie": {"s=1"}, "Content-Length": {"99"}, "Content-Type": {"application/json"}, "Location": {"/next?access_token=abcdef123"}},
			Body:          Body(body),
			ContentLength: int64(len(body)),
		},
	}
	in.Redact(r)
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
		{"location", in.Response.Headers.Get("Location"), "/next?access_token=%5BREDACTED%5D"},
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
	again := in
	again.Request.Headers, again.Response.Headers = in.Request.Headers.Clone(), in.Response.Headers.Clone()
	again.Redact(r)
	if a, b := mustMarshal(t, again), mustMarshal(t, in); a != b {
		t.Errorf("a second pass changed the interaction:\n%s\n%s", a, b)
	}
}

func mustMarshal(t *testing.T, in Interaction) string {
	t.Helper()
	b, err := Marshal(&Cassette{Version: GoVCRVersion, Interactions: []Interaction{in}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCheckLeaksRefusesLeftoverSecretsWithoutShowingThem(t *testing.T) {
	r := redact.New(nil, map[string]string{"API_TOKEN": plantedValue})
	c := &Cassette{Version: 2, Path: "cassettes/gh/x.yaml", Output: &Output{
		Stdout: Body("line one\nleak: " + plantedValue + "\n"),
	}}
	err := c.CheckLeaks(r)
	var ce *outcome.Error
	if !errors.As(err, &ce) {
		t.Fatalf("CheckLeaks = %v, want a *Error", err)
	}
	if ce.Reason != outcome.ESecretLeak {
		t.Errorf("reason = %s, want %s", ce.Reason, outcome.ESecretLeak)
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
	c.Redact(r)
	if err := c.CheckLeaks(r); err != nil {
		t.Errorf("after redaction, CheckLeaks = %v", err)
	}
}

// TestRedactLearnsAcrossInteractions: basic-auth password, cookie values
// and form parameters are learned; a value learned in a later interaction is
// scrubbed from an earlier one when the cassette is redacted again; the
// Redactor is used concurrently (run with -race).
func TestRedactLearnsAcrossInteractions(t *testing.T) {
	r := redact.New(nil, nil)
	const pass, cookie, form = "basic-pass-123", "cookie-val-456", "form-secret-789"
	mk := func(h http.Header, body string) Interaction {
		return Interaction{Request: Request{Method: "POST", URL: "https://e.com/", Headers: h,
			Form: map[string][]string{"client_secret": {form}}},
			Response: Response{Code: 200, Body: Body(body), Headers: http.Header{}}}
	}
	c := &Cassette{Interactions: []Interaction{
		mk(http.Header{}, "early: "+pass+" "+cookie), // holds values learned only later
		mk(http.Header{"Authorization": {"Basic " + base64.StdEncoding.EncodeToString([]byte("bob:"+pass))}}, "p="+pass),
		mk(http.Header{"Cookie": {"a=1; sid=" + cookie}}, "c="+cookie+" f="+form),
	}}
	var wg sync.WaitGroup
	for i := range c.Interactions {
		wg.Add(1)
		go func() { defer wg.Done(); c.Interactions[i].Redact(r) }()
	}
	wg.Wait()
	c.Redact(r)
	wants := []string{"early: [REDACTED] [REDACTED]", "p=[REDACTED]", "c=[REDACTED] f=[REDACTED]"}
	for i, w := range wants {
		if got := string(c.Interactions[i].Response.Body); got != w {
			t.Errorf("interaction %d body = %q, want %q", i, got, w)
		}
	}
	if err := c.CheckLeaks(r); err != nil {
		t.Errorf("CheckLeaks after redaction: %v", err)
	}
}

// TestIntegralBodiesAreNeverRewritten: a body compressed without a
// Content-Encoding (an npm tarball, an OCI layer: gzip or zstd magic), an
// application/octet-stream one and one the server checks by digest are
// kept byte for byte, and nothing is learned from them (#35: a rewritten
// tarball fails npm's integrity check on replay). One that holds a real
// credential (a known format) is refused by CheckLeaks, naming the
// interaction's body and the rule; a password by name in a package's
// fixture is the package's, and kept.
func TestIntegralBodiesAreNeverRewritten(t *testing.T) {
	const tok = "ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4u"
	const fixture = `{"password":"pw-in-zip-1","note":"const password = querystring.unescape(x)"}`
	bodies := []struct {
		name    string
		headers http.Header
		body    func(string) []byte
	}{
		{"gzip, no Content-Encoding", http.Header{"Content-Type": {"application/json"}}, func(s string) []byte { return encoded(t, s, "gzip") }},
		{"zstd, no Content-Encoding", http.Header{}, func(s string) []byte { return encoded(t, s, "zstd") }},
		{"octet-stream", http.Header{"Content-Type": {"application/octet-stream"}}, func(s string) []byte { return []byte(s) }},
		{"an OCI layer", http.Header{"Content-Type": {"application/vnd.oci.image.layer.v1.tar"}}, func(s string) []byte { return []byte(s) }},
		{"Docker-Content-Digest", http.Header{"Docker-Content-Digest": {"sha256:0123"}, "Content-Type": {"application/json"}}, func(s string) []byte { return []byte(s) }},
	}
	for _, b := range bodies {
		t.Run(b.name, func(t *testing.T) {
			kept := b.body(fixture)
			c := &Cassette{Version: 2, Path: "cassettes/a/s.yaml", Interactions: []Interaction{
				{Request: Request{Method: "GET", URL: "https://registry.example/pkg/-/pkg-1.0.0.tgz", Headers: http.Header{}},
					Response: Response{Code: 200, Headers: b.headers.Clone(), Body: Body(kept)}}}}
			r := redact.New(nil, nil)
			c.Redact(r)
			if !bytes.Equal([]byte(c.Interactions[0].Response.Body), kept) {
				t.Errorf("the body was rewritten")
			}
			if len(r.Values()) != 0 {
				t.Errorf("learned %d forms from an integral body", len(r.Values()))
			}
			if err := c.CheckLeaks(r); err != nil {
				t.Errorf("CheckLeaks of a body with no credential: %v", err)
			}

			leaky := b.body(`{"t":"` + tok + `"}`)
			c.Interactions[0].Response.Body = Body(leaky)
			c.Redact(r)
			if !bytes.Equal([]byte(c.Interactions[0].Response.Body), leaky) {
				t.Errorf("the body holding a token was rewritten")
			}
			err := c.CheckLeaks(r)
			if err == nil {
				t.Fatal("CheckLeaks passed an integral body holding a token")
			}
			ce := outcome.AsError(err)
			found := false
			for _, p := range ce.Problems {
				found = found || (p.Field == "interactions[0].response.body" || p.Line > 0) && strings.Contains(p.Message, "github-pat")
			}
			if !found || strings.Contains(err.Error(), tok) {
				t.Errorf("the refusal does not name the body and the rule (or shows the token): %v %+v", err, ce.Problems)
			}
		})
	}
}

// TestCheckLeaksRefusesUnreadableBodies: a body that says (or looks)
// compressed and does not decode is refused, named by its field; so is a
// body under a coding redact has no decoder for. A binary body holding a
// token is found although the file holds it in base64.
func TestCheckLeaksRefusesUnreadableBodies(t *testing.T) {
	full := gzipped(t, "hello world, nothing secret here")
	corrupt := bytes.Clone(full)
	corrupt[len(corrupt)/2] ^= 0x5a
	// A token whose gzip stream lacks its trailer (or has a bad checksum):
	// everything but the end decodes, and what decodes ends inside the
	// token, so it was saved decoded with 35 of its 36 characters.
	token := gzipped(t, `{"token":"ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4u"}`)
	badSum := bytes.Clone(token)
	badSum[len(badSum)-8] ^= 0xff
	for _, tc := range []struct {
		name, enc string
		body      []byte
		want      string
	}{
		{"corrupt gzip", "gzip", corrupt, "cannot be decoded as gzip"},
		{"corrupt gzip without a header", "", corrupt, "cannot be decoded as gzip"},
		{"gzip without its trailer", "gzip", token[:len(token)-8], "cannot be decoded as gzip"},
		{"gzip with a bad checksum", "gzip", badSum, "cannot be decoded as gzip"},
		{"gzip without its trailer, without a header", "", token[:len(token)-8], "cannot be decoded as gzip"},
		{"unknown coding", "compress", []byte("\x1f\x9d\x90\x00\xff"), "cannot be decoded as compress"},
		{"binary body with a token", "", append([]byte{0xff, 0xfe, 0x00}, "ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4u"...), "github-pat"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.enc != "" {
				h.Set("Content-Encoding", tc.enc)
			}
			c := &Cassette{Version: 2, Path: "cassettes/a/s.yaml", Interactions: []Interaction{
				{Request: Request{Method: "GET", URL: "https://e.com/"}, Response: Response{Code: 200, Headers: h, Body: Body(tc.body)}}}}
			r := redact.New(nil, nil)
			err := c.CheckLeaks(r)
			var ce *outcome.Error
			if !errors.As(err, &ce) || ce.Reason != outcome.ESecretLeak || len(ce.Problems) == 0 ||
				ce.Problems[len(ce.Problems)-1].Field != "interactions[0].response.body" || !strings.Contains(ce.Problems[len(ce.Problems)-1].Message, tc.want) {
				t.Fatalf("CheckLeaks = %v (%+v), want E_SECRET_LEAK on the response body: %q", err, ce, tc.want)
			}
			data, _ := Marshal(c)
			if _, err := Parse(c.Path, data, LoadOptions{}); err == nil || outcome.AsError(err).Reason != outcome.ESecretLeak {
				t.Errorf("Parse (validate) = %v, want E_SECRET_LEAK", err)
			}
			// Redaction fixes what it can read, and only that.
			c.Redact(r)
			if err := c.CheckLeaks(r); (err == nil) != (tc.name == "binary body with a token") {
				t.Errorf("after Redact, CheckLeaks = %v", err)
			}
		})
	}
}

// TestCassetteRedactCLIByName: a CLI cassette's values under credential
// names — flags of the command line, JSON keys of standard input and
// output — are redacted, and scrubbed from the rest of the cassette.
func TestCassetteRedactCLIByName(t *testing.T) {
	c := &Cassette{Version: 2, Path: "cassettes/t/s.yaml", Kind: cfgschema.KindCLI,
		Input: &Input{Command: "tool", Args: []string{"login", "--token=flag-tok-123", "--password", "flag-pw-456"},
			Stdin: Body(`{"user":"bob","password":"stdin-pw-789"}`)},
		Output: &Output{Stdout: Body("logged in\n{\"session_id\":\"sess-abc-000\",\"echo\":\"flag-tok-123\"}\nsecret stdin-pw-789\n"),
			Stderr: Body(`{"level":"debug","client_secret":"cs-012345"}`)}}
	r := redact.New(nil, nil)
	c.Redact(r)
	data, err := Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"flag-tok-123", "flag-pw-456", "stdin-pw-789", "sess-abc-000", "cs-012345"} {
		if bytes.Contains(data, []byte(v)) {
			t.Errorf("the cassette holds %s:\n%s", v, data)
		}
	}
	if c.Input.Args[0] != "login" || c.Input.Args[1] != "--token=[REDACTED]" {
		t.Errorf("args = %q", c.Input.Args)
	}
}

// TestSaveScansCompressedSidecars: a compressed body big enough to go to a
// sidecar file is decoded and scanned by Save's own scan as one kept in the
// cassette is: a token inside it refuses the save.
func TestSaveScansCompressedSidecars(t *testing.T) {
	const token = "ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4s"
	for _, coding := range []string{"gzip", "br", "zstd"} {
		t.Run(coding, func(t *testing.T) {
			dir := t.TempDir()
			// The token cut short comes first, so that every coder
			// (zstd keeps short literals as they are) refers back to it
			// and the whole token is nowhere in the compressed bytes.
			body := encoded(t, strings.Repeat("x", 4096)+" "+token[:len(token)-1]+"\n"+token, coding)
			if bytes.Contains(body, []byte(token)) {
				t.Fatal("the compressed body holds the token as it is: the raw scan would find it, this test would prove nothing")
			}
			h := http.Header{"Content-Encoding": {coding}}
			c := &Cassette{Cassette: 1, Version: 2, Adapter: "a", Scenario: "s", Kind: cfgschema.KindHTTP, Path: dir + "/s.yaml",
				Interactions: []Interaction{{Request: Request{Method: "GET", URL: "https://e.com/"}, Response: Response{Code: 200, Headers: h, Body: Body(body)}}}}
			err := Save(c, SaveOptions{SidecarThreshold: 16})
			if err == nil || outcome.AsError(err).Reason != outcome.ESecretLeak {
				t.Fatalf("Save = %v, want E_SECRET_LEAK", err)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("a refused save wrote %d entries", len(entries))
			}
		})
	}
}

// TestSaveScansBinaryWebSocketMessages: a binary message is held in the
// file as base64, which the raw scan cannot read; Save decodes it and
// refuses a token inside, as Load and CheckLeaks do.
func TestSaveScansBinaryWebSocketMessages(t *testing.T) {
	const token = "ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4s"
	c := wsCassette(t.TempDir())
	msgs := c.Interactions[0].WebSocket.Messages
	msgs[2].Data = Body("\x00\xff" + token + "\xfe")
	err := Save(c, SaveOptions{})
	if err == nil || outcome.AsError(err).Reason != outcome.ESecretLeak || !strings.Contains(fmt.Sprint(outcome.AsError(err).Problems), "websocket.messages[2]") {
		t.Fatalf("Save = %v, want E_SECRET_LEAK naming the message", err)
	}
	if err := c.CheckLeaks(redact.New(nil, nil)); err == nil {
		t.Errorf("CheckLeaks passed the message")
	}
}

// TestRealtimeEphemeralKeyRedacted: OpenAI Realtime's session answer
// hands out client_secret: {"value": "ek_…"}; a credential-named object's
// value, secret and token members are credentials, over HTTP and in a
// WebSocket message, and what is left of the object is kept; the key is
// also a known format, which a scan (validate) refuses (#35).
func TestRealtimeEphemeralKeyRedacted(t *testing.T) {
	const ek = "ek_68af3c2b9e1d4f7a8c0b5e6d"
	body := `{"id":"sess_1","client_secret":{"value":"` + ek + `","expires_at":1756000000},"voice":"alloy"}`
	c := &Cassette{Version: 2, Path: "cassettes/openai/realtime.yaml", Interactions: []Interaction{
		{Request: Request{Method: "POST", URL: "https://api.openai.com/v1/realtime/sessions", Headers: http.Header{}},
			Response: Response{Code: 200, Headers: http.Header{"Content-Type": {"application/json"}}, Body: Body(body)}},
		{Request: Request{Method: "GET", URL: "https://api.openai.com/v1/realtime", Headers: http.Header{}},
			Response: Response{Code: 101, Headers: http.Header{"Connection": {"Upgrade"}, "Upgrade": {"websocket"}}},
			WebSocket: &WebSocket{Messages: []WebSocketMessage{
				{From: FromServer, Data: Body(`{"type":"session.created","session":{"client_secret":{"secret":"` + ek + `"}}}`)},
				{From: FromClient, Data: Body(`{"type":"echo","key":"` + ek + `"}`)}}}},
	}}
	if f := redact.Scan([]byte(body), nil); len(f) != 1 || f[0].Kind != "openai-ephemeral-key" {
		t.Errorf("the scan finds %+v in the session answer, want openai-ephemeral-key", f)
	}
	r := redact.New(nil, nil).KeepFormats() // by name alone, as import without --redact
	c.Redact(r)
	if got, want := string(c.Interactions[0].Response.Body), strings.Replace(body, ek, redact.Redacted, 1); got != want {
		t.Errorf("HTTP body %s, want %s", got, want)
	}
	for i, m := range c.Interactions[1].WebSocket.Messages {
		if strings.Contains(string(m.Data), ek) {
			t.Errorf("message %d holds the key: %s", i, m.Data)
		}
	}
	if err := c.CheckLeaks(r); err != nil {
		t.Errorf("CheckLeaks: %v", err)
	}
	if got := redact.New(nil, nil).Body("application/json", []byte(`{"meta":{"value":"kept-as-is-1"},"token":{"type":"bearer"}}`)); string(got) != `{"meta":{"value":"kept-as-is-1"},"token":{"type":"bearer"}}` {
		t.Errorf("a value outside a credential object, or a credential object without a secret member, changed: %s", got)
	}
}
