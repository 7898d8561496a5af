package proxy

import (
	"archive/tar"
	"bytes"
	"crypto/sha512"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
)

// TestRecordKeepsWordsOfALoginPassword records, through the MITM proxy
// with a real Go client over real TLS, a login that posts
// {"password":"secret"} and is answered a token, then a call with that
// token whose answer holds "secret_encoded", "client_secret_post" and the
// token echoed (#35). The password and the token are replaced where they
// stood; every other byte is kept (it was saved as
// {"[REDACTED]_encoded":false}), and replay serves it.
func TestRecordKeepsWordsOfALoginPassword(t *testing.T) {
	const token = "tok-7Qx2mZ9vK4pL8w"
	const clients = `{"jwt_configuration":{"secret_encoded":false},"token_endpoint_auth_method":"client_secret_post","secrets":[],"echo":"` + token + `"}`
	up := newUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/oauth/token" {
			w.Write([]byte(`{"access_token":"` + token + `","token_type":"Bearer"}`))
			return
		}
		w.Write([]byte(clients))
	}), false)
	opts := Options{Mode: ModeRecord, CA: testCA(t), Transport: trusting(up), Redact: redact.New(nil, nil)}
	rec := startProxy(t, opts)
	client := forwardClient(t, rec, false)
	do(t, client, up.URL, call{"POST", "/oauth/token", "application/json", `{"username":"me","password":"secret"}`})
	req, _ := http.NewRequest("GET", up.URL+"/api/v2/clients", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	its := flushed(t, rec)
	if len(its) != 2 {
		t.Fatalf("recorded %d interactions", len(its))
	}
	if got := string(its[0].Request.Body); got != `{"username":"me","password":"[REDACTED]"}` {
		t.Errorf("login request recorded as %s", got)
	}
	want := strings.Replace(clients, token, redact.Redacted, 1)
	if got := string(its[1].Response.Body); got != want {
		t.Errorf("recorded\n %s\nwant\n %s", got, want)
	}
	rec.Close()
	up.Close()
	opts.Mode, opts.Cassettes = ModeReplay, []*cassettes.Cassette{{Interactions: its}}
	rep := startProxy(t, opts)
	code, body, _ := do(t, forwardClient(t, rep, false), up.URL, call{"GET", "/api/v2/clients", "", ""})
	if code != 200 || string(body) != want {
		t.Errorf("replay: %d %s", code, body)
	}
}

// tarball is an npm package tarball (gzip of a tar, no Content-Encoding)
// holding JavaScript and a test fixture that look like credentials and
// are not, and extra.
func tarball(t *testing.T, extra string) []byte {
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	for name, body := range map[string]string{
		"package/package.json":         `{"name":"ws-like","version":"1.0.0"}`,
		"package/lib/auth.js":          "const password = querystring.unescape(auth.slice(i + 1));\nvar pw = document.getElementById('pw');\n" + extra,
		"package/test/fixture.json":    `{"username":"me","password":"hunter22-fixture"}`,
		"package/docs/key.example.pem": "-----BEGIN PRIVATE KEY-----\n...{your private key here}...\n-----END PRIVATE KEY-----\n",
	} {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body))}); err != nil {
			t.Fatal(err)
		}
		io.WriteString(tw, body)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return gzipped(t, tb.String())
}

// TestTarballReplaysWithItsDigest records an npm-style tarball (gzip
// without Content-Encoding, application/octet-stream) through the MITM
// proxy with a real Go client over real TLS, and replays it with the
// upstream closed: the client gets the same bytes (sha512, npm's
// integrity). A tarball with a real token inside is refused, naming the
// interaction's body and the rule (#35: it was decompressed, redacted and
// compressed again, and npm install failed its integrity check).
func TestTarballReplaysWithItsDigest(t *testing.T) {
	clean, leaky := tarball(t, ""), tarball(t, "const token = 'ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4u';\n")
	up := newUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		if strings.Contains(r.URL.Path, "leaky") {
			w.Write(leaky)
			return
		}
		w.Write(clean)
	}), false)
	red := redact.New(nil, nil)
	opts := Options{Mode: ModeRecord, CA: testCA(t), Transport: trusting(up), Redact: red}
	rec := startProxy(t, opts)
	client := forwardClient(t, rec, false)
	_, got, _ := do(t, client, up.URL, call{"GET", "/ws-like/-/ws-like-1.0.0.tgz", "", ""})
	want := sha512.Sum512(clean)
	if sha512.Sum512(got) != want {
		t.Fatal("the client did not get the tarball through the proxy")
	}
	do(t, client, up.URL, call{"GET", "/leaky/-/leaky-1.0.0.tgz", "", ""})
	its := flushed(t, rec)
	if len(its) != 2 {
		t.Fatalf("recorded %d interactions", len(its))
	}
	good := &cassettes.Cassette{Version: 2, Path: "cassettes/npm/install.yaml", Interactions: its[:1]}
	if err := good.CheckLeaks(red); err != nil {
		t.Errorf("the clean tarball is refused: %v", err)
	}
	bad := &cassettes.Cassette{Version: 2, Path: "cassettes/npm/leaky.yaml", Interactions: its[1:]}
	err := bad.CheckLeaks(red)
	if err == nil || !strings.Contains(fmt.Sprint(outcome.AsError(err).Problems), "interactions[0].response.body: a credential (github-pat)") {
		t.Errorf("the tarball with a token: %v, want a refusal naming interactions[0].response.body and github-pat", err)
	}
	rec.Close()
	up.Close()
	opts.Mode, opts.Cassettes = ModeReplay, []*cassettes.Cassette{good}
	rep := startProxy(t, opts)
	code, body, _ := do(t, forwardClient(t, rep, false), up.URL, call{"GET", "/ws-like/-/ws-like-1.0.0.tgz", "", ""})
	if code != 200 || sha512.Sum512(body) != want {
		t.Errorf("replay: status %d, %d bytes, same digest %v", code, len(body), sha512.Sum512(body) == want)
	}
}

// uploadPy posts a multipart upload with Python's requests, which writes
// a new random boundary each run (urllib3's choose_boundary), and prints
// the answer.
const uploadPy = `import sys, requests
r = requests.post(sys.argv[1] + "/upload", data={"user": "bob"},
                  files={"file": ("report.csv", b"a,b\n1,2\n", "text/csv")}, timeout=20)
r.raise_for_status()
sys.stdout.write(r.text)
`

// TestRequestsMultipartUploadReplays records a multipart upload made by
// Python's requests through the MITM proxy and replays it to a second
// run of the same script, with the upstream closed: its boundary is new,
// and the upload is served part by part (#35: multipart uploads never
// replayed).
func TestRequestsMultipartUploadReplays(t *testing.T) {
	python := "python3"
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		python = "/usr/bin/python3" // Debian's, which .ci/run gives requests
	}
	if exec.Command(python, "-c", "import requests").Run() != nil {
		missingTool(t, python+" with requests not installed (apt-get install -y python3-requests)")
	}
	up := newUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, h, err := r.FormFile("file")
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		b, _ := io.ReadAll(f)
		fmt.Fprintf(w, `{"user":%q,"file":%q,"bytes":%d}`, r.FormValue("user"), h.Filename, len(b))
	}), false)
	ca := testCA(t)
	script := filepath.Join(t.TempDir(), "upload.py")
	if err := os.WriteFile(script, []byte(uploadPy), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := startProxy(t, Options{Mode: ModeRecord, CA: ca, Transport: trusting(up)})
	want := run(t, t.TempDir(), childEnv(t, ca.ChildEnv(rec.URL())...), python, script, up.URL)
	if string(want) != `{"user":"bob","file":"report.csv","bytes":8}` {
		t.Fatalf("through the recording proxy: %s", want)
	}
	its := flushed(t, rec)
	if len(its) != 1 || !strings.HasPrefix(its[0].Request.Headers.Get("Content-Type"), "multipart/form-data; boundary=") {
		t.Fatalf("recorded %d interactions", len(its))
	}
	rec.Close()
	up.Close()
	rep := startProxy(t, Options{Mode: ModeReplay, CA: ca, Cassettes: []*cassettes.Cassette{{Interactions: its}}})
	if got := run(t, t.TempDir(), childEnv(t, ca.ChildEnv(rep.URL())...), python, script, up.URL); !bytes.Equal(got, want) {
		t.Errorf("replayed %s, want %s", got, want)
	}
	if m := rep.Misses(); len(m) > 0 {
		t.Errorf("replay missed: %s", m[0].Text())
	}
}
