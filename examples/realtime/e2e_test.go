package realtime_test

// End-to-end tests of the realtime example, run as a user would run it:
// the real cassette binary (built once), the real WebSocket service
// (./server), and two real clients — the Go one (./client, coder/websocket)
// and the Node one (./client-node, ws) — through the forward proxy (wss,
// HTTPS MITM) and the reverse proxy (ws), recording, replaying with the
// service gone, and verifying the fake message by message.

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/examples/internal/e2e"
)

var cassetteBin string

func TestMain(m *testing.M) { os.Exit(e2e.Main(m, "cassette-realtime-e2e-", &cassetteBin)) }

const key = "realtime-test-key-0123456789"

// newExample copies the example with a go.mod that requires what its
// programs import (from the module cache Go's tests already filled), the
// installed Node client's modules linked, and an environment without the
// user's proxies.
func newExample(t *testing.T) *e2e.Example {
	t.Helper()
	e := e2e.NewExample(t, ".", e2e.Config{
		Cassette: cassetteBin,
		Files:    []string{"cassette.yaml", ".gitignore", "record.sh", "server", "client", "fakes", "cassettes", "client-node/client.mjs", "client-node/package.json", "client-node/package-lock.json"},
		Module:   "example.com/realtime",
		Env:      []string{"REALTIME_API_KEY=" + key},
		Drop: func(name string) bool {
			return strings.HasPrefix(name, "REALTIME_") || strings.HasPrefix(name, "CASSETTE") || strings.HasSuffix(strings.ToLower(name), "_proxy") ||
				name == "SSL_CERT_FILE" || name == "NODE_EXTRA_CA_CERTS"
		},
	})
	root := filepath.Join("..", "..")
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	e2e.WriteFile(t, e.Path("go.sum"), string(sum))
	e2e.WriteFile(t, e.Path("go.mod"), "module example.com/realtime\n\ngo 1.26\n\nrequire github.com/coder/websocket "+requiredVersion(t, root, "github.com/coder/websocket")+"\n")
	if abs, err := filepath.Abs(filepath.Join("client-node", "node_modules")); err == nil {
		if _, err := os.Stat(abs); err == nil {
			if err := os.Symlink(abs, e.Path("client-node/node_modules")); err != nil {
				t.Fatal(err)
			}
		}
	}
	return e
}

// requiredVersion is the version of mod the repository's go.mod requires.
func requiredVersion(t *testing.T, root, mod string) string {
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == mod {
			return f[1]
		}
	}
	t.Fatalf("go.mod requires no %s", mod)
	return ""
}

// needNode skips a test of the Node client when node or its modules are
// missing, except in CI, where .ci/run installs them.
func needNode(t *testing.T) {
	t.Helper()
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node (apt-get install nodejs)"
	} else if _, err := os.Stat(filepath.Join("client-node", "node_modules", "ws")); err != nil {
		missing = "the Node client's modules ((cd examples/realtime/client-node && npm ci))"
	}
	if missing == "" {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is not installed (CI is set): .ci/run installs it", missing)
	}
	t.Skipf("%s is not installed", missing)
}

// process is a program of the example running until the test ends.
type process struct {
	cmd  *exec.Cmd
	out  *bufio.Scanner
	rest strings.Builder
	done chan struct{}
}

// start runs name in the example and reads its stdout up to the line
// holding "listening on "; it returns the process and the rest of that line.
func start(t *testing.T, e *e2e.Example, name string, args ...string) (*process, string) {
	t.Helper()
	p := &process{cmd: exec.Command(name, args...), done: make(chan struct{})}
	p.cmd.Dir, p.cmd.Env, p.cmd.Stderr = e.Dir, e.Env, os.Stderr
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.cmd.Process.Kill(); <-p.done; _ = p.cmd.Wait() })
	p.out = bufio.NewScanner(stdout)
	for p.out.Scan() {
		if _, u, ok := strings.Cut(p.out.Text(), "listening on "); ok {
			go func() {
				defer close(p.done)
				for p.out.Scan() {
					p.rest.WriteString(p.out.Text() + "\n")
				}
				_, _ = io.Copy(io.Discard, stdout)
			}()
			return p, strings.TrimSpace(u)
		}
	}
	t.Fatalf("%s %s exited before listening", name, strings.Join(args, " "))
	return nil, ""
}

// interrupt stops a cassette proxy as Ctrl-C does (a recording one saves)
// and returns what it printed after it started.
func (p *process) interrupt(t *testing.T) string {
	t.Helper()
	_ = p.cmd.Process.Signal(os.Interrupt)
	<-p.done
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("cassette proxy: %v\n%s", err, p.rest.String())
	}
	return p.rest.String()
}

// startServer builds and starts the real service: wss with a certificate
// written to the returned file, or ws.
func startServer(t *testing.T, e *e2e.Example, secure bool) (base, cert string) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "server")
	e.Must(nil, "go", "build", "-o", bin, "./server")
	if !secure {
		_, base = start(t, e, bin)
		return base, ""
	}
	cert = filepath.Join(t.TempDir(), "server.pem")
	_, base = start(t, e, bin, "--tls-cert", cert)
	return base, cert
}

// client is the command line of one client.
type client struct {
	name string
	argv func(e *e2e.Example, url string) []string
}

var goClient = client{"go", func(e *e2e.Example, url string) []string {
	bin := e.Path(".cassette/bin/client")
	if _, err := os.Stat(bin); err != nil {
		e.Must(nil, "go", "build", "-o", bin, "./client")
	}
	return []string{bin, url, "hello there", "how are you"}
}}

var nodeClient = client{"node", func(_ *e2e.Example, url string) []string {
	return []string{"node", "client-node/client.mjs", url, "hello there", "how are you"}
}}

// TestCommittedCassettesVerify is what CI checks on every change: each
// recorded session against the fake, message by message.
func TestCommittedCassettesVerify(t *testing.T) {
	newExample(t).VerifyCommitted(cassetteBin, "realtime", []string{"go-session", "node-session"})
}

// TestForwardWSSRecordReplayVerify: each client's wss session is recorded
// through the forward proxy's MITM by `cassette record`; with the service
// gone, `cassette proxy --mode replay` stands in for it and the client
// prints what it printed live; verify passes the fake on the new cassette.
func TestForwardWSSRecordReplayVerify(t *testing.T) {
	for _, c := range []client{goClient, nodeClient} {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "node" {
				needNode(t)
			}
			e := newExample(t)
			base, cert := startServer(t, e, true)
			url := base + "/v1/realtime?model=realtime-mini"
			scenario := "forward-" + c.name
			argv := c.argv(e, url)
			live, errOut := e.MustBoth(nil, cassetteBin, append([]string{"record", "--upstream-ca", cert, "--adapter", "realtime", "--scenario", scenario, "--"}, argv...)...)
			if !strings.Contains(errOut, "recorded cassettes/realtime/"+scenario+".yaml") || !strings.HasSuffix(live, "close 1000 session closed\n") {
				t.Fatalf("record: stdout\n%s\nstderr\n%s", live, errOut)
			}
			file := e2e.ReadFile(t, e.Path("cassettes/realtime/"+scenario+".yaml"))
			if strings.Contains(file, key) || !strings.Contains(file, "type: binary") || strings.Count(file, "from: client") != 3 {
				t.Fatalf("the cassette should hold the session, redacted, with the client's three messages:\n%s", file)
			}

			p, proxyURL := start(t, e, cassetteBin, "proxy", "--mode", "replay", "--cassette", "cassettes/realtime/"+scenario+".yaml")
			ca := strings.TrimSpace(e.Must(nil, cassetteBin, "ca", "path")) // made by record
			env := []string{"HTTPS_PROXY=" + proxyURL, "SSL_CERT_FILE=" + ca, "NODE_EXTRA_CA_CERTS=" + ca}
			replayed := e.Must(env, argv[0], argv[1:]...)
			if replayed != live {
				t.Errorf("replayed session:\n%s\nrecorded:\n%s", replayed, live)
			}
			if out := p.interrupt(t); !strings.Contains(out, "1 replayed, 0 replay miss(es)") {
				t.Errorf("proxy:\n%s", out)
			}
			if out := e.Must(nil, cassetteBin, "verify", "--case", "realtime/"+scenario); !strings.Contains(out, "1 passed, 0 failed") {
				t.Fatalf("verify:\n%s", out)
			}
		})
	}
}

// TestReverseWSRecordReplay: each client's ws session through the reverse
// proxy (`cassette proxy --upstream`) is saved on Ctrl-C, and replayed by
// the reverse proxy with the service gone.
func TestReverseWSRecordReplay(t *testing.T) {
	for _, c := range []client{goClient, nodeClient} {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "node" {
				needNode(t)
			}
			e := newExample(t)
			base, _ := startServer(t, e, false)
			upstream := "http" + strings.TrimPrefix(base, "ws")
			file := "cassettes/realtime/reverse-" + c.name + ".yaml"
			p, proxyURL := start(t, e, cassetteBin, "proxy", "--mode", "record", "--upstream", upstream, "--cassette", file)
			url := "ws" + strings.TrimPrefix(proxyURL, "http") + "/v1/realtime?model=realtime-large"
			argv := c.argv(e, url)
			live := e.Must(nil, argv[0], argv[1:]...)
			if out := p.interrupt(t); !strings.Contains(out, "saved 1 interaction(s) to "+file) {
				t.Fatalf("the recording proxy did not save the session:\n%s", out)
			}
			p, proxyURL = start(t, e, cassetteBin, "proxy", "--mode", "replay", "--upstream", upstream, "--cassette", file)
			url = "ws" + strings.TrimPrefix(proxyURL, "http") + "/v1/realtime?model=realtime-large"
			argv = c.argv(e, url)
			if replayed := e.Must(nil, argv[0], argv[1:]...); replayed != live || !strings.HasSuffix(live, "close 1000 session closed\n") {
				t.Errorf("replayed session:\n%s\nrecorded:\n%s", replayed, live)
			}
			_ = p.interrupt(t)
			if out := e.Must(nil, cassetteBin, "verify", "--case", "realtime/reverse-"+c.name); !strings.Contains(out, "1 passed, 0 failed") {
				t.Fatalf("verify:\n%s", out)
			}
		})
	}
}

// TestFakeDriftFails: a fake that answers in lower case fails verify at
// the message, JSON path and cassette line that differ.
func TestFakeDriftFails(t *testing.T) {
	e := newExample(t)
	e.Patch("fakes/realtime/main.go", `"delta": strings.ToUpper(w)`, `"delta": strings.ToLower(w)`)
	out, errOut, code := e.Run(nil, cassetteBin, "verify", "--case", "realtime/go-session")
	if code != 1 {
		t.Fatalf("verify: exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	line := 0
	for i, l := range strings.Split(e2e.ReadFile(t, e.Path("cassettes/realtime/go-session.yaml")), "\n") {
		if strings.Contains(l, `"delta":"HELLO"`) {
			line = i + 1
		}
	}
	for _, want := range []string{
		`FAIL  realtime/go-session`,
		`value drift at interactions[0].websocket.messages[2].data $.delta: value changed (want "HELLO", got "hello")`,
		"(cassettes/realtime/go-session.yaml:" + strconv.Itoa(line) + ")",
	} {
		if !strings.Contains(out+errOut, want) { // next: is on stderr
			t.Errorf("verify output lacks %q:\n%s\n%s", want, out, errOut)
		}
	}
	if code, reason := e.Summary(); code != 1 || reason != "E_CONTRACT_DRIFT" {
		t.Errorf("summary.json: exit %d, reason %q; want 1, E_CONTRACT_DRIFT", code, reason)
	}
}

// TestUpgradeFailureExits3: an upgrade the service refuses (an unknown
// model: 404 before the upgrade) is infrastructure: exit 3, E_REAL_UPGRADE,
// and nothing is saved.
func TestUpgradeFailureExits3(t *testing.T) {
	e := newExample(t)
	base, cert := startServer(t, e, true)
	argv := goClient.argv(e, base+"/v1/realtime?model=no-such-model")
	_, errOut, code := e.Run(nil, cassetteBin, append([]string{"record", "--upstream-ca", cert, "--adapter", "realtime", "--scenario", "refused", "--"}, argv...)...)
	if code != 3 || !strings.Contains(errOut, "error[E_REAL_UPGRADE]") || !strings.Contains(errOut, "404 Not Found") || !strings.Contains(errOut, "next: ") {
		t.Fatalf("record of a refused upgrade: exit %d, want 3 with E_REAL_UPGRADE:\n%s", code, errOut)
	}
	if _, err := os.Stat(e.Path("cassettes/realtime/refused.yaml")); !os.IsNotExist(err) {
		t.Errorf("a cassette was saved: %v", err)
	}
}

// TestRerecordFromItsOwnInput: what refresh does each week: the committed
// session is recorded again from its own input — the upgrade, then its
// recorded client side played against the real service — and the fake
// still matches the new recording.
func TestRerecordFromItsOwnInput(t *testing.T) {
	e := newExample(t)
	base, cert := startServer(t, e, true)
	_, errOut := e.MustBoth(nil, cassetteBin, "record", "--adapter", "realtime", "--scenario", "go-session",
		"--base-url", "https"+strings.TrimPrefix(base, "wss"), "--upstream-ca", cert)
	if !strings.Contains(errOut, "re-recorded cassettes/realtime/go-session.yaml") {
		t.Fatalf("record:\n%s", errOut)
	}
	file := e2e.ReadFile(t, e.Path("cassettes/realtime/go-session.yaml"))
	if strings.Count(file, "from: server") != 11 || strings.Contains(file, key) || !strings.Contains(file, `"delta":"ARE"`) {
		t.Fatalf("the re-recorded session should hold the service's 10 messages and its close, redacted:\n%s", file)
	}
	if out := e.Must(nil, cassetteBin, "verify", "--case", "realtime/go-session"); !strings.Contains(out, "1 passed, 0 failed") {
		t.Fatalf("verify:\n%s", out)
	}
}
