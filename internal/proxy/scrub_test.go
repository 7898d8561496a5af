package proxy

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/redact"
)

func gzipped(t testing.TB, s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	io.WriteString(w, s)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestCurlCompressedRecordsDecodedAndScrubsLearnedValues records curl
// --compressed through the MITM proxy against a server that always gzips:
// /login hands out a token, /a is called with it as a bearer (not a declared
// variable) and echoes it, /b repeats it without being sent it. The
// cassette holds plain bodies with the token scrubbed everywhere, including
// from /login, recorded before the token was seen in a header; replay
// serves the plain bodies to curl --compressed.
func TestCurlCompressedRecordsDecodedAndScrubsLearnedValues(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		missingTool(t, "curl not installed (apt-get install -y curl)")
	}
	const token = "learned-bearer-token-0123456789"
	const declared = "declared-value-98765"
	var mu sync.Mutex
	var last string
	up := newUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		var plain string
		switch r.URL.Path {
		case "/login":
			plain = `{"issued":"` + token + `","declared":"` + declared + `"}`
		default:
			if a := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "); a != "" {
				last = a
			}
			w.Header().Set("WWW-Authenticate", `Bearer error="`+last+`"`)
			plain = `{"path":"` + r.URL.Path + `","token":"` + last + `"}`
		}
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Type", "application/json")
		w.Write(gzipped(t, plain))
	}), false)
	ca := testCA(t)
	rec := startProxy(t, Options{Mode: ModeRecord, CA: ca, Transport: trusting(up), Redact: redact.New(nil, map[string]string{"SRV_TOKEN": declared})})
	env := childEnv(t, ca.ChildEnv(rec.URL())...)
	curl := func(path string, args ...string) []byte {
		return run(t, t.TempDir(), env, "curl", append([]string{"-sS", "--fail", "--compressed", up.URL + path}, args...)...)
	}
	want := []string{string(curl("/login"))} // issued before it is seen in a header
	want = append(want, string(curl("/a", "-H", "Authorization: Bearer "+token)))
	want = append(want, string(curl("/b")))
	if !strings.Contains(want[2], token) {
		t.Fatalf("the client did not get the decoded body through the proxy: %q", want[2])
	}
	its := flushed(t, rec)
	if len(its) != 3 {
		t.Fatalf("recorded %d interactions, want 3", len(its))
	}
	c := &cassettes.Cassette{Version: cassettes.GoVCRVersion, Interactions: its}
	data, err := cassettes.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{token, declared, "!!binary"} {
		if bytes.Contains(data, []byte(v)) {
			t.Errorf("the cassette holds %q:\n%s", v, data)
		}
	}
	for i, it := range its {
		p := it.Response
		if p.Headers.Get("Content-Encoding") != "" || !p.Uncompressed || p.ContentLength != int64(len(p.Body)) {
			t.Errorf("interaction %d: Content-Encoding %q, uncompressed %v, content_length %d for %d bytes",
				i, p.Headers.Get("Content-Encoding"), p.Uncompressed, p.ContentLength, len(p.Body))
		}
		if !strings.Contains(string(p.Body), "[REDACTED]") {
			t.Errorf("interaction %d: body %q", i, p.Body)
		}
	}
	if got := its[2].Response.Headers.Get("WWW-Authenticate"); got != `Bearer error="[REDACTED]"` {
		t.Errorf("WWW-Authenticate of a later interaction = %q", got)
	}

	up.Close()
	rep := startProxy(t, Options{Mode: ModeReplay, CA: ca, Cassettes: []*cassettes.Cassette{c}})
	env = childEnv(t, ca.ChildEnv(rep.URL())...)
	if got := string(curl("/b")); got != string(its[2].Response.Body) {
		t.Errorf("replayed %q, want the recorded plain body %q", got, its[2].Response.Body)
	}
}

// TestUpstreamFailureHidesTheQuery: when the upstream cannot be reached,
// the 502 body and the log quote the URL without its query, which may hold
// a credential known only by its parameter's name.
func TestUpstreamFailureHidesTheQuery(t *testing.T) {
	var log bytes.Buffer
	var mu sync.Mutex
	p := startProxy(t, Options{Mode: ModeRecord, Upstream: "http://127.0.0.1:1", Log: lockedWriter{&mu, &log}})
	const secret = "TOPSECRETvalue123"
	resp, err := http.Get(p.URL() + "/v1/x?access_token=" + secret)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(body), "/v1/x?…") {
		t.Fatalf("status %d body %q", resp.StatusCode, body)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Contains(string(body)+log.String(), secret) {
		t.Errorf("the query value leaked:\nbody: %s\nlog: %s", body, log.String())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// TestReverseProxyStreamsNDJSON: a chunked stream that is not SSE reaches
// the client record by record through the reverse proxy, while the
// upstream still holds the response open.
func TestReverseProxyStreamsNDJSON(t *testing.T) {
	release := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.Write([]byte(`{"n":1}` + "\n"))
		w.(http.Flusher).Flush()
		<-release
		w.Write([]byte(`{"n":2}` + "\n"))
	}))
	defer up.Close()
	defer close(release)
	p := startProxy(t, Options{Mode: ModeRecord, Upstream: up.URL})
	client := &http.Client{Timeout: 10 * time.Second} // a buffered stream would block here
	resp, err := client.Get(p.URL() + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || line != `{"n":1}`+"\n" {
		t.Fatalf("first record = %q, %v", line, err)
	}
}

// TestLearnedTokenScrubbedInEveryEncoding: used through the exported
// New, with no redaction configured, the recording proxy learns the bearer
// token a client sends and scrubs it from what the upstream echoes in any
// encoding: JSON-escaped with "/" written `\/` (PHP's json_encode, some
// Java encoders), base64 URL-safe padded, base64 standard unpadded. (The
// proxy's own learned set once held fewer forms than the recorder's, and
// stored the JSON-escaped token.)
func TestLearnedTokenScrubbedInEveryEncoding(t *testing.T) {
	const token = "ab/cd/ef?gh>0123456789~" // base64 with "/", "+" and padding
	b64 := func(enc *base64.Encoding) string { return enc.EncodeToString([]byte(token)) }
	echoes := map[string]string{
		"json":               strings.ReplaceAll(token, "/", `\/`),
		"base64 url padded":  b64(base64.URLEncoding),
		"base64 std no pads": b64(base64.RawStdEncoding),
	}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"json":"%s","url":"%s","std":"%s"}`, echoes["json"], echoes["base64 url padded"], echoes["base64 std no pads"])
	}))
	defer up.Close()
	p := startProxy(t, Options{Mode: ModeRecord, Upstream: up.URL})
	req, _ := http.NewRequest("GET", p.URL()+"/v1/me", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	live, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(live), echoes["json"]) {
		t.Fatalf("the client must get the live body: %s", live)
	}
	its := flushed(t, p)
	data, err := cassettes.Marshal(&cassettes.Cassette{Version: cassettes.GoVCRVersion, Interactions: its})
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range echoes {
		if bytes.Contains(data, []byte(v)) {
			t.Errorf("the recording holds the token %s:\n%s", name, data)
		}
	}
	if got := string(its[0].Response.Body); got != `{"json":"[REDACTED]","url":"[REDACTED]","std":"[REDACTED]"}` {
		t.Errorf("body = %s", got)
	}
}
