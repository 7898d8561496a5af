package coverage

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/internal/shimcall"
)

// TestObservingProxy puts the observing proxy between a client and a real
// HTTP server: the server gets every request as sent (minus the
// Cassette-Test header), a stream reaches the client event by event, and
// each call is written with its test, its body (or, past MaxBody, its
// size) and no credential.
func TestObservingProxy(t *testing.T) {
	next := make(chan struct{})
	var seen []string
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		seen = append(seen, fmt.Sprintf("%s %s test=%q auth=%q %d bytes", r.Method, r.URL.RequestURI(), r.Header.Get(HeaderTest), r.Header.Get("Authorization"), len(body)))
		if r.URL.Path == "/stream" {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: one\n\n")
			w.(http.Flusher).Flush()
			<-next // the client has read the first event
			io.WriteString(w, "data: two\n\n")
			return
		}
		w.Write([]byte(`{"ok":true}`))
	}))
	defer fake.Close()
	target, _ := url.Parse(fake.URL)
	dir := t.TempDir()
	w, err := OpenWriter(dir, "proxy-api", "proxy")
	if err != nil {
		t.Fatal(err)
	}
	rules, _ := NewRules(&cfgschema.Adapter{Kind: cfgschema.KindHTTP, Coverage: cfgschema.Coverage{Paths: []string{"/repos/{owner}/{repo}"}}})
	o := &Observer{Adapter: "api", Kind: cfgschema.KindHTTP, Rules: rules, Writer: w, Redactor: redact.New(nil, map[string]string{"API_TOKEN": "tok-0123456789"})}
	proxy := httptest.NewServer(o.Proxy(target))
	defer proxy.Close()

	req, _ := http.NewRequest("POST", proxy.URL+"/repos/o/r/labels?access_token=tok-0123456789", strings.NewReader(`{"name":"bug","color":"f00"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer tok-0123456789")
	req.Header.Set(HeaderTest, "TestCreate")
	mustDo(t, req)
	big := bytes.Repeat([]byte("x"), MaxBody+7)
	req, _ = http.NewRequest("PUT", proxy.URL+"/upload", bytes.NewReader(big))
	mustDo(t, req)

	resp, err := http.Get(proxy.URL + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(resp.Body)
	if line, _ := r.ReadString('\n'); line != "data: one\n" {
		t.Fatalf("first event %q", line)
	}
	close(next) // the second event is written only now: the first came through alone
	rest, _ := io.ReadAll(r)
	resp.Body.Close()
	if !strings.Contains(string(rest), "data: two") {
		t.Errorf("the rest of the stream: %q", rest)
	}
	w.Close()

	if want := `POST /repos/o/r/labels?access_token=tok-0123456789 test="" auth="Bearer tok-0123456789" 28 bytes`; seen[0] != want {
		t.Errorf("the fake saw %q, want %q (the request as sent, without Cassette-Test)", seen[0], want)
	}
	obs, probs, err := ReadDir(dir)
	if err != nil || len(probs) > 0 || len(obs) != 3 {
		t.Fatalf("%d observations, %v, %v", len(obs), probs, err)
	}
	if o := obs[0]; o.Shape != "POST /repos/{}/{}/labels?access_token {color,name}" || o.Test != "TestCreate" || o.Call.Body != `{"name":"bug","color":"f00"}` ||
		strings.Contains(o.Call.URL, "tok-0123456789") {
		t.Errorf("first call: %+v", o)
	}
	if o := obs[1]; o.Call.Body != "" || o.Call.BodyBytes != MaxBody+7 || o.Shape != "PUT /upload <body>" {
		t.Errorf("a body past MaxBody: shape %q, body %d bytes kept, size %d", o.Shape, len(o.Call.Body), o.Call.BodyBytes)
	}
	if want := fmt.Sprintf(`PUT /upload test="" auth="" %d bytes`, MaxBody+7); seen[1] != want {
		t.Errorf("the fake saw %q, want %q", seen[1], want)
	}
	if obs[2].Shape != "GET /stream" {
		t.Errorf("stream call: %q", obs[2].Shape)
	}
}

func mustDo(t *testing.T, req *http.Request) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("%s %s: %s", req.Method, req.URL, resp.Status)
	}
}

// TestShimRun runs real fakes (sh scripts) through a shim: the fake gets
// the caller's arguments and standard input, the exit code comes back,
// and the call is written once the fake has exited.
func TestShimRun(t *testing.T) {
	dir := t.TempDir()
	shim := &Shim{Spec: shimcall.Spec{Adapter: "git", Command: "git", Observed: dir, Credentials: []string{"GIT_TOKEN"}, Redact: []string{"membership_number"},
		Fake: []string{"/bin/sh", "-c", `read line; echo "fake got $line and $*"; exit 3`, "fake"}}}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	pw.WriteString("hello\n")
	pw.Close()
	var stdout, stderr bytes.Buffer
	code := shim.Run(context.Background(), ShimIO{Args: []string{"log", "--token=secret-value-42", "-n", "1", "--membership-number=member-777777"}, Stdin: pr, Stdout: &stdout, Stderr: &stderr,
		Env: []string{"PATH=/usr/bin:/bin", EnvTest + "=TestLog", "GIT_TOKEN=secret-value-42"}, Caller: "gitsummary.test"})
	if code != 3 || stdout.String() != "fake got hello and log --token=secret-value-42 -n 1 --membership-number=member-777777\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}

	devnull, _ := os.Open(os.DevNull)
	defer devnull.Close()
	missing := &Shim{Spec: shimcall.Spec{Adapter: "git", Command: "git", Observed: dir, Fake: []string{filepath.Join(dir, "no-such-fake")}}}
	if code := missing.Run(context.Background(), ShimIO{Args: []string{"status"}, Stdin: devnull, Stdout: io.Discard, Stderr: &stderr, Caller: "sh tests.sh"}); code != 127 ||
		!strings.Contains(stderr.String(), "the fake of adapter git did not start") {
		t.Errorf("a fake that cannot start: exit %d, %q", code, stderr.String())
	}

	obs, probs, err := ReadDir(dir)
	if err != nil || len(probs) > 0 || len(obs) != 2 {
		t.Fatalf("%d observations, %v, %v", len(obs), probs, err)
	}
	if o := obs[0]; o.Shape != "git log --membership-number --token -n <stdin>" || o.Test != "TestLog" || !o.Call.Stdin || o.Call.Input != "hello\n" ||
		strings.Join(o.Call.Argv, " ") != "git log --token=[REDACTED] -n 1 --membership-number=[REDACTED]" {
		t.Errorf("first call: %+v", o)
	}
	if o := obs[1]; o.Shape != "git status" || o.Test != "sh tests.sh" || o.Call.Stdin {
		t.Errorf("second call (stdin /dev/null, no CASSETTE_TEST): %+v", o)
	}
}

// TestSessionStartFailure: when an adapter's fake cannot be started, Start
// returns the error and stops what it had started (the first adapter's
// fake) instead of panicking.
func TestSessionStartFailure(t *testing.T) {
	cfg, err := cassettes.ParseConfig(filepath.Join(t.TempDir(), "cassette.yaml"), []byte(`version: 1
adapters:
  one: {kind: http, real: {base_url: "http://127.0.0.1:1"}, fake: {base_url: "http://127.0.0.1:2"}}
  two: {kind: http, real: {base_url: "http://127.0.0.1:1"}, fake: {base_url: "http://127.0.0.1:3"}}
`), cassettes.ConfigOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stopped := 0
	s := &Session{Config: cfg, Observed: t.TempDir(), Work: t.TempDir(),
		StartHTTP: func(_ context.Context, name string, a *cfgschema.Adapter) (string, func(), error) {
			if name == "two" {
				return "", nil, &outcome.Error{Reason: outcome.EFakeUnavailable, Message: "the fake of two did not start"}
			}
			return a.Fake.BaseURL, func() { stopped++ }, nil
		}}
	st, err := s.Start(context.Background())
	if st != nil || outcome.AsError(err).Reason != outcome.EFakeUnavailable || stopped != 1 {
		t.Errorf("Start: %v, %v; the first fake stopped %d times, want once", st, err, stopped)
	}
	s.StartHTTP = func(context.Context, string, *cfgschema.Adapter) (string, func(), error) {
		return "not a url", func() {}, nil
	}
	if _, err := s.Start(context.Background()); err == nil || !strings.Contains(err.Error(), `fake base URL "not a url"`) || strings.Contains(err.Error(), "%!") {
		t.Errorf("a base URL without a host: %v", err)
	}
}

// TestShimServer runs cmd/cassette-shim, built here, against a real
// ShimServer: the call is sent over the socket and written by the server,
// redacted (the spec names no cassette binary, so nothing else could have
// written it), then the fake runs in the shim's place (standard input
// /dev/null) or as its child (standard input a pipe, kept); the fake never
// sees the credential variable.
func TestShimServer(t *testing.T) {
	dir := t.TempDir()
	bin := buildShim(t, dir)
	srv, err := ListenShims()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	observed := filepath.Join(dir, "observed")
	shim := &Shim{Spec: shimcall.Spec{Adapter: "git", Command: "git", Observed: observed, Credentials: []string{"GIT_TOKEN"}, Withhold: []string{"GIT_TOKEN"},
		Redact: []string{"membership_number"}, Socket: srv.Socket(),
		Fake: []string{"/bin/sh", "-c", `[ -z "$GIT_TOKEN" ] || echo "fake saw the token"; [ "$1" = - ] && read line; echo "fake got $line and $*"; exit 3`, "fake"}}}
	srv.Add(shim)
	spec := filepath.Join(dir, "shim.spec")
	data, err := shim.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(spec, data, 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(stdin string, args ...string) string {
		cmd := exec.Command(bin, append([]string{spec, "--"}, args...)...)
		cmd.Env = []string{"PATH=/usr/bin:/bin", EnvTest + "=TestLog", "GIT_TOKEN=secret-value-42"}
		if stdin != "" {
			cmd.Stdin = strings.NewReader(stdin)
		}
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if out := run("", "log", "--token=secret-value-42", "--membership-number=member-777777"); out != "fake got  and log --token=secret-value-42 --membership-number=member-777777\n" {
		t.Errorf("exec'd fake: %q", out)
	}
	if out := run("hello secret-value-42\n", "-", "secret-value-42"); out != "fake got hello secret-value-42 and - secret-value-42\n" {
		t.Errorf("child fake: %q", out)
	}
	obs, probs, err := ReadDir(observed)
	if err != nil || len(probs) > 0 || len(obs) != 2 {
		t.Fatalf("%d observations, %v, %v", len(obs), probs, err)
	}
	if o := obs[0]; o.Test != "TestLog" || o.Call.Stdin || strings.Join(o.Call.Argv, " ") != "git log --token=[REDACTED] --membership-number=[REDACTED]" {
		t.Errorf("first call: %+v", o)
	}
	if o := obs[1]; !o.Call.Stdin || o.Call.Input != "hello [REDACTED]\n" || strings.Join(o.Call.Argv, " ") != "git - [REDACTED]" {
		t.Errorf("second call: %+v", o)
	}
	file, _ := os.ReadFile(filepath.Join(observed, "shim-git.jsonl"))
	if bytes.Contains(file, []byte("secret-value-42")) || bytes.Contains(file, []byte("member-777777")) {
		t.Errorf("a credential reached the observation file:\n%s", file)
	}
}

// TestShimServerKeepsOrderAndDrains: shims that run their fake without
// waiting for their line (cmd/cassette-shim, built here, standard input
// /dev/null) one after the other, and calls sent on the socket by hand
// and hung up at once, Close called right after the last: every call is
// written, in the order it was made.
func TestShimServerKeepsOrderAndDrains(t *testing.T) {
	dir := t.TempDir()
	bin := buildShim(t, dir)
	srv, err := ListenShims()
	if err != nil {
		t.Fatal(err)
	}
	observed := filepath.Join(dir, "observed")
	shim := &Shim{Spec: shimcall.Spec{Adapter: "git", Command: "git", Observed: observed, Socket: srv.Socket(), Fake: []string{"/bin/true"}}}
	srv.Add(shim)
	spec := filepath.Join(dir, "shim.spec")
	data, err := shim.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(spec, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range 20 {
		arg := strconv.Itoa(i)
		cmd := exec.Command(bin, spec, "--", "shim", arg)
		cmd.Env = []string{"PATH=/usr/bin:/bin", EnvTest + "=TestOrder"}
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Fatalf("shim call %d: %v\n%s", i, err, out)
		}
		want = append(want, "git shim "+arg)
	}
	for i := range 200 { // faster than the server answers them
		line, _ := json.Marshal(shimcall.Request{Adapter: "git", Argv: []string{"git", "sent", strconv.Itoa(i)}})
		c, err := net.Dial("unix", srv.Socket())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Write(append(line, '\n')); err != nil {
			t.Fatal(err)
		}
		c.Close()
		want = append(want, "git sent "+strconv.Itoa(i))
	}
	srv.Close()
	obs, probs, err := ReadDir(observed)
	if err != nil || len(probs) > 0 {
		t.Fatalf("%v, %v", probs, err)
	}
	var got []string
	for _, o := range obs {
		got = append(got, strings.Join(o.Call.Argv, " "))
	}
	if !slices.Equal(got, want) {
		t.Errorf("the lines written (%d):\n%s\nwant (%d):\n%s", len(got), strings.Join(got, "\n"), len(want), strings.Join(want, "\n"))
	}
}

// TestObservingProxySendsTheRequestAsSent: a test that asks for no
// compression gets none asked of the fake on its behalf (net/http's
// default transport adds Accept-Encoding: gzip and unzips the answer),
// and one that asks for gzip gets the fake's gzip bytes as they are.
func TestObservingProxySendsTheRequestAsSent(t *testing.T) {
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept-Encoding") == "gzip" {
			w.Header().Set("Content-Encoding", "gzip")
		}
		fmt.Fprintf(w, "accept-encoding=%q", r.Header.Get("Accept-Encoding"))
	}))
	defer fake.Close()
	target, _ := url.Parse(fake.URL)
	w, err := OpenWriter(t.TempDir(), "proxy-api", "proxy")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	proxy := httptest.NewServer((&Observer{Adapter: "api", Kind: cfgschema.KindHTTP, Writer: w}).Proxy(target))
	defer proxy.Close()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	defer client.CloseIdleConnections()
	for _, ae := range []string{"", "gzip"} {
		req, _ := http.NewRequest("GET", proxy.URL+"/x", nil)
		if ae != "" {
			req.Header.Set("Accept-Encoding", ae)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := fmt.Sprintf("accept-encoding=%q", ae); string(body) != want || resp.Header.Get("Content-Encoding") != map[string]string{"gzip": "gzip"}[ae] {
			t.Errorf("Accept-Encoding %q: the test got %q (Content-Encoding %q), want %q as the fake wrote it", ae, body, resp.Header.Get("Content-Encoding"), want)
		}
	}
}

// TestShimServerCloseCutsWaitingShims: a shim connected and still waiting
// to send (its fake still reading standard input when the test command
// ended) does not hold Close, and is told its call was not written.
func TestShimServerCloseCutsWaitingShims(t *testing.T) {
	srv, err := ListenShims()
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("unix", srv.Socket())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte(`{"adapter":`)); err != nil { // half a call: the server is reading it
		t.Fatal(err)
	}
	srv.Close() // returns: the test would hang here otherwise
	answer, _ := io.ReadAll(c)
	if string(answer) == "ok\n" {
		t.Errorf("a call cut off was answered %q", answer)
	}
	if _, err := os.Stat(srv.Socket()); !os.IsNotExist(err) {
		t.Errorf("the socket is still there: %v", err)
	}
}

// TestShimRunStopsWithItsContext: `cassette observe --shim` interrupted
// (its context done) kills a fake that would run on, and returns as a
// signal's end; the call is still written.
func TestShimRunStopsWithItsContext(t *testing.T) {
	dir := t.TempDir()
	shim := &Shim{Spec: shimcall.Spec{Adapter: "git", Command: "git", Observed: dir, Fake: []string{"/bin/sh", "-c", `echo started; exec sleep 1000`}}}
	ctx, cancel := context.WithCancel(context.Background())
	out := &notifyingBuffer{seen: make(chan struct{}, 1)}
	go func() { <-out.seen; cancel() }() // once the fake has started
	var stderr bytes.Buffer
	if code := shim.Run(ctx, ShimIO{Args: []string{"status"}, Stdout: out, Stderr: &stderr, Caller: "sh tests.sh"}); code != 128+9 {
		t.Errorf("exit %d, want %d (killed); stderr %q", code, 128+9, stderr.String())
	}
	if obs, _, err := ReadDir(dir); err != nil || len(obs) != 1 {
		t.Errorf("%d calls written, %v", len(obs), err)
	}
}

// notifyingBuffer is a buffer that says when it was first written to.
type notifyingBuffer struct {
	mu   sync.Mutex
	b    bytes.Buffer
	seen chan struct{}
}

func (n *notifyingBuffer) Write(p []byte) (int, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	select {
	case n.seen <- struct{}{}:
	default:
	}
	return n.b.Write(p)
}

// buildShim builds cmd/cassette-shim into dir and returns its path.
func buildShim(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "cassette-shim")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/cassette-dev/cassette/cmd/cassette-shim").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
