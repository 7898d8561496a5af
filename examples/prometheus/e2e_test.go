package prometheus_test

// End-to-end tests of the prometheus example, run as a user would run it:
// the real cassette binary (built once), a real Prometheus from Debian's
// package on a loopback port with a temporary data directory, curl and
// promtool as the third-party clients, and the fake built by verify from
// fakes/prometheus.

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/cassette-dev/cassette/examples/internal/e2e"
)

// cassetteBin is the cassette binary built for this test run.
var cassetteBin string

func TestMain(m *testing.M) { os.Exit(e2e.Main(m, "cassette-prometheus-e2e-", &cassetteBin)) }

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
func startPrometheus(t *testing.T, e *e2e.Example, flags ...string) *prometheus {
	t.Helper()
	args := append([]string{"--config.file=" + e.Path("prometheus.yml"), "--storage.tsdb.path=" + t.TempDir(),
		"--web.listen-address=127.0.0.1:0"}, flags...)
	p := &prometheus{cmd: exec.Command("prometheus", args...), done: make(chan struct{})}
	// In the example's copy, as record.sh runs it in the example: its CWD (in
	// runtimeinfo) is then never the one the committed cassette holds,
	// wherever the repository is checked out.
	p.cmd.Dir, p.cmd.Env = e.Dir, e.Env
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

// newExample copies the example's committed files (not .cassette/) into a
// temporary directory, with a go.mod so that verify can build the fake
// there, and an environment with no proxy or PROM_ variables of the user's.
func newExample(t *testing.T) *e2e.Example {
	t.Helper()
	return e2e.NewExample(t, ".", e2e.Config{
		Cassette: cassetteBin,
		Files:    []string{"cassette.yaml", ".gitignore", "prometheus.yml", "record.sh", "fakes", "cassettes"},
		Module:   "example.com/promexample",
		Drop: func(name string) bool {
			return name == "PROM_URL" || name == "PROM_PORT" || name == "PROM_FLAGS" || strings.HasSuffix(strings.ToLower(name), "_proxy")
		},
	})
}

var scenarios = []string{"buildinfo", "config", "healthy", "labels", "promtool-query", "query-at-time",
	"query-now", "query-parse-error", "runtimeinfo", "targets"}

// TestCommittedCassettesVerify is what CI checks on every change, with or
// without Prometheus installed: the committed cassettes are valid and the
// fake answers them.
func TestCommittedCassettesVerify(t *testing.T) {
	newExample(t).VerifyCommitted(cassetteBin, "prometheus", scenarios)
}

// TestRecordReplayDrift is the whole loop on the real Prometheus: record
// every cassette through the proxy (record.sh), verify the fake against them,
// replay them to curl and promtool with Prometheus stopped, then change a
// Prometheus flag, re-record, see verify fail on the fake, fix the fake and
// see it pass.
func TestRecordReplayDrift(t *testing.T) {
	needPrometheus(t)
	e := newExample(t)
	if err := os.RemoveAll(e.Path("cassettes/prometheus")); err != nil {
		t.Fatal(err)
	}
	prom := startPrometheus(t, e)
	out := e.Must([]string{"PROM_URL=" + prom.URL}, "./record.sh")
	for _, s := range scenarios {
		if _, err := os.Stat(e.Path("cassettes/prometheus/" + s + ".yaml")); err != nil {
			t.Errorf("record.sh did not record %s: %v\n%s", s, err, out)
		}
	}
	runtimeinfo := e2e.ReadFile(t, e.Path("cassettes/prometheus/runtimeinfo.yaml"))
	if !strings.Contains(runtimeinfo, prom.URL+"/api/v1/status/runtimeinfo") || !strings.Contains(runtimeinfo, `"storageRetention":"15d"`) {
		t.Fatalf("runtimeinfo was not recorded from %s:\n%s", prom.URL, runtimeinfo)
	}
	e.Must(nil, cassetteBin, "validate")
	if out := e.Must(nil, cassetteBin, "verify"); !strings.Contains(out, "10 passed, 0 failed") {
		t.Fatalf("verify:\n%s", out)
	}

	// Replay to clients we did not write, with the real server gone: an
	// answer can only come from the cassettes.
	prom.stop()
	t.Run("curl through the forward proxy", func(t *testing.T) {
		px := e.StartProxy(t, cassetteBin, "--mode", "replay", "--cassette", "cassettes/prometheus")
		env := append([]string{"HTTP_PROXY=" + px, "http_proxy=" + px, "HTTPS_PROXY=" + px, "https_proxy=" + px, "NO_PROXY=", "no_proxy="},
			caEnv(t, e)...)
		got := e.Must(env, "curl", "-sS", prom.URL+"/api/v1/status/buildinfo")
		if want := recordedBody(t, e.Path("cassettes/prometheus/buildinfo.yaml")); got != want || !strings.Contains(got, `"version"`) {
			t.Errorf("curl got %q, want the recorded body %q", got, want)
		}
	})
	t.Run("curl and promtool through the reverse proxy", func(t *testing.T) {
		px := e.StartProxy(t, cassetteBin, "--mode", "replay", "--upstream", prom.URL, "--ignore-host", "--cassette", "cassettes/prometheus")
		if got := e.Must(nil, "curl", "-sS", px+"/-/healthy"); got != "Prometheus Server is Healthy.\n" {
			t.Errorf("curl /-/healthy: %q", got)
		}
		if got := e.Must(nil, "promtool", "query", "instant", "--time=1780000000", px, "vector(3)"); got != "{} => 3 @[1780000000]\n" {
			t.Errorf("promtool query instant: %q", got)
		}
		out, errOut, code := e.Run(nil, "curl", "-sS", "-w", "%{http_code}", px+"/api/v1/series")
		if !strings.HasSuffix(out, "599") || !strings.Contains(out, "replay miss") || !strings.Contains(out, "closest recorded request") {
			t.Errorf("an unrecorded request must fail closed (599, proxy.MissStatus) naming the closest recording; got exit %d\n%s\n%s", code, out, errOut)
		}
	})

	// The real side changes: a flag that /api/v1/status/runtimeinfo shows.
	prom = startPrometheus(t, e, "--storage.tsdb.retention.time=30d")
	e.Must([]string{"PROM_URL=" + prom.URL}, "./record.sh")
	prom.stop()
	out, errOut, code := e.Run(nil, cassetteBin, "verify")
	if code != 1 || !strings.Contains(out, "FAIL  prometheus/runtimeinfo") || !strings.Contains(out, "storageRetention") ||
		!strings.Contains(out, `"30d"`) || !strings.Contains(out, `"15d"`) || !strings.Contains(out, "9 passed, 1 failed") {
		t.Fatalf("verify after the flag changed: exit %d, want 1 with runtimeinfo drifting\n%s\n%s", code, out, errOut)
	}
	if code, reason := e.Summary(); code != 1 || reason != "E_CONTRACT_DRIFT" {
		t.Errorf("summary.json: exit %d, reason %q; want 1, E_CONTRACT_DRIFT", code, reason)
	}
	if junit := e2e.ReadFile(t, e.Path(".cassette/reports/junit.xml")); !strings.Contains(junit, "runtimeinfo") || !strings.Contains(junit, "<failure") {
		t.Errorf("junit.xml has no failure for runtimeinfo:\n%s", junit)
	}
	// Fix the fake.
	e.Patch("fakes/prometheus/server.go", `Retention: "15d"`, `Retention: "30d"`)
	if out := e.Must(nil, cassetteBin, "verify"); !strings.Contains(out, "10 passed, 0 failed") {
		t.Fatalf("verify after fixing the fake:\n%s", out)
	}
}

// caEnv is the CA variables of `cassette ca`, for clients that go through
// the forward proxy.
func caEnv(t *testing.T, e *e2e.Example) []string {
	t.Helper()
	cert := strings.TrimSpace(e.Must(nil, cassetteBin, "ca", "path"))
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
	if err := yaml.Unmarshal([]byte(e2e.ReadFile(t, path)), &c); err != nil || len(c.Interactions) == 0 {
		t.Fatalf("%s: %v (%d interactions)", path, err, len(c.Interactions))
	}
	return c.Interactions[0].Response.Body
}

// TestRefreshCycle is the weekly refresh against the real Prometheus and a
// local bare remote: record and commit the cassettes; the real side changes
// (a flag /api/v1/status/runtimeinfo shows); `cassette refresh --once`
// re-records every cassette from its own input, pushes a refresh branch
// that changes runtimeinfo and nothing of the fake, and, the fake still
// answering the old value, writes the fake-drift issue naming it.
func TestRefreshCycle(t *testing.T) {
	needPrometheus(t)
	e := newExample(t)
	remote := filepath.Join(t.TempDir(), "remote.git")
	gitID := []string{"-c", "user.name=Grace Hopper", "-c", "user.email=grace@example.com"}
	commit := func(msg string) {
		e.Must(nil, "git", append(gitID, "add", ".")...)
		e.Must(nil, "git", append(gitID, "commit", "-q", "-m", msg)...)
		e.Must(nil, "git", "push", "-q", "origin", "main")
	}
	e.Must(nil, "git", "init", "-q", "--bare", remote)
	e.Must(nil, "git", "init", "-q", "-b", "main")
	e.Must(nil, "git", "remote", "add", "origin", remote)

	prom := startPrometheus(t, e)
	e.Patch("cassette.yaml", "base_url: http://127.0.0.1:9090", "base_url: "+prom.URL) // where refresh finds the real side
	e.Must([]string{"PROM_URL=" + prom.URL}, "./record.sh")
	commit("prometheus example: cassettes")
	e.Must(nil, cassetteBin, "verify")
	prom.stop()

	// The real side changes.
	next := startPrometheus(t, e, "--storage.tsdb.retention.time=30d")
	e.Patch("cassette.yaml", "base_url: "+prom.URL, "base_url: "+next.URL)
	commit("prometheus example: the real side moved")

	changed := e.RefreshDrift(cassetteBin, remote, "prometheus", nil)
	if !slices.Contains(changed, "cassettes/prometheus/runtimeinfo.yaml") {
		t.Errorf("the refresh branch does not change runtimeinfo; it changes:\n%s", changed)
	}
	if strings.Contains(strings.Join(changed, " "), "fakes/") {
		t.Errorf("refresh must not touch the fake; it changed:\n%s", changed)
	}
	if got := e.Must(nil, "git", "show", "FETCH_HEAD:cassettes/prometheus/runtimeinfo.yaml"); !strings.Contains(got, `"storageRetention":"30d"`) {
		t.Errorf("the refreshed runtimeinfo does not hold the new retention:\n%s", got)
	}
	issue := e2e.ReadFile(t, e.Path(".cassette/reports/refresh/prometheus.issue.md"))
	if !strings.Contains(issue, "runtimeinfo") {
		t.Errorf("the fake-drift issue does not name runtimeinfo:\n%s", issue)
	}
}

// TestLearnFromTheRealPrometheus is issue 39's done-when on the real
// Prometheus: with all the normalizers removed from a copy of the example,
// `cassette learn --apply` records each scenario again (the queries that
// promtool sends as POST too, with --rerecord-unsafe: they only read),
// writes the normalizers it learned, and verify is green against the
// example's fake, with no more normalizers than the hand-written ones plus
// one. runtimeinfo's goroutineCount is learned from reality too: each
// repeat is a new client while the earlier ones are still connected, and
// Prometheus's net/http server holds a goroutine per connection, so the
// count moves as clients come (docs/learn.md); the fake's own count is
// then of the class reality's are. What never varies stays literal.
func TestLearnFromTheRealPrometheus(t *testing.T) {
	needPrometheus(t)
	e := newExample(t)
	hand := e.ForgetNormalizers()
	prom := startPrometheus(t, e)
	e.Patch("cassette.yaml", "base_url: http://127.0.0.1:9090", "base_url: "+prom.URL)
	if _, _, code := e.Run(nil, cassetteBin, "verify"); code != 1 {
		t.Fatalf("verify without normalizers: exit %d, want 1 (the fake's times and the ports differ)", code)
	}
	out := e.LearnApply(cassetteBin, "prometheus", hand["prometheus"], "--rerecord-unsafe")
	if want := "prometheus/runtimeinfo interactions[0].response.body $.data.goroutineCount: counter"; !strings.Contains(out, want) {
		t.Errorf("learn did not learn %q from the real Prometheus:\n%s", want, out)
	}
	// Constant fields of the recordings stay literal: nothing learned
	// covers them, and the re-recorded cassette holds them as Prometheus
	// answered.
	for _, constant := range []string{"GOMAXPROCS", "storageRetention", "corruptionCount", "reloadConfigSuccess"} {
		if strings.Contains(out, "$.data."+constant) {
			t.Errorf("learn normalized $.data.%s, which never varies:\n%s", constant, out)
		}
	}
	if got := e2e.ReadFile(t, e.Path("cassettes/prometheus/runtimeinfo.yaml")); !strings.Contains(got, `"storageRetention":"15d"`) || !strings.Contains(got, `"corruptionCount":0`) {
		t.Errorf("the re-recorded runtimeinfo lost a constant field:\n%s", got)
	}
	if vout, verr, code := e.Run(nil, cassetteBin, "verify"); code != 0 || !strings.Contains(vout, "10 passed, 0 failed") {
		t.Fatalf("verify after learn --apply: exit %d\n%s\n%s\nlearn said:\n%s", code, vout, verr, out)
	}
	// The separate clients move what depends on them, nothing else: a fake
	// that gets a constant wrong is still its drift, reported and never
	// learned.
	e.Patch("fakes/prometheus/server.go", `Retention: "15d"`, `Retention: "30d"`)
	e.LearnReportsDrift(cassetteBin, []string{"--adapter", "prometheus", "--rerecord-unsafe", "--apply"},
		[]string{`prometheus/runtimeinfo interactions[0].response.body $.data.storageRetention: reality "15d", the fake "30d"`}, nil)
	prom.stop()
}
