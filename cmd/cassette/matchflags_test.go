package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const llmCassette = `---
version: 2
interactions:
    - id: 0
      request:
        url: https://api.llm.example/v1/chat?ts=1700000000
        method: POST
        body: '{"model":"m1","nonce":"n-1","messages":[{"role":"user","content":"hi"}]}'
      response:
        body: 'data: {"delta":"hello"}'
        headers:
            Content-Type:
                - text/event-stream
        status: 200 OK
        code: 200
`

// TestProxyMatchFromConfigAndFlags: `match:` in cassette.yaml (per adapter,
// overridden per scenario) and the proxy flags reach a real `cassette proxy
// --mode replay`; a miss still names file:line and the differing field.
func TestProxyMatchFromConfigAndFlags(t *testing.T) {
	bin, caDir, pool := proxyTestSetup(t)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "cassettes", "llm"), 0o755)
	os.WriteFile(filepath.Join(dir, "cassettes", "llm", "Chat_Stream.yaml"), []byte(llmCassette), 0o644)
	os.WriteFile(filepath.Join(dir, "cassette.yaml"), []byte(`version: 1
adapters:
  llm:
    kind: http
    fake: {base_url: "http://127.0.0.1:1"}
    match:
      ignore_query: [ts]
      ignore_json: [$.nonce]
      scenarios:
        Chat_Stream: {sequence: replayable}
`), 0o644)
	post := func(c *http.Client, url, body string) (int, string) {
		t.Helper()
		resp, err := c.Post(url, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	c := startProxyChild(t, bin, dir, caDir, pool, "--cassette", "cassettes/llm")
	body := `{"model":"m1","nonce":"n-2","messages":[{"role":"user","content":"hi"}]}`
	for i := range 2 { // replayable: the scenario override
		if code, got := post(c, "https://api.llm.example/v1/chat?ts=1800000000", body); code != 200 || got != `data: {"delta":"hello"}` {
			t.Fatalf("request %d: %d %s", i, code, got)
		}
	}
	code, got := post(c, "https://api.llm.example/v1/chat?ts=1", strings.Replace(body, "m1", "m2", 1))
	for _, want := range []string{"cassettes/llm/Chat_Stream.yaml:5 (interactions[0])", "next step: cassette proxy --mode record --cassette cassettes/llm/Chat_Stream.yaml", "did not match on: [body]", `-  "model": "m1"`} {
		if code != 599 || !strings.Contains(got, want) {
			t.Errorf("status %d, body lacks %q:\n%s", code, want, got)
		}
	}

	// The same from flags alone, without a config; --sequence once.
	os.Remove(filepath.Join(dir, "cassette.yaml"))
	c = startProxyChild(t, bin, dir, caDir, pool, "--cassette", "cassettes/llm/Chat_Stream.yaml",
		"--ignore-query", "ts", "--match-json", "$.model", "--match-json", "$.messages[*].content", "--sequence", "once")
	if code, got := post(c, "https://api.llm.example/v1/chat", `{"model":"m1","messages":[{"content":"hi"}],"extra":1}`); code != 200 {
		t.Fatalf("flags: %d %s", code, got)
	}
	if code, got := post(c, "https://api.llm.example/v1/chat", `{"model":"m1","messages":[{"content":"hi"}]}`); code != 599 || !strings.Contains(got, "already served") {
		t.Errorf("sequence once: %d %s", code, got)
	}
}

func TestProxyMatchFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"proxy", "--cassette", "x.yaml", "--match-url", "regex:("},
		{"proxy", "--cassette", "x.yaml", "--ignore-json", "nonce"},
		{"proxy", "--cassette", "x.yaml", "--sequence", "twice"},
	} {
		var out, errw strings.Builder
		if code := Main(args, strings.NewReader(""), &out, &errw); code != 2 || !strings.Contains(errw.String(), "next: ") {
			t.Errorf("%v: exit %d\n%s", args, code, errw.String())
		}
	}
}

func TestValidateChecksMatchConfig(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "cassette.yaml"), []byte(`version: 1
adapters:
  llm:
    kind: http
    fake: {base_url: "http://127.0.0.1:1"}
    match:
      scenarios:
        Chat: {urls: ["regex:("]}
`), 0o644)
	var out, errw strings.Builder
	code := Main([]string{"validate", "--config", filepath.Join(dir, "cassette.yaml")}, strings.NewReader(""), &out, &errw)
	if code != 2 || !strings.Contains(errw.String(), "cassette.yaml:8") || !strings.Contains(errw.String(), "adapters.llm.match.scenarios.Chat") {
		t.Errorf("exit %d\n%s", code, errw.String())
	}
}
