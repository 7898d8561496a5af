// Package sdk_test runs the official Go SDKs of three LLM providers
// (anthropic-sdk-go, openai-go, google.golang.org/genai) against
// `cassette proxy --mode replay` serving real recorded streams: the go-vcr
// cassettes of charmbracelet/fantasy's provider tests (Apache-2.0, see
// ../../../../shared/testdata/go-vcr-fantasy/NOTICE), read in place.
//
// Each test makes the calls a program using the SDK makes, twice: through
// the replaying proxy, and with the SDK reading the recorded response body
// directly (an http.RoundTripper that hands it the recorded bytes: "what
// the same SDK parses from the recorded body"). Both must give the same
// events, stop reasons and text; the text is also checked against what the
// recording says, so that two empty results cannot agree.
//
// It is a module of its own (go.mod here): the SDKs are heavy test-only
// dependencies that a project importing cassette must not inherit. `make
// test` runs it.
package sdk_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
)

// cassetteBin is the cassette binary built for this test run.
var cassetteBin string

// TestMain builds the cassette binary from the repository (in the root
// module, so that this module needs only what its tests import), or takes
// the one CASSETTE_E2E_BIN names, as the examples' tests do.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cassette-sdk-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cassetteBin = os.Getenv("CASSETTE_E2E_BIN")
	build := exec.Command(cassetteBin, "version")
	if cassetteBin == "" {
		cassetteBin = filepath.Join(dir, "cassette")
		build = exec.Command("go", "build", "-o", cassetteBin, "./cmd/cassette")
		build.Dir = filepath.Join("..", "..", "..")
	}
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building cassette: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fantasy is the path of a recording in the shared test data.
func fantasy(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join("..", "..", "..", "..", "shared", "testdata", "go-vcr-fantasy", filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s: the shared test data must be beside the repository in CI: %v", p, err)
		}
		t.Skipf("no shared test data: %v", err)
	}
	return p
}

// recording loads a recorded cassette as replay does.
func recording(t *testing.T, path string) *cassettes.Cassette {
	t.Helper()
	c, err := cassettes.Load(path, cassettes.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// recordedBody is an http.RoundTripper that answers the n-th request with
// the n-th recorded response, as it was recorded: the SDK parses the
// recorded bytes with no proxy in between. It is the reference side of
// every test, not a stand-in for the service.
type recordedBody struct {
	c *cassettes.Cassette
	n int
}

func (r *recordedBody) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	it := r.c.Interactions[r.n]
	r.n++
	return &http.Response{StatusCode: it.Response.Code, Status: it.Response.Status, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: it.Response.Headers.Clone(), Body: io.NopCloser(strings.NewReader(string(it.Response.Body))), Request: req}, nil
}

// direct is an HTTP client whose requests get the recorded responses of c,
// in order.
func direct(c *cassettes.Cassette) *http.Client { return &http.Client{Transport: &recordedBody{c: c}} }

// replayProxy is a running `cassette proxy --mode replay`.
type replayProxy struct {
	URL  string
	cmd  *exec.Cmd
	out  *lockedBuffer // stdout and stderr: the log, every miss, the stop line
	once sync.Once
}

// startReplay runs `cassette proxy --mode replay --cassette path
// --upstream upstream ARGS...` until the test ends (in an empty directory:
// no cassette.yaml) and returns it once it listens.
func startReplay(t *testing.T, path, upstream string, args ...string) *replayProxy {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	argv := append([]string{"proxy", "--mode", "replay", "--cassette", abs, "--upstream", upstream}, args...)
	p := &replayProxy{cmd: exec.Command(cassetteBin, argv...), out: &lockedBuffer{}}
	p.cmd.Dir = t.TempDir()
	p.cmd.Stderr = p.out
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.stop() })
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		p.out.Write([]byte(sc.Text() + "\n"))
		if _, u, ok := strings.Cut(sc.Text(), "listening on "); ok {
			p.URL = strings.TrimSpace(u)
			go func() { _, _ = io.Copy(p.out, stdout) }()
			return p
		}
	}
	_ = p.cmd.Wait()
	t.Fatalf("cassette %s exited before listening:\n%s", strings.Join(argv, " "), p.out.String())
	return nil
}

// stop ends the proxy (Ctrl-C) and returns all it printed, the stop line
// with its counts last.
func (p *replayProxy) stop() string {
	p.once.Do(func() {
		_ = p.cmd.Process.Signal(os.Interrupt)
		_ = p.cmd.Wait()
	})
	return p.out.String()
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// replayedAll stops the proxy and checks its stop line: every request was
// replayed, none missed.
func replayedAll(t *testing.T, p *replayProxy, n int) {
	t.Helper()
	out := p.stop()
	want := "0 interaction(s) recorded, " + strconv.Itoa(n) + " replayed, 0 replay miss(es)"
	if !strings.Contains(out, want) {
		t.Errorf("the proxy should have replayed %d request(s) with no miss:\n%s", n, out)
	}
}
