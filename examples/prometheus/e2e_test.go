package prometheus_test

// End-to-end tests of the prometheus example, run as a user would run it:
// the real cassette binary (built once), a real Prometheus from Debian's
// package on a loopback port with a temporary data directory, curl and
// promtool as the third-party clients, and the fake built by verify from
// fakes/prometheus.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// cassetteBin is the cassette binary built for this test run.
var cassetteBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cassette-prometheus-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// CASSETTE_E2E_BIN runs the tests against a cassette binary built elsewhere.
	cassetteBin = os.Getenv("CASSETTE_E2E_BIN")
	if cassetteBin == "" {
		cassetteBin = filepath.Join(dir, "cassette")
	}
	build := exec.Command("go", "build", "-o", cassetteBin, "github.com/cassette-dev/cassette/cmd/cassette")
	if os.Getenv("CASSETTE_E2E_BIN") != "" {
		build = exec.Command(cassetteBin, "version")
	}
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building cassette: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// needPrometheus skips the test when Prometheus is not installed, except in
// CI, where .ci/run installs it and its absence is a failure.
func needPrometheus(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"prometheus", "promtool", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not installed (CI is set): .ci/run installs it with apt-get install prometheus curl", tool)
			}
			t.Skipf("%s is not installed: sudo apt-get install -y prometheus curl", tool)
		}
	}
}

// prometheus is a real Prometheus process.
type prometheus struct {
	URL  string
	cmd  *exec.Cmd
	mu   sync.Mutex
	log  bytes.Buffer
	done chan struct{}
}

var listeningRE = regexp.MustCompile(`msg="Listening on" address=(127\.0\.0\.1:\d+)`)

// startPrometheus starts Prometheus with the example's configuration on a
// port the kernel picks, and returns once it logged that it is ready to
// serve; t's cleanup stops it.
func startPrometheus(t *testing.T, e *example, flags ...string) *prometheus {
	t.Helper()
	args := append([]string{"--config.file=" + e.path("prometheus.yml"), "--storage.tsdb.path=" + t.TempDir(),
		"--web.listen-address=127.0.0.1:0"}, flags...)
	p := &prometheus{cmd: exec.Command("prometheus", args...), done: make(chan struct{})}
	p.cmd.Env = e.env
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr, ready := make(chan string, 1), make(chan struct{})
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(stderr)
		readySeen := false
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.log.WriteString(line + "\n")
			p.mu.Unlock()
			if m := listeningRE.FindStringSubmatch(line); m != nil {
				addr <- m[1]
			}
			if !readySeen && strings.Contains(line, "Server is ready to receive web requests") {
				readySeen = true
				close(ready)
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	t.Cleanup(p.stop)
	deadline := time.NewTimer(60 * time.Second)
	defer deadline.Stop()
	for p.URL == "" || ready != nil {
		select {
		case a := <-addr:
			p.URL = "http://" + a
		case <-ready:
			ready = nil
		case <-p.done:
			t.Fatalf("prometheus exited before it was ready:\n%s", p.logText())
		case <-deadline.C:
			t.Fatalf("prometheus not ready after 60s:\n%s", p.logText())
		}
	}
	return p
}

func (p *prometheus) logText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// stop stops Prometheus (SIGTERM) and waits for it to exit.
func (p *prometheus) stop() {
	if p.cmd.ProcessState != nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	<-p.done
	_ = p.cmd.Wait()
}

// example is a copy of the example in a temporary directory, with the
// environment its commands run in.
type example struct {
	t   *testing.T
	dir string
	env []string
}

func newExample(t *testing.T) *example {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "example")
	for _, name := range []string{"cassette.yaml", ".gitignore", "prometheus.yml", "record.sh", "fakes", "cassettes"} {
		copyTree(t, name, filepath.Join(dir, name))
	}
	writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/promexample\n\ngo 1.26\n")
	home := t.TempDir()
	env := []string{"HOME=" + home, "CASSETTE=" + cassetteBin, "CASSETTE_CA_DIR=" + filepath.Join(home, "ca"),
		"NO_COLOR=1", "GOFLAGS=", "GOWORK=off"}
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} { // keep Go's caches warm despite the new HOME
		out, err := exec.Command("go", "env", v).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", v, err)
		}
		env = append(env, v+"="+strings.TrimSpace(string(out)))
	}
	skip := map[string]bool{"HOME": true, "CASSETTE": true, "CASSETTE_CA_DIR": true, "NO_COLOR": true, "GOFLAGS": true,
		"GOWORK": true, "GOCACHE": true, "GOMODCACHE": true, "GOPATH": true, "PROM_URL": true, "PROM_PORT": true, "PROM_FLAGS": true}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !skip[name] && !strings.HasSuffix(strings.ToLower(name), "_proxy") {
			env = append(env, kv)
		}
	}
	return &example{t: t, dir: dir, env: env}
}

// run runs a command in the example's directory with extra variables and
// returns its output and exit code.
func (e *example) run(extraEnv []string, name string, args ...string) (stdout, stderr string, code int) {
	e.t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = e.dir, append(append([]string(nil), e.env...), extraEnv...)
	var o, s bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &s
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		e.t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return o.String(), s.String(), code
}

func (e *example) must(extraEnv []string, name string, args ...string) string {
	e.t.Helper()
	out, errOut, code := e.run(extraEnv, name, args...)
	if code != 0 {
		e.t.Fatalf("%s %s: exit %d\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), code, out, errOut)
	}
	return out
}

func (e *example) path(rel string) string { return filepath.Join(e.dir, filepath.FromSlash(rel)) }

func (e *example) patch(rel, old, new string) {
	e.t.Helper()
	data := readFile(e.t, e.path(rel))
	if !strings.Contains(data, old) {
		e.t.Fatalf("%s does not contain %q", rel, old)
	}
	writeFile(e.t, e.path(rel), strings.Replace(data, old, new, 1))
}

func (e *example) summary() (exitCode int, reason string) {
	e.t.Helper()
	var s struct {
		ExitCode   int    `json:"exit_code"`
		ReasonCode string `json:"reason_code"`
	}
	if err := json.Unmarshal([]byte(readFile(e.t, e.path(".cassette/reports/summary.json"))), &s); err != nil {
		e.t.Fatalf("summary.json: %v", err)
	}
	return s.ExitCode, s.ReasonCode
}

var scenarios = []string{"buildinfo", "config", "healthy", "labels", "promtool-query", "query-at-time",
	"query-now", "query-parse-error", "runtimeinfo", "targets"}

// TestCommittedCassettesVerify is what CI checks on every change, with or
// without Prometheus installed: the committed cassettes are valid and the
// fake answers them.
func TestCommittedCassettesVerify(t *testing.T) {
	e := newExample(t)
	e.must(nil, cassetteBin, "validate")
	out := e.must(nil, cassetteBin, "verify")
	for _, s := range scenarios {
		if !strings.Contains(out, "PASS  prometheus/"+s) {
			t.Errorf("verify did not pass prometheus/%s:\n%s", s, out)
		}
	}
	if code, reason := e.summary(); code != 0 || reason != "" {
		t.Errorf("summary.json: exit %d, reason %q; want 0, none", code, reason)
	}
}

// TestRecordReplayDrift is the whole loop on the real Prometheus: record
// every cassette through the proxy (record.sh), verify the fake against them,
// replay them to curl and promtool with Prometheus stopped, then change a
// Prometheus flag, re-record, see verify fail on the fake, fix the fake and
// see it pass.
func TestRecordReplayDrift(t *testing.T) {
	needPrometheus(t)
	e := newExample(t)
	if err := os.RemoveAll(e.path("cassettes/prometheus")); err != nil {
		t.Fatal(err)
	}
	prom := startPrometheus(t, e)
	out := e.must([]string{"PROM_URL=" + prom.URL}, "./record.sh")
	for _, s := range scenarios {
		if _, err := os.Stat(e.path("cassettes/prometheus/" + s + ".yaml")); err != nil {
			t.Errorf("record.sh did not record %s: %v\n%s", s, err, out)
		}
	}
	runtimeinfo := readFile(t, e.path("cassettes/prometheus/runtimeinfo.yaml"))
	if !strings.Contains(runtimeinfo, prom.URL+"/api/v1/status/runtimeinfo") || !strings.Contains(runtimeinfo, `"storageRetention":"15d"`) {
		t.Fatalf("runtimeinfo was not recorded from %s:\n%s", prom.URL, runtimeinfo)
	}
	e.must(nil, cassetteBin, "validate")
	if out := e.must(nil, cassetteBin, "verify"); !strings.Contains(out, "10 passed, 0 failed") {
		t.Fatalf("verify:\n%s", out)
	}

	// Replay to clients we did not write, with the real server gone: an
	// answer can only come from the cassettes.
	prom.stop()
	t.Run("curl through the forward proxy", func(t *testing.T) {
		px := startProxy(t, e, "--mode", "replay", "--cassette", "cassettes/prometheus")
		env := append([]string{"HTTP_PROXY=" + px, "http_proxy=" + px, "HTTPS_PROXY=" + px, "https_proxy=" + px, "NO_PROXY=", "no_proxy="},
			caEnv(t, e)...)
		got := e.must(env, "curl", "-sS", prom.URL+"/api/v1/status/buildinfo")
		if want := recordedBody(t, e.path("cassettes/prometheus/buildinfo.yaml")); got != want || !strings.Contains(got, `"version"`) {
			t.Errorf("curl got %q, want the recorded body %q", got, want)
		}
	})
	t.Run("curl and promtool through the reverse proxy", func(t *testing.T) {
		px := startProxy(t, e, "--mode", "replay", "--upstream", prom.URL, "--ignore-host", "--cassette", "cassettes/prometheus")
		if got := e.must(nil, "curl", "-sS", px+"/-/healthy"); got != "Prometheus Server is Healthy.\n" {
			t.Errorf("curl /-/healthy: %q", got)
		}
		if got := e.must(nil, "promtool", "query", "instant", "--time=1780000000", px, "vector(3)"); got != "{} => 3 @[1780000000]\n" {
			t.Errorf("promtool query instant: %q", got)
		}
		out, errOut, code := e.run(nil, "curl", "-sS", "-w", "%{http_code}", px+"/api/v1/series")
		if !strings.HasSuffix(out, "599") || !strings.Contains(out, "replay miss") || !strings.Contains(out, "closest recorded request") {
			t.Errorf("an unrecorded request must fail closed (599, proxy.MissStatus) naming the closest recording; got exit %d\n%s\n%s", code, out, errOut)
		}
	})

	// The real side changes: a flag that /api/v1/status/runtimeinfo shows.
	prom = startPrometheus(t, e, "--storage.tsdb.retention.time=30d")
	e.must([]string{"PROM_URL=" + prom.URL}, "./record.sh")
	prom.stop()
	out, errOut, code := e.run(nil, cassetteBin, "verify")
	if code != 1 || !strings.Contains(out, "FAIL  prometheus/runtimeinfo") || !strings.Contains(out, "storageRetention") ||
		!strings.Contains(out, `"30d"`) || !strings.Contains(out, `"15d"`) || !strings.Contains(out, "9 passed, 1 failed") {
		t.Fatalf("verify after the flag changed: exit %d, want 1 with runtimeinfo drifting\n%s\n%s", code, out, errOut)
	}
	if code, reason := e.summary(); code != 1 || reason != "E_CONTRACT_DRIFT" {
		t.Errorf("summary.json: exit %d, reason %q; want 1, E_CONTRACT_DRIFT", code, reason)
	}
	if junit := readFile(t, e.path(".cassette/reports/junit.xml")); !strings.Contains(junit, "runtimeinfo") || !strings.Contains(junit, "<failure") {
		t.Errorf("junit.xml has no failure for runtimeinfo:\n%s", junit)
	}
	// Fix the fake.
	e.patch("fakes/prometheus/server.go", `Retention: "15d"`, `Retention: "30d"`)
	if out := e.must(nil, cassetteBin, "verify"); !strings.Contains(out, "10 passed, 0 failed") {
		t.Fatalf("verify after fixing the fake:\n%s", out)
	}
}

// startProxy runs `cassette proxy` in the example until the test ends and
// returns the URL it listens on.
func startProxy(t *testing.T, e *example, args ...string) string {
	t.Helper()
	cmd := exec.Command(cassetteBin, append([]string{"proxy"}, args...)...)
	cmd.Dir, cmd.Env = e.dir, e.env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if _, u, ok := strings.Cut(sc.Text(), "listening on "); ok {
			go func() { _, _ = io.Copy(io.Discard, stdout) }()
			return strings.TrimSpace(u)
		}
	}
	_ = cmd.Wait()
	t.Fatalf("cassette proxy %s exited before listening:\n%s", strings.Join(args, " "), stderr.String())
	return ""
}

// caEnv is the CA variables of `cassette ca`, for clients that go through
// the forward proxy.
func caEnv(t *testing.T, e *example) []string {
	t.Helper()
	cert := strings.TrimSpace(e.must(nil, cassetteBin, "ca", "path"))
	var env []string
	for _, v := range []string{"SSL_CERT_FILE", "CURL_CA_BUNDLE", "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "GIT_SSL_CAINFO"} {
		env = append(env, v+"="+cert)
	}
	return env
}

// recordedBody is the response body of a cassette's first interaction.
func recordedBody(t *testing.T, path string) string {
	t.Helper()
	var c struct {
		Interactions []struct {
			Response struct {
				Body string `yaml:"body"`
			} `yaml:"response"`
		} `yaml:"interactions"`
	}
	if err := yaml.Unmarshal([]byte(readFile(t, path)), &c); err != nil || len(c.Interactions) == 0 {
		t.Fatalf("%s: %v (%d interactions)", path, err, len(c.Interactions))
	}
	return c.Interactions[0].Response.Body
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
