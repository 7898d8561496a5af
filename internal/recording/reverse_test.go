package recording

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// TestRecordCLIThroughReverseProxy records a real curl that finds its server
// through a variable (as docker reads DOCKER_HOST): real.env refers to the
// reverse proxy in front of a unix-socket engine, and the cassette holds the
// process and the HTTP it made underneath, under http://localhost.
func TestRecordCLIThroughReverseProxy(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		missingTool(t, "curl not installed")
	}
	sock := filepath.Join(t.TempDir(), "engine.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "engine says "+r.URL.Path+"\n")
	})}
	go srv.Serve(ln)
	defer srv.Close()

	env := ExpandEnv(map[string]string{"ENGINE_HOST": "tcp://${CASSETTE_PROXY_ADDR}", "ENGINE_URL": "${CASSETTE_PROXY_URL}", "OTHER": "${HOME}"},
		env(map[string]string{"HOME": "/home/x"}))
	if env["ENGINE_HOST"] != "tcp://${CASSETTE_PROXY_ADDR}" || env["OTHER"] != "/home/x" {
		t.Fatalf("ExpandEnv = %v", env)
	}
	c, err := RecordCLI(context.Background(), CLIOptions{
		Meta:      Meta{Adapter: "engine", Scenario: "version", Now: fixedNow},
		Command:   "sh",
		Args:      []string{"-c", `curl -sS --fail "http://${ENGINE_HOST#tcp://}/v1/version" && curl -sS --fail "$ENGINE_URL/v1/info"`},
		Env:       env,
		Environ:   []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()},
		Intercept: ProxyInterceptor(ProxyConfig{Upstream: "unix://" + sock}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(c.Output.Stdout), "engine says /v1/version\nengine says /v1/info\n"; got != want || c.Output.ExitCode != 0 {
		t.Fatalf("stdout %q (exit %d, stderr %q), want %q", got, c.Output.ExitCode, c.Output.Stderr, want)
	}
	if len(c.Interactions) != 2 || c.Interactions[0].Request.URL != "http://localhost/v1/version" || c.Interactions[1].Request.URL != "http://localhost/v1/info" {
		t.Fatalf("interactions: %+v", c.Interactions)
	}
	if got := c.Input.Env; len(got) != 3 || got[0] != "ENGINE_HOST" {
		t.Errorf("input.env = %v, want the names only", got)
	}
}

// TestRecordCLIEngineNotThere: with no engine on the socket, the command is
// not run (it would record its own failure as the real output) and the
// error says the real side is unreachable (exit 3).
func TestRecordCLIEngineNotThere(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "gone.sock")
	ran := filepath.Join(t.TempDir(), "ran")
	_, err := RecordCLI(context.Background(), CLIOptions{
		Meta:      Meta{Adapter: "engine", Scenario: "version", Now: fixedNow},
		Command:   "sh",
		Args:      []string{"-c", "touch " + ran},
		Environ:   []string{"PATH=" + os.Getenv("PATH")},
		Intercept: ProxyInterceptor(ProxyConfig{Upstream: "unix://" + sock}),
	})
	ce := outcome.AsError(err)
	if ce == nil || ce.Reason != outcome.ERealUnreachable || ce.Exit() != outcome.ExitInfra || !strings.Contains(ce.Error(), sock) {
		t.Fatalf("got %v, want E_REAL_UNREACHABLE naming %s", err, sock)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("the command ran against a missing engine")
	}
}
