// Package shimcall is what a CLI shim of `cassette observe` does on each
// call, in a process that must start fast: it imports no package of the
// project and nothing of the standard library it does not use (no
// net/http, no os/exec, no regexp, and no encoding/json, fmt or reflect,
// whose type tables were half of the shim's own instructions), so that
// cmd/cassette-shim, which is this package and a main, starts like a
// small program and not like the cassette binary (the runtime and 140
// package initializations: about 13 ms of CPU a call). Observe writes
// what a call needs into one small spec file (Spec.Encode: a quoted value
// a line), which the shim reads with open and read and decodes without
// reflection; the call goes to observe as one JSON line written by hand
// (Request.AppendJSON). No garbage collection runs in a call
// (TestShimCallRunsNoGC), and no goroutine but the one feeding a child's
// standard input.
//
// A call is redacted and written by the `cassette observe` process that
// put the shim on PATH, where redaction's rules are compiled once for the
// whole run: the shim sends the call over the session's Unix socket
// (Spec.Socket) and runs the fake in its place (exec) without waiting for
// the line to be written: observe reads the calls one after the other in
// the order they connect and writes each before it reads the next, and
// when it ends it still reads every call that has connected (ShimServer),
// so a call made after another is written after it, and none sent is
// lost. With standard input given (a pipe or a file), the fake runs as a
// child instead, so that the input's first bytes can be kept, and the
// call is sent on a connection of its own once the fake has exited, the
// shim waiting for observe to say it was written. When the socket does not
// answer (a shim run after its observe ended), the shim runs `cassette
// observe --shim` (Spec.Self), which redacts and writes the call itself,
// as every shim did before.
//
// No credential value is written by this package: the values of the
// adapter's credential variables go to observe over the socket (a
// connection between two processes of the same user, in a directory only
// that user can open), which redacts them before anything reaches a file.
package shimcall

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// EnvTest names the variable a test harness sets to the name of the
// running test (coverage.EnvTest).
const EnvTest = "CASSETTE_TEST"

// MaxInput is the largest standard input an observation keeps
// (coverage.MaxInput).
const MaxInput = 64 << 10

// Spec is what a shim runs, as `cassette observe` writes it (Encode: one
// file per CLI adapter, read by every call of its shim).
type Spec struct {
	Adapter string
	// Command is the name the shim stands for on PATH (git).
	Command string
	// Fake is the fake's command line (an absolute path first), Env the
	// NAME=value pairs added to its environment, Dir where it runs (""
	// for the caller's directory).
	Fake []string
	Env  []string
	Dir  string
	// Bin is the directory of the shims: the fake runs with it left out
	// of PATH, so that a fake that calls the real command by its name
	// (a wrapper around jq, git) reaches the real one, not its own shim
	// again and again.
	Bin string
	// Observed is the directory observations go to, Project the project's
	// directory; Credentials the names of the adapter's credential
	// variables, Redact the project's own credential names (redact.names).
	Observed    string
	Project     string
	Credentials []string
	Redact      []string
	// Withhold are the variables the fake never sees: every adapter's
	// real.credentials and the forge's token (cassettes.Config.SecretVars),
	// as verify withholds them; the shim still reads them to redact.
	Withhold []string
	// Socket is the observe run's Unix socket, which redacts and writes
	// the calls; Self the cassette binary, which does both itself when
	// the socket does not answer (`cassette observe --shim SPEC`).
	Socket string
	Self   string
	// CoverageJSON is the adapter's coverage settings as JSON, which the
	// shim passes on unread: coverage.LoadShim decodes them, for
	// `cassette observe --shim`.
	CoverageJSON string
}

// Request is one call, as a shim sends it to observe: one JSON line.
type Request struct {
	Adapter string   `json:"adapter"`
	Argv    []string `json:"argv"`
	Stdin   bool     `json:"stdin,omitempty"`
	Input   string   `json:"input,omitempty"`
	// Caller names the process that ran the shim (CallerName), for a call
	// whose environment names no test.
	Caller string `json:"caller,omitempty"`
	// Env are the variables of the shim's environment that observe needs
	// to redact and name the call: the adapter's credentials and
	// CASSETTE_TEST (NAME=value).
	Env []string `json:"env,omitempty"`
}

// Lookup reads a variable of env, the last one of that name.
func Lookup(env []string, name string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if kv := env[i]; len(kv) > len(name) && kv[len(name)] == '=' && kv[:len(name)] == name {
			return kv[len(name)+1:], true
		}
	}
	return "", false
}

// Load reads the spec a shim was written with (one read: readFile).
func Load(path string) (*Spec, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Check refuses a spec that observe did not write (path names it).
func (s *Spec) Check(path string) error {
	if len(s.Fake) == 0 || s.Adapter == "" || s.Command == "" || s.Observed == "" {
		return errors.New(path + ": not a shim spec written by cassette observe")
	}
	return nil
}

// Request is the call of args (the arguments after the command) made in
// env, standard input not yet known.
func (s *Spec) Request(args, env []string, caller func() string) Request {
	req := Request{Adapter: s.Adapter, Argv: append([]string{s.Command}, args...)}
	for _, name := range append([]string{EnvTest}, s.Credentials...) {
		if v, ok := Lookup(env, name); ok {
			req.Env = append(req.Env, name+"="+v)
		}
	}
	if t, _ := Lookup(env, EnvTest); t == "" && caller != nil {
		req.Caller = caller()
	}
	return req
}

// DepthVar counts the shims a call went through, one inside another;
// MaxDepth stops a loop of them (a fork bomb otherwise) whatever made it.
const (
	DepthVar = "CASSETTE_OBSERVE_SHIM_DEPTH"
	MaxDepth = 8
)

// Depth is how many shims the call of env went through.
func Depth(env []string) int {
	n, _ := Lookup(env, DepthVar)
	d, _ := strconv.Atoi(n)
	return d
}

// Loop is the message of a call stopped by MaxDepth ("" when it may run).
func (s *Spec) Loop(env []string) string {
	if depth := Depth(env); depth >= MaxDepth {
		return "cassette observe: " + s.Command + " was run through the shims " + strconv.Itoa(depth) + " times in a row (the fake of adapter " + s.Adapter + " calls " + s.Command + " again?): stopped\n"
	}
	return ""
}

// FakeEnv is the fake's environment, from the shim's: the withheld
// variables out, the shims' directory out of PATH, the fake's own
// variables and the depth added.
func (s *Spec) FakeEnv(env []string) []string {
	out := make([]string, 0, len(env)+len(s.Env)+1)
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case contains(s.Withhold, k):
			continue
		case k == "PATH" && s.Bin != "":
			if p := withoutDir(v, s.Bin); len(p) != len(v) {
				kv = "PATH=" + p
			}
		}
		out = append(out, kv)
	}
	out = append(out, s.Env...)
	return append(out, DepthVar+"="+strconv.Itoa(Depth(env)+1))
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// withoutDir is the list path with dir left out (path itself when it does
// not hold dir). An element shorter than dir is kept uncleaned: cleaning
// never makes a path longer.
func withoutDir(path, dir string) string {
	dir = filepath.Clean(dir)
	list := filepath.SplitList(path)
	keep := list[:0]
	for _, d := range list {
		if len(d) < len(dir) || (d != dir && filepath.Clean(d) != dir) {
			keep = append(keep, d)
		}
	}
	if len(keep) == len(list) {
		return path
	}
	return strings.Join(keep, string(os.PathListSeparator))
}

// IsPipeOrFile: standard input that can carry data (not a terminal, not
// /dev/null).
func IsPipeOrFile(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice == 0
}

// Tee hands standard input to the fake and keeps its first MaxInput
// bytes.
type Tee struct {
	Src  io.Reader
	mu   sync.Mutex
	head []byte
	n    int
}

func (t *Tee) Read(p []byte) (int, error) {
	n, err := t.Src.Read(p)
	t.mu.Lock()
	t.n += n
	if room := MaxInput + 1 - len(t.head); room > 0 {
		t.head = append(t.head, p[:min(n, room)]...)
	}
	t.mu.Unlock()
	return n, err
}

// Given says whether input was given and its text when it is kept (nil:
// none was).
func (t *Tee) Given() (bool, string) {
	if t == nil {
		return false, ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n == 0 {
		return false, ""
	}
	if t.n > MaxInput || !utf8.Valid(t.head) {
		return true, ""
	}
	return true, string(t.head)
}

// CallerName names the process that ran a shim, for a call no test named:
// its program's base name (and its script's, for an interpreter: "sh
// tests.sh") and its working directory relative to the project (a Go test
// binary is named after its package: "gitsummary.test in gitsummary").
func CallerName(ppid int, projectDir string) string {
	cmdline, err := readFile("/proc/" + strconv.Itoa(ppid) + "/cmdline")
	if err != nil || len(cmdline) == 0 {
		return ""
	}
	argv := strings.Split(strings.TrimSuffix(string(cmdline), "\x00"), "\x00")
	prog := filepath.Base(argv[0])
	if len(argv) > 1 && argv[1] != "" && !strings.HasPrefix(argv[1], "-") { // an interpreter and its script
		prog += " " + filepath.Base(argv[1])
	}
	cwd, err := os.Readlink("/proc/" + strconv.Itoa(ppid) + "/cwd")
	if err != nil {
		return prog
	}
	if r, err := filepath.Rel(projectDir, cwd); err == nil && !strings.HasPrefix(r, "..") {
		if r = filepath.ToSlash(r); r != "." {
			return prog + " in " + r
		}
		return prog
	}
	return prog + " in " + filepath.ToSlash(cwd)
}
