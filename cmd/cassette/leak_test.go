package main

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"encoding/pem"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/internal/proxy"
)

// cassetteCmd is the real binary (this test binary acting as `cassette`,
// see TestMain) with its output captured.
type cassetteCmd struct {
	cmd      *exec.Cmd
	mu       sync.Mutex
	out      bytes.Buffer
	url      chan string
	done     chan struct{}
	waitErr  error
	exitCode int
}

func (c *cassetteCmd) printed() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.String()
}

func startCassette(t *testing.T, dir string, env []string, args ...string) *cassetteCmd {
	t.Helper()
	return startCassetteIn(t, dir, env, "", args...)
}

// startCassetteIn is startCassette with stdin as the command's standard
// input.
func startCassetteIn(t *testing.T, dir string, env []string, stdin string, args ...string) *cassetteCmd {
	t.Helper()
	c := &cassetteCmd{cmd: exec.Command("cassette", args...), url: make(chan string, 1), done: make(chan struct{})}
	c.cmd.Dir = dir
	c.cmd.Env = append(os.Environ(), env...)
	if stdin != "" {
		c.cmd.Stdin = strings.NewReader(stdin)
	}
	stdout, _ := c.cmd.StdoutPipe()
	stderr, _ := c.cmd.StderrPipe()
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, r := range []io.Reader{stdout, stderr} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := bufio.NewScanner(r)
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			for sc.Scan() {
				line := sc.Text()
				c.mu.Lock()
				c.out.WriteString(line + "\n")
				c.mu.Unlock()
				if _, u, ok := strings.Cut(line, "listening on "); ok {
					select {
					case c.url <- strings.TrimSpace(u):
					default:
					}
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		c.waitErr = c.cmd.Wait()
		c.exitCode = c.cmd.ProcessState.ExitCode()
		close(c.done)
	}()
	t.Cleanup(func() {
		c.cmd.Process.Kill()
		<-c.done
	})
	return c
}

func (c *cassetteCmd) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-c.done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("cassette did not exit; printed:\n%s", c.printed())
	}
	return c.exitCode
}

// TestNoLeakThroughAnyDoor plants every kind of credential, undeclared,
// through every door it applies to — the reverse proxy, the forward proxy
// over plain HTTP and over HTTPS (HTTP/1.1 and HTTP/2), `cassette record`
// of a command (curl --compressed; a command printing credentials by name
// and from its environment; a command line and a standard input holding
// one, which are refused), `cassette import govcr` and `import har` (each
// refused file listed, then the printed next step run), and the reports
// and bundle of `cassette verify` against a fake that answers compressed —
// with responses in every content coding, request bodies the client
// compressed, and #30 item 8's kinds. Then it looks for every planted
// value, in every encoding (base64 runs and compressed blobs decoded), in
// every file written in the project and in everything the commands
// printed.
func TestNoLeakThroughAnyDoor(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed (.ci/run installs it)")
	}
	tlsSrv := httptest.NewUnstartedServer(http.HandlerFunc(leakService))
	tlsSrv.EnableHTTP2 = true
	tlsSrv.StartTLS()
	defer tlsSrv.Close()
	plainSrv := httptest.NewServer(http.HandlerFunc(leakService))
	defer plainSrv.Close()

	// The cassette processes trust the service's test certificate (Go reads
	// SSL_CERT_FILE for its roots); the CA lives outside the project.
	work := t.TempDir()
	certFile := filepath.Join(work, "service.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: tlsSrv.Certificate().Raw}), 0o644)
	caDir := filepath.Join(work, "ca")
	ca, err := proxy.LoadOrCreateCA(caDir)
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"SSL_CERT_FILE=" + certFile, "CASSETTE_CA_DIR=" + caDir, "NO_COLOR=1", "HTTPS_PROXY=", "HTTP_PROXY=", "NO_PROXY="}
	project := leakProject(t, tlsSrv.URL)

	var printed []string // everything every command printed
	run := func(t *testing.T, stdin string, extraEnv []string, wantCode int, args ...string) string {
		t.Helper()
		c := startCassetteIn(t, project, append(append([]string(nil), env...), extraEnv...), stdin, args...)
		code := c.wait(t)
		printed = append(printed, c.printed())
		if code != wantCode {
			t.Fatalf("cassette %s exited %d, want %d:\n%s", strings.Join(args, " "), code, wantCode, c.printed())
		}
		return c.printed()
	}
	send := func(t *testing.T, client *http.Client, base string) {
		for _, req := range plantedRequests(t, base) {
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("%s %s: %d %s", req.Method, req.URL.Path, resp.StatusCode, b)
			}
		}
	}
	proxyDoor := func(t *testing.T, name string, args []string, client func(proxyURL string) *http.Client, base func(proxyURL string) string) {
		c := startCassette(t, project, env, append([]string{"proxy", "--mode", "record", "--cassette", "cassettes/svc/" + name + ".yaml"}, args...)...)
		var u string
		select {
		case u = <-c.url:
		case <-c.done:
			t.Fatalf("the proxy exited:\n%s", c.printed())
		}
		send(t, client(u), base(u))
		c.cmd.Process.Signal(syscall.SIGINT)
		if code := c.wait(t); code != 0 {
			t.Fatalf("cassette proxy exited %d:\n%s", code, c.printed())
		}
		printed = append(printed, c.printed())
	}
	forward := func(h2 bool) func(string) *http.Client {
		return func(p string) *http.Client {
			pu, _ := url.Parse(p)
			tr := &http.Transport{Proxy: http.ProxyURL(pu), TLSClientConfig: &tls.Config{RootCAs: ca.CertPool()}, ForceAttemptHTTP2: h2}
			if !h2 {
				tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
			}
			return &http.Client{Transport: tr, Timeout: time.Minute}
		}
	}
	t.Run("reverse", func(t *testing.T) {
		proxyDoor(t, "reverse", []string{"--upstream", tlsSrv.URL},
			func(string) *http.Client { return &http.Client{Timeout: time.Minute} }, func(p string) string { return p })
	})
	t.Run("forward-http", func(t *testing.T) {
		proxyDoor(t, "forward-http", nil, forward(false), func(string) string { return plainSrv.URL })
	})
	t.Run("forward-https-h1", func(t *testing.T) {
		proxyDoor(t, "forward-https-h1", nil, forward(false), func(string) string { return tlsSrv.URL })
	})
	t.Run("forward-https-h2", func(t *testing.T) {
		proxyDoor(t, "forward-https-h2", nil, forward(true), func(string) string { return tlsSrv.URL })
	})
	t.Run("cli-curl", func(t *testing.T) {
		// curl trusts the cassette CA through CURL_CA_BUNDLE, set by record.
		script, cenv := plantedCurl(t, tlsSrv.URL, work)
		run(t, "", cenv, 0, "record", "--adapter", "tool", "--scenario", "curl", "--", "sh", "-c", script)
	})
	t.Run("cli-by-name", func(t *testing.T) {
		k := cliKinds
		// The output by name (the values come from variables of ordinary
		// names), and an undeclared credential-named variable.
		script := `printf '{"user":"bob","password":"%s","sessionId":"%s"}\n' "$OUT_A" "$OUT_B"; ` +
			`echo "token from env: $P_ENV_TOKEN"; printf '{"client_secret":"%s"}\n' "$OUT_C" >&2`
		run(t, "", []string{"P_ENV_TOKEN=" + k["env-token"], "OUT_A=" + k["stdout-password"], "OUT_B=" + k["stdout-sessionId"], "OUT_C=" + k["stderr-secret"]},
			0, "record", "--adapter", "tool", "--scenario", "by-name", "--", "sh", "-c", script)
		// A command line and a standard input that hold one are refused:
		// refresh would run them again.
		out := run(t, "", nil, 2, "record", "--adapter", "tool", "--scenario", "argv", "--", "sh", "-c", "echo ok", "sh",
			"--token="+k["argv-token"], "--password", k["argv-password"], `{"password":"`+k["argv-password"]+`"}`)
		if !strings.Contains(out, "input.args") {
			t.Errorf("the refusal does not name the argument:\n%s", out)
		}
		out = run(t, `{"user":"bob","password":"`+k["stdin-password"]+`"}`, nil, 2, "record", "--adapter", "tool", "--scenario", "stdin", "--", "cat")
		if !strings.Contains(out, "input.stdin") {
			t.Errorf("the refusal does not name standard input:\n%s", out)
		}
	})
	govcrDir, harFile := importSources(t, work)
	nextLine := func(out string) string {
		for _, l := range strings.Split(out, "\n") {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "next: "); ok {
				return rest
			}
		}
		return ""
	}
	for _, imp := range []struct{ door, kind, src, adapter string }{
		{"import-govcr", "govcr", govcrDir, "impgovcr"}, {"import-har", "har", harFile, "imphar"},
	} {
		t.Run(imp.door, func(t *testing.T) {
			// Names are redacted and key formats refused, file by file; the
			// printed next step imports them redacted.
			out := run(t, "", nil, 2, "import", imp.kind, imp.src, "--adapter", imp.adapter)
			if !strings.Contains(out, "not imported:") || !strings.Contains(out, "--redact") {
				t.Fatalf("no list of refused files with a next step:\n%s", out)
			}
			next := nextLine(out)
			sh := exec.Command("sh", "-c", strings.Replace(next, "cassette ", "exec cassette ", 1))
			sh.Dir, sh.Env = project, append(os.Environ(), env...)
			got, err := sh.CombinedOutput()
			printed = append(printed, string(got))
			if err != nil {
				t.Fatalf("the printed next step %q failed: %v\n%s", next, err, got)
			}
		})
	}
	t.Run("validate-verify-bundle", func(t *testing.T) {
		run(t, "", nil, 0, "validate")
		// The service itself plays the fake: its answers carry every key
		// format again, compressed as the recorded requests ask, which the
		// reports and the bundle must not.
		c := startCassette(t, project, env, "verify", "cassettes/svc", "--bundle-dir", ".cassette/bundles")
		if code := c.wait(t); code != 0 && code != 1 {
			t.Errorf("cassette verify exited %d:\n%s", code, c.printed())
		}
		printed = append(printed, c.printed())
	})

	// Every file written in the project, and everything printed.
	written := map[string][]byte{}
	filepath.WalkDir(project, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			written[p], _ = os.ReadFile(p)
		}
		return nil
	})
	for _, want := range []string{"svc/reverse", "svc/forward-http", "svc/forward-https-h1", "svc/forward-https-h2", "tool/curl", "tool/by-name",
		"impgovcr/TestByName", "impgovcr/sub/TestFormats", "impgovcr/TestCompressed/br", "imphar/by-name", "imphar/formats"} {
		if _, ok := written[filepath.Join(project, "cassettes", filepath.FromSlash(want)+".yaml")]; !ok {
			t.Errorf("no cassette %s.yaml was written", want)
		}
	}
	for _, refused := range []string{"tool/argv", "tool/stdin"} {
		if _, ok := written[filepath.Join(project, "cassettes", filepath.FromSlash(refused)+".yaml")]; ok {
			t.Errorf("the refused recording %s was written", refused)
		}
	}
	var runJSON, bundleRunJSON int
	for p := range written {
		if strings.HasSuffix(p, "run.json") && strings.Contains(p, "bundles") {
			bundleRunJSON++
		} else if strings.HasSuffix(p, "run.json") {
			runJSON++
		}
	}
	if runJSON == 0 || bundleRunJSON == 0 {
		t.Errorf("verify wrote %d run.json and %d bundles", runJSON, bundleRunJSON)
	}
	t.Run("files", func(t *testing.T) {
		for p, data := range written {
			if hits := found(data); len(hits) > 0 {
				t.Errorf("%s holds planted credentials: %v\n%s", p, hits, data)
			}
		}
	})
	t.Run("printed", func(t *testing.T) {
		for _, out := range printed {
			if hits := found([]byte(out)); len(hits) > 0 {
				t.Errorf("the commands printed planted credentials %v:\n%s", hits, out)
			}
		}
	})
}
