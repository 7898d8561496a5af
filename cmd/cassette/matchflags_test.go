package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
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
		{"proxy", "--cassette", "x.yaml", "--match-preset", "antropic"},
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

	// A preset is named in the config like any other setting, and a name
	// that is not one is an error on its line that lists the known ones.
	os.WriteFile(filepath.Join(dir, "cassette.yaml"), []byte(`version: 1
adapters:
  llm:
    kind: http
    fake: {base_url: "http://127.0.0.1:1"}
    match:
      preset: antropic
`), 0o644)
	out.Reset()
	errw.Reset()
	code = Main([]string{"validate", "--config", filepath.Join(dir, "cassette.yaml")}, strings.NewReader(""), &out, &errw)
	if code != 2 || !strings.Contains(errw.String(), "cassette.yaml:6") || !strings.Contains(errw.String(), `unknown match preset "antropic" (known: anthropic, gemini, openai)`) {
		t.Errorf("exit %d\n%s", code, errw.String())
	}
}

// TestProxyMatchPresetFromConfig: `preset: anthropic` in an adapter's
// match reaches a real `cassette proxy --mode replay`: a request with the
// fields a newer SDK adds is served from a recording that lacks them.
func TestProxyMatchPresetFromConfig(t *testing.T) {
	bin, caDir, pool := proxyTestSetup(t)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "cassettes", "claude"), 0o755)
	os.WriteFile(filepath.Join(dir, "cassettes", "claude", "tools.yaml"), []byte(strings.NewReplacer(
		"https://api.llm.example/v1/chat?ts=1700000000", "https://api.anthropic.com/v1/messages",
		`'{"model":"m1","nonce":"n-1","messages":[{"role":"user","content":"hi"}]}'`,
		`'{"model":"m1","messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"40 C"}]}]}'`).Replace(llmCassette)), 0o644)
	os.WriteFile(filepath.Join(dir, "cassette.yaml"), []byte(`version: 1
adapters:
  claude:
    kind: http
    fake: {base_url: "http://127.0.0.1:1"}
    match: {preset: anthropic}
`), 0o644)
	c := startProxyChild(t, bin, dir, caDir, pool, "--cassette", "cassettes/claude")
	resp, err := c.Post("https://api.anthropic.com/v1/messages", "application/json",
		strings.NewReader(`{"messages":[{"content":[{"content":"40 C","is_error":false,"tool_use_id":"t1","type":"tool_result"}],"role":"user"}],"model":"m1"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode != 200 {
		t.Errorf("the preset did not leave out is_error: %d\n%s", resp.StatusCode, b)
	}
}

// TestProxyMissNextStepRunsThere: the command a replay miss names runs
// where the proxy runs. Without cassette.yaml it is the proxy in record
// mode on the closest cassette, with the reverse proxy's --upstream (it
// was dropped); `cassette record --adapter` only when cassette.yaml
// declares the adapter (it named one where there was no config). Each is
// run as printed.
func TestProxyMissNextStepRunsThere(t *testing.T) {
	bin, caDir, _ := proxyTestSetup(t)
	real := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"ok":true}`)
	}))
	defer real.Close()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "cassettes", "api"), 0o755)
	os.WriteFile(filepath.Join(dir, "cassettes", "api", "pets.yaml"), []byte(strings.ReplaceAll(llmCassette, "https://api.llm.example", real.URL)), 0o644)
	miss := func() string {
		t.Helper()
		px := startProxyURL(t, bin, dir, caDir, "--cassette", "cassettes/api", "--upstream", real.URL)
		resp, err := http.Post(px+"/v1/other", "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		_, step, ok := strings.Cut(string(b), "next step: ")
		if resp.StatusCode != 599 || !ok {
			t.Fatalf("not a miss: %d\n%s", resp.StatusCode, b)
		}
		return strings.TrimSpace(step)
	}

	step := miss()
	if want := "cassette proxy --mode record --cassette cassettes/api/pets.yaml --upstream " + real.URL; step != want {
		t.Fatalf("without cassette.yaml the next step is %q, want %q", step, want)
	}
	startProxyURL(t, bin, dir, caDir, strings.Fields(step)[2:]...) // it starts, in record mode, as printed

	os.WriteFile(filepath.Join(dir, "cassette.yaml"), []byte(`version: 1
adapters:
  api:
    kind: http
    real: {base_url: "`+real.URL+`"}
    fake: {base_url: "http://127.0.0.1:1"}
`), 0o644)
	step = miss()
	if step != "cassette record --adapter api --scenario pets" {
		t.Fatalf("with the adapter declared the next step is %q", step)
	}
	cmd := exec.Command(bin, strings.Fields(step)[1:]...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", step, err, out)
	}
}

// TestProxyNoCassetteNextStep: replaying a cassette that is not there
// names the recording command with this run's --upstream.
func TestProxyNoCassetteNextStep(t *testing.T) {
	var out, errw strings.Builder
	dir := t.TempDir()
	Main([]string{"proxy", "--mode", "replay", "--cassette", filepath.Join(dir, "s.yaml"), "--upstream", "http://api.x.test"}, strings.NewReader(""), &out, &errw)
	if want := "next: cassette proxy --mode record --cassette " + filepath.Join(dir, "s.yaml") + " --upstream http://api.x.test\n"; !strings.Contains(errw.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, errw.String())
	}
}
