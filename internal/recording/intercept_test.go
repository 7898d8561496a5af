package recording

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/proxy"
	"github.com/cassette-dev/cassette/internal/redact"
)

// TestRecordCLIThroughProxy runs a real curl through the real recording
// proxy against a real TLS server and checks the one cassette holds both the
// process and its HTTPS call, with the planted token redacted everywhere.
func TestRecordCLIThroughProxy(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		missingTool(t, "curl not installed")
	}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"items":[1,2,3],"echo":"`+r.Header.Get("Authorization")+`"}`)
	}))
	defer srv.Close()
	upstream := srv.Client().Transport.(*http.Transport).Clone()

	vars := map[string]string{"API_TOKEN": plantedValue}
	dir := t.TempDir()
	c, err := RecordCLI(context.Background(), CLIOptions{
		Meta: Meta{Adapter: "curl", Scenario: "items", Now: fixedNow},
		// The command refers to the variable: a value in the arguments is refused.
		Command:     "sh",
		Args:        []string{"-c", `curl -sS --fail -H "Authorization: Bearer $API_TOKEN" "` + srv.URL + `/items?q=$API_TOKEN"`},
		Credentials: []string{"API_TOKEN"}, LookupEnv: env(vars),
		Environ:   []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "API_TOKEN=" + plantedValue},
		Intercept: ProxyInterceptor(ProxyConfig{CADir: filepath.Join(dir, "ca"), Transport: upstream}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.Output.ExitCode != 0 {
		t.Fatalf("curl exited %d: %s", c.Output.ExitCode, c.Output.Stderr)
	}
	wantOut := `{"items":[1,2,3],"echo":"Bearer [REDACTED]"}`
	if string(c.Output.Stdout) != wantOut {
		t.Errorf("stdout = %q, want %q", c.Output.Stdout, wantOut)
	}
	if len(c.Interactions) != 1 {
		t.Fatalf("%d interactions recorded, want 1", len(c.Interactions))
	}
	in := c.Interactions[0]
	if in.Request.Method != "GET" || !strings.HasSuffix(in.Request.URL, "/items?q=[REDACTED]") {
		t.Errorf("request = %s %s", in.Request.Method, in.Request.URL)
	}
	if in.Request.Headers.Get("Authorization") != "[REDACTED]" {
		t.Errorf("Authorization recorded as %q", in.Request.Headers.Get("Authorization"))
	}
	if string(in.Response.Body) != wantOut || in.Response.Code != 200 {
		t.Errorf("response = %d %q", in.Response.Code, in.Response.Body)
	}
	c.Path = filepath.Join(dir, "out", "curl", "items.yaml")
	if err := cassettes.Save(c, cassettes.SaveOptionsFor(redact.New(nil, vars))); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(c.Path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), plantedValue) || strings.Contains(string(data), "pl4nted") {
		t.Errorf("the cassette holds the planted token")
	}

	// Replay offline: the upstream is gone, the proxy serves the cassette.
	srv.Close()
	loaded, err := cassettes.Load(c.Path, cassettes.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ca, err := proxy.LoadOrCreateCA(filepath.Join(dir, "ca"))
	if err != nil {
		t.Fatal(err)
	}
	rp, err := proxy.New(proxy.Options{Mode: proxy.ModeReplay, CA: ca, Cassettes: []*cassettes.Cassette{loaded}})
	if err != nil {
		t.Fatal(err)
	}
	if err := rp.Start(); err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	cmd := exec.Command("curl", "-sS", "--fail", srv.URL+"/items?q=[REDACTED]", "-g")
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}, ca.ChildEnv(rp.URL())...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("replay through curl: %v\n%s", err, out)
	}
	if string(out) != wantOut {
		t.Errorf("replayed body = %q, want %q", out, wantOut)
	}
}

// missingTool skips a test whose real client is not installed, except in CI
// (CI=true), where .ci/run installs it: there a missing tool is a failure,
// not a silent skip.
func missingTool(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("%s: CI must install it (.ci/run)", why)
	}
	t.Skip(why)
}

// TestRecordCLIReportsResponsesCutShort: a command that stops reading a
// response (curl's output piped into head) leaves that response out of the
// cassette, and record says so on its log; the call that ended is kept.
func TestRecordCLIReportsResponsesCutShort(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		missingTool(t, "curl not installed")
	}
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/small" {
			io.WriteString(w, "ok")
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(512*len(chunk))) // 32 MiB: more than loopback buffers hold
		for range 512 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	var log strings.Builder
	c, err := RecordCLI(context.Background(), CLIOptions{
		Meta:    Meta{Adapter: "curl", Scenario: "cut", Now: fixedNow},
		Command: "sh", Args: []string{"-c", `curl -sS "` + srv.URL + `/small"; curl -sS "` + srv.URL + `/big" | head -c 1000 >/dev/null`},
		Environ:   []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir},
		Intercept: ProxyInterceptor(ProxyConfig{CADir: filepath.Join(dir, "ca"), Transport: srv.Client().Transport.(*http.Transport).Clone()}),
		Log:       &log,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Interactions) != 1 || !strings.HasSuffix(c.Interactions[0].Request.URL, "/small") {
		t.Errorf("recorded %d interactions, want only /small", len(c.Interactions))
	}
	if !strings.Contains(log.String(), "not recorded: GET "+srv.URL+"/big → 200") {
		t.Errorf("log:\n%s", log.String())
	}
}

// TestRecordCLIFailedCallElsewhereIsANote: a command whose call to the
// adapter's host succeeds and whose call to another host fails (httpie's
// update check without DNS, #35) is recorded; the failure is a note on
// the log. A failed call to the adapter's own host still refuses it.
func TestRecordCLIFailedCallElsewhereIsANote(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		missingTool(t, "curl not installed")
	}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"ok":true}`)
	}))
	defer srv.Close()
	// The other host: a listener closed before the call, so the proxy's
	// dial is refused (no DNS is needed to fail).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := "https://" + ln.Addr().String() + "/update-check"
	ln.Close()
	upstream := srv.Client().Transport.(*http.Transport).Clone()
	dir := t.TempDir()
	record := func(base string) (*cassettes.Cassette, string, error) {
		var log bytes.Buffer
		c, err := RecordCLI(context.Background(), CLIOptions{
			Meta:    Meta{Adapter: "api", Scenario: "items", Now: fixedNow},
			Command: "sh",
			Args:    []string{"-c", `curl -sS --fail "` + srv.URL + `/items"; curl -sS --max-time 10 "` + elsewhere + `" >/dev/null 2>&1; exit 0`},
			Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}, BaseURL: base, Log: &log,
			Intercept: ProxyInterceptor(ProxyConfig{CADir: filepath.Join(dir, "ca"), Transport: upstream}),
		})
		return c, log.String(), err
	}
	c, log, err := record(srv.URL)
	if err != nil {
		t.Fatalf("a failed call to another host refused the recording: %v", err)
	}
	if len(c.Interactions) != 1 || string(c.Interactions[0].Response.Body) != `{"ok":true}` {
		t.Errorf("recorded %d interactions", len(c.Interactions))
	}
	if !strings.Contains(log, "note: GET "+strings.TrimSuffix(elsewhere, "/update-check")) || !strings.Contains(log, "outside adapter api") {
		t.Errorf("log = %q, want a note naming the failed call", log)
	}
	// With the other host as the adapter's, the same failure refuses.
	if _, _, err := record(strings.TrimSuffix(elsewhere, "/update-check")); err == nil {
		t.Errorf("a failed call to the adapter's own host was recorded")
	}
}

// TestRecordCLIAuthFailureIsInfrastructure: a command whose calls are
// answered 401 or 403 (wrong or expired credentials) is not recorded: the
// error is E_REAL_AUTH (exit 3) and nothing is returned to save over a
// good cassette (#35); with the status declared (--allow-status 401) the
// refusal is the behaviour under test, and is recorded.
func TestRecordCLIAuthFailureIsInfrastructure(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		missingTool(t, "curl not installed")
	}
	for _, code := range []int{401, 403} {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, `{"message":"Bad credentials"}`, code)
			}))
			defer srv.Close()
			dir := t.TempDir()
			record := func(allow []int) (*cassettes.Cassette, error) {
				return RecordCLI(context.Background(), CLIOptions{
					Meta:    Meta{Adapter: "api", Scenario: "me", Now: fixedNow},
					Command: "curl", Args: []string{"-sS", srv.URL + "/user"},
					Environ:   []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir},
					Intercept: ProxyInterceptor(ProxyConfig{CADir: filepath.Join(dir, "ca"), Transport: srv.Client().Transport.(*http.Transport).Clone(), AllowStatus: allow}),
				})
			}
			c, err := record(nil)
			ce := outcome.AsError(err)
			if c != nil || ce == nil || ce.Reason != outcome.ERealAuth || ce.Reason.Exit() != outcome.ExitInfra || !strings.Contains(ce.Message, "check the credentials") {
				t.Fatalf("a %d: %v, %v; want E_REAL_AUTH (exit 3) and nothing to save", code, c, err)
			}
			c, err = record([]int{code})
			if err != nil || len(c.Interactions) != 1 || c.Interactions[0].Response.Code != code {
				t.Errorf("declared with --allow-status %d: %v", code, err)
			}
		})
	}
}
