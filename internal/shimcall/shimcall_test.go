package shimcall

import (
	"bufio"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestSpecRoundTrip: what observe encodes, the shim parses back whole,
// values with newlines, quotes, bytes that are not UTF-8 and an empty
// argument of the fake included.
func TestSpecRoundTrip(t *testing.T) {
	want := &Spec{Adapter: "git", Command: "git", Fake: []string{"/bin/sh", "-c", "echo \"$1\"\nexit 3", ""}, Env: []string{"A=b c", "NL=x\ny"},
		Dir: "/tmp/a dir", Bin: "/p/.cassette/observe/bin", Observed: "/p/.cassette/observed/1", Project: "/p",
		Credentials: []string{"GIT_TOKEN"}, Redact: []string{"membership_number"}, Withhold: []string{"GIT_TOKEN", "GH_TOKEN"},
		Socket: "/tmp/s.sock", Self: "/usr/bin/cassette", CoverageJSON: `{"Paths":["a\"b"],"Depth":null}`}
	want.Env = append(want.Env, "BAD=\xff\xfe")
	data := want.Encode()
	got, err := Parse("shim-git.spec", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parsed back\n%+v\nwant\n%+v\nfrom\n%s", got, want, data)
	}
	if n := strings.Count(string(data), "\n"); n != 21 {
		t.Errorf("%d lines, want the header and a line a value (20):\n%s", n, data)
	}
}

// TestParseNamesLineAndField: a spec that observe did not write, or one
// edited by hand, is refused with its file, line and field.
func TestParseNamesLineAndField(t *testing.T) {
	good := string((&Spec{Adapter: "git", Command: "git", Fake: []string{"/bin/true"}, Observed: "/o"}).Encode())
	for _, c := range []struct{ data, want string }{
		{`{"adapter": "git"}`, "s.spec:1: not a shim spec written by this cassette observe"},
		{good + "fake /bin/false\n", `s.spec:6: field fake: the value is not a quoted string`},
		{good + "color \"red\"\n", `s.spec:6: unknown field "color"`},
		{strings.Replace(good, "adapter \"git\"\n", "", 1), "s.spec: not a shim spec written by cassette observe"},
	} {
		_, err := Parse("s.spec", []byte(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q): %v, want %q", c.data, err, c.want)
		}
	}
}

// TestRequestJSON: the call the shim writes by hand decodes as the one
// encoding/json writes: the same fields, the same omissions, the same
// strings (a byte that is not UTF-8 as U+FFFD, control characters
// escaped).
func TestRequestJSON(t *testing.T) {
	for _, r := range []Request{
		{Adapter: "git", Argv: []string{"git", "log"}},
		{Adapter: "a\"b\\c", Argv: []string{"x\ny\tz\r", "\x00\x01\x1f\x7f", "\xff\xfeé€😀", "\u2028\u2029", "<&>"}, Stdin: true, Input: "line\n",
			Caller: "sh tests.sh in sub dir", Env: []string{"CASSETTE_TEST=TestX", "TOKEN=v"}},
		{Adapter: "", Argv: nil},
	} {
		checkRequestJSON(t, r)
	}
}

func FuzzRequestJSON(f *testing.F) {
	f.Add("git", "log\xff", "in\x00put", true)
	f.Fuzz(func(t *testing.T, adapter, arg, input string, stdin bool) {
		checkRequestJSON(t, Request{Adapter: adapter, Argv: []string{adapter, arg}, Input: input, Stdin: stdin, Caller: arg, Env: []string{input}})
	})
}

func checkRequestJSON(t *testing.T, r Request) {
	t.Helper()
	line := r.AppendJSON(nil)
	var got, want map[string]any
	if err := json.Unmarshal(line, &got); err != nil {
		t.Fatalf("%+v: %s is not JSON: %v", r, line, err)
	}
	std, _ := json.Marshal(r)
	if err := json.Unmarshal(std, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%+v:\n got %s\nwant %s", r, line, std)
	}
}

// TestShimImportsOnlyWhatACallNeeds: cmd/cassette-shim links none of the
// packages whose start or type tables a call would pay for (encoding/json
// and reflect were half of the shim's own instructions, callgrind), and
// nothing that starts a server, a client or a child through os/exec.
func TestShimImportsOnlyWhatACallNeeds(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/cassette-dev/cassette/cmd/cassette-shim").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, p := range []string{"encoding/json", "reflect", "fmt", "regexp", "net", "net/http", "os/exec", "time/tzdata", "runtime/debug"} {
		if slices.Contains(deps, p) {
			t.Errorf("cmd/cassette-shim imports %s: each call of a shim would pay for it", p)
		}
	}
	for _, p := range deps {
		if strings.HasPrefix(p, "github.com/cassette-dev/cassette/") && p != "github.com/cassette-dev/cassette/internal/shimcall" && p != "github.com/cassette-dev/cassette/cmd/cassette-shim" {
			t.Errorf("cmd/cassette-shim imports %s: shimcall imports nothing of the project", p)
		}
	}
}

// TestShimCallRunsNoGC: a call through the built shim (a real socket that
// answers as observe does, a real fake) sends the call, runs the fake, and
// never starts a garbage collection: what it allocates stays under the
// runtime's first heap goal, so that turning the collector off
// (debug.SetGCPercent, which would link runtime/debug) would change nothing.
func TestShimCallRunsNoGC(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "cassette-shim")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/cassette-dev/cassette/cmd/cassette-shim").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	sockDir, err := os.MkdirTemp("", "shim") // a socket's path must be short
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(sockDir)
	ln, err := net.Listen("unix", filepath.Join(sockDir, "s.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- err.Error()
			return
		}
		defer c.Close()
		line, _ := bufio.NewReader(c).ReadString('\n')
		got <- line
		_, _ = c.Write([]byte("ok\n"))
	}()
	spec := &Spec{Adapter: "git", Command: "git", Fake: []string{"/bin/sh", "-c", `echo "fake ran $*"`, "fake"}, Observed: dir, Project: dir, Socket: ln.Addr().String()}
	specPath := filepath.Join(dir, "shim.spec")
	if err := os.WriteFile(specPath, spec.Encode(), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, specPath, "--", "log", "-n", "3")
	cmd.Env = []string{"PATH=/usr/bin:/bin", EnvTest + "=TestLog", "GODEBUG=gctrace=1"}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || string(out) != "fake ran log -n 3\n" {
		t.Fatalf("the shim: %v, stdout %q, stderr %q", err, out, stderr.String())
	}
	var req Request
	if line := <-got; json.Unmarshal([]byte(line), &req) != nil || strings.Join(req.Argv, " ") != "git log -n 3" || !slices.Contains(req.Env, EnvTest+"=TestLog") {
		t.Errorf("observe's socket got %q", line)
	}
	if strings.Contains(stderr.String(), "gc 1 @") {
		t.Errorf("a shim call ran the garbage collector:\n%s", stderr.String())
	}
}
