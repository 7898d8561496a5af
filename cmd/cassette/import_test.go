package main

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/redact"
)

// TestImportGoVCRThenVerify: `cassette import govcr` on every go-vcr folder
// the corpus test reads (../shared/testdata/go-vcr-*, in place, and
// CASSETTE_GOVCR_DIRS) plus a tree named after Go tests and subtests with an
// empty cassette; every body survives byte for byte but for what redaction
// by name changes (the same redaction applied to the originals: auth0's
// client_secret and access_token go), the result validates strictly, and
// `cassette verify` passes each case against a trivial fake (a replay proxy
// over that cassette).
func TestImportGoVCRThenVerify(t *testing.T) {
	bin, _, _ := proxyTestSetup(t)
	wild := t.TempDir()
	os.MkdirAll(filepath.Join(wild, "TestLogin"), 0o755)
	os.WriteFile(filepath.Join(wild, "TestLogin", "Should_return_tokens.yaml"), []byte(plainWild), 0o644)
	os.WriteFile(filepath.Join(wild, "TestNothing_Happens.yaml"), []byte("---\nversion: 2\ninteractions: []\n"), 0o644)
	srcs := map[string]string{"sdk": wild}
	for _, d := range goVCRDirs(t) {
		srcs[cassettes.StrictName(filepath.Base(d))] = d
	}

	dir := t.TempDir()
	run := func(wantCode int, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != wantCode {
			t.Fatalf("cassette %s: exit %d, want %d\n%s", strings.Join(args, " "), code, wantCode, out)
		}
		return string(out)
	}
	var config strings.Builder
	config.WriteString("version: 1\nadapters:\n")
	for adapter, src := range srcs {
		run(0, "import", "govcr", src, "--adapter", adapter)
		// The fake replays the one cassette named by $CASSETTE_FILE.
		fmt.Fprintf(&config, `  %s:
    kind: http
    fake:
      command: [sh, -c, 'exec "$CASSETTE_BIN" proxy --mode replay --upstream http://fake.invalid --ignore-host --cassette "$CASSETTE_FILE" --listen 127.0.0.1:$PORT']
      env: {CASSETTE_BIN: %q, CASSETTE_FILE: "${CASSETTE_FILE}"}
      base_url: http://127.0.0.1:${PORT}
      ready: /.well-known/cassette/ready
`, adapter, bin)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "cassettes", "sdk", "TestLogin", "Should_return_tokens.yaml")); strings.Contains(string(data), "test-secret") ||
		strings.Contains(string(data), "test-access-token") {
		t.Errorf("import govcr kept the client_secret or the access_token:\n%s", data)
	}
	out := run(2, "import", "govcr", wild, "--adapter", "sdk")
	if !strings.Contains(out, "exists; nothing was imported") || !strings.Contains(out, "--force") {
		t.Errorf("a second import overwrote or said nothing useful:\n%s", out)
	}
	os.WriteFile(filepath.Join(dir, "cassette.yaml"), []byte(config.String()), 0o644)
	run(0, "validate")

	for adapter, src := range srcs {
		// Every byte of every body, the method, URL, status and headers.
		originals, err := cassettes.LoadTree([]string{src}, cassettes.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		red := redact.New(nil, nil).KeepFormats()
		for range 2 {
			for _, o := range originals {
				o.Redact(red)
			}
		}
		for _, o := range originals {
			rel, _ := filepath.Rel(src, o.Path)
			p := filepath.Join(dir, "cassettes", adapter, rel)
			c, err := cassettes.Load(p, cassettes.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			scenario := strings.TrimSuffix(filepath.ToSlash(rel), filepath.Ext(rel))
			if c.Plain || c.Adapter != adapter || c.Scenario != scenario || len(c.Interactions) != len(o.Interactions) {
				t.Fatalf("%s: plain=%v %s/%s with %d interactions", p, c.Plain, c.Adapter, c.Scenario, len(c.Interactions))
			}
			for i := range o.Interactions {
				a, b := o.Interactions[i], c.Interactions[i]
				if a.Request.Body != b.Request.Body || a.Response.Body != b.Response.Body || a.Request.URL != b.Request.URL ||
					a.Request.Method != b.Request.Method || a.Response.Code != b.Response.Code ||
					!sameHeaders(a.Response.Headers, b.Response.Headers) || !sameHeaders(a.Request.Headers, b.Request.Headers) {
					t.Errorf("%s interactions[%d] changed on import", p, i)
				}
			}
			// verify, one case at a time, against a replay proxy of its own cassette.
			cmd := exec.Command(bin, "verify", "--case", adapter+"/"+scenario)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "CASSETTE_FILE="+p)
			if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "PASS  "+adapter+"/"+scenario) {
				t.Errorf("verify %s/%s: %v\n%s", adapter, scenario, err, out)
			}
		}
	}
}

// sameHeaders: equal, `headers: {}` and no headers being the same.
func sameHeaders(a, b http.Header) bool {
	return len(a) == 0 && len(b) == 0 || reflect.DeepEqual(a, b)
}

// plainWild is a go-vcr v4 cassette in the shape auth0's go-auth0 commits:
// a form body with a test secret, fields go-vcr v4.0.6+ omits.
const plainWild = `---
version: 2
interactions:
    - id: 0
      request:
        proto: HTTP/1.1
        proto_major: 1
        proto_minor: 1
        content_length: 71
        host: example.eu.auth0.com
        body: client_id=test-client_id&client_secret=test-secret&grant_type=password
        form:
            client_id:
                - test-client_id
        headers:
            Content-Type:
                - application/x-www-form-urlencoded
        url: https://example.eu.auth0.com/oauth/token
        method: POST
      response:
        proto: HTTP/2.0
        proto_major: 2
        proto_minor: 0
        content_length: -1
        uncompressed: true
        body: '{"access_token":"test-access-token","expires_in":86400,"token_type":"Bearer"}'
        headers:
            Content-Type:
                - application/json
        status: 200 OK
        code: 200
        duration: 338.4ms
`
