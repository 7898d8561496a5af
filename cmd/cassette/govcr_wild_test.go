package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
)

// TestGoVCRCorpusReplays reads every go-vcr cassette in the folders
// ../shared/testdata/go-vcr-* in place (go-vcr-real and any sibling added
// later), validates each with `cassette validate` and replays each through a
// real `cassette proxy --mode replay` child process (forward proxy, HTTPS
// interception): every recorded request must get its recorded status,
// headers and body, byte for byte.
//
// CASSETTE_GOVCR_DIRS (a path list of folders) adds folders to try, e.g.
// real cassettes fetched from other projects that must not be committed.
func TestGoVCRCorpusReplays(t *testing.T) {
	dirs := goVCRDirs(t)
	bin, caDir, pool := proxyTestSetup(t)
	total := 0
	for _, dir := range dirs {
		files, err := cassettes.Discover(dir)
		if err != nil {
			t.Fatal(err)
		}
		total += len(files)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			work := t.TempDir()
			os.WriteFile(filepath.Join(work, "cassette.yaml"), []byte("version: 1\nadapters:\n  x: {kind: http, fake: {base_url: \"http://127.0.0.1:1\"}}\n"), 0o644)
			cmd := exec.Command(bin, append([]string{"validate"}, files...)...)
			cmd.Dir = work
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("cassette validate %s: %v\n%s", dir, err, out)
			}
			for _, f := range files {
				rel, _ := filepath.Rel(dir, f)
				t.Run(rel, func(t *testing.T) { replayThroughProxy(t, bin, caDir, pool, f) })
			}
		})
	}
	t.Logf("%d cassettes in %d folders", total, len(dirs))
}

var listenRe = regexp.MustCompile(`listening on (\S+)`)

func replayThroughProxy(t *testing.T, bin, caDir string, pool *x509.CertPool, file string) {
	c, err := cassettes.Load(file, cassettes.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	client := startProxyChild(t, bin, "", caDir, pool, "--cassette", file)
	for i, in := range c.Interactions {
		req, err := http.NewRequest(in.Request.Method, in.Request.URL, bytes.NewReader([]byte(in.Request.Body)))
		if err != nil {
			t.Fatalf("interactions[%d]: %v", i, err)
		}
		for k, vs := range in.Request.Headers {
			switch http.CanonicalHeaderKey(k) {
			case "Host", "Content-Length", "Connection", "Transfer-Encoding":
				continue
			}
			req.Header[k] = vs
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("interactions[%d] %s %s: %v", i, in.Request.Method, in.Request.URL, err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("interactions[%d]: reading the body: %v", i, err)
		}
		where := c.Path + ":" + strconv.Itoa(c.Line("interactions["+strconv.Itoa(i)+"]"))
		if resp.StatusCode != in.Response.Code {
			t.Fatalf("%s: status %d, recorded %d\n%s", where, resp.StatusCode, in.Response.Code, body)
		}
		if !bytes.Equal(body, []byte(in.Response.Body)) {
			t.Errorf("%s: body differs (%d bytes, recorded %d)", where, len(body), len(in.Response.Body))
		}
		for k, want := range in.Response.Headers {
			if http.CanonicalHeaderKey(k) == "Content-Length" {
				// The length of the bytes served: a cassette edited after
				// recording (go-vcr-real's json-content-type) keeps a stale one.
				if got := resp.Header.Get(k); got != "" && got != strconv.Itoa(len(body)) {
					t.Errorf("%s: Content-Length %s for a %d-byte body", where, got, len(body))
				}
				continue
			}
			if got := resp.Header.Values(k); strings.Join(got, "\x00") != strings.Join(want, "\x00") {
				t.Errorf("%s: header %s = %q, recorded %q", where, k, got, want)
			}
		}
	}
}

func caInit(bin, dir string) *exec.Cmd {
	cmd := exec.Command(bin, "ca", "init")
	cmd.Env = append(os.Environ(), "CASSETTE_CA_DIR="+dir)
	return cmd
}

// startProxyChild runs `cassette proxy --mode replay ARGS` as a child process
// in dir (forward proxy, CA in caDir) until the test ends, and returns a
// client that goes through it and trusts the CA.
func startProxyChild(t *testing.T, bin, dir, caDir string, pool *x509.CertPool, args ...string) *http.Client {
	t.Helper()
	proxyURL, _ := url.Parse(startProxyURL(t, bin, dir, caDir, args...))
	tr := &http.Transport{Proxy: http.ProxyURL(proxyURL), DisableCompression: true, TLSClientConfig: &tls.Config{RootCAs: pool}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// proxyTestSetup finds the cassette command (the test binary, which
// testscript.Main put on PATH) and makes a CA for its proxy.
func proxyTestSetup(t *testing.T) (bin, caDir string, pool *x509.CertPool) {
	t.Helper()
	bin, err := exec.LookPath("cassette")
	if err != nil {
		t.Fatal(err)
	}
	caDir = t.TempDir()
	if out, err := caInit(bin, caDir).CombinedOutput(); err != nil {
		t.Fatalf("ca init: %v\n%s", err, out)
	}
	ca, err := os.ReadFile(filepath.Join(caDir, "ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	return bin, caDir, pool
}

// goVCRDirs are the folders of real go-vcr cassettes the tests read in
// place: ../shared/testdata/go-vcr-* (go-vcr-real, and any sibling added
// later) and the folders in CASSETTE_GOVCR_DIRS (a path list), for trying
// cassettes that may not be committed.
func goVCRDirs(t *testing.T) []string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(sharedDir(), "testdata", "go-vcr-*"))
	if len(dirs) == 0 {
		t.Fatalf("no go-vcr folders under %s/testdata", sharedDir())
	}
	for _, d := range filepath.SplitList(os.Getenv("CASSETTE_GOVCR_DIRS")) {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	return dirs
}
