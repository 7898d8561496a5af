// Package e2e is the harness the examples' end-to-end tests share: it builds
// the cassette binary once per test binary (or checks the one
// CASSETTE_E2E_BIN names), copies an example into a temporary directory with
// a go.mod and an environment of its own, and runs commands there as a user
// would.
//
// What is particular to one example (starting a real server, proxies, the
// variables of its tools) stays in that example's tests.
package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/coverage"
)

// Main is the body of an example's TestMain: it builds the cassette binary
// into a temporary directory named after prefix, stores its path in *bin,
// runs the tests and returns the exit code for os.Exit. With
// CASSETTE_E2E_BIN set, the tests run against that binary instead, which
// must answer `version`.
func Main(m *testing.M, prefix string, bin *string) int {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	// CASSETTE_E2E_BIN runs the tests against a cassette binary built elsewhere.
	*bin = os.Getenv("CASSETTE_E2E_BIN")
	if *bin == "" {
		*bin = filepath.Join(dir, "cassette")
	}
	build := exec.Command("go", "build", "-o", *bin, "github.com/cassette-dev/cassette/cmd/cassette")
	if os.Getenv("CASSETTE_E2E_BIN") != "" {
		build = exec.Command(*bin, "version")
	}
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building cassette: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// Config says how to set up a copy of an example.
type Config struct {
	// Cassette is the cassette binary, given to the example's scripts as
	// $CASSETTE.
	Cassette string
	// Files are the names, relative to the source directory, copied into the
	// example (directories with all they hold).
	Files []string
	// Module is the module path of the go.mod written into the example, so
	// that verify can build the fake there.
	Module string
	// Env are variables set in the example besides the ones Example always
	// sets.
	Env []string
	// Drop tells which variables of the test's own environment the example
	// does not inherit, besides the ones Example always sets.
	Drop func(name string) bool
}

// Example is a copy of an example in a temporary directory, with the
// environment its commands run in.
type Example struct {
	t   testing.TB
	Dir string   // the copy
	Env []string // the environment of its commands
}

// set are the variables NewExample always sets, which the example therefore
// never inherits.
var set = map[string]bool{"HOME": true, "CASSETTE": true, "CASSETTE_CA_DIR": true, "NO_COLOR": true,
	"GOFLAGS": true, "GOWORK": true, "GOCACHE": true, "GOMODCACHE": true, "GOPATH": true}

// NewExample copies cfg.Files of srcDir into a temporary directory, writes a
// go.mod there, and makes an environment with a temporary HOME, the cassette
// binary as $CASSETTE, Go's caches of the test run and the test's other
// variables except those cfg.Drop names.
func NewExample(t testing.TB, srcDir string, cfg Config) *Example {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "example")
	for _, name := range cfg.Files {
		CopyTree(t, filepath.Join(srcDir, name), filepath.Join(dir, name))
	}
	WriteFile(t, filepath.Join(dir, "go.mod"), "module "+cfg.Module+"\n\ngo 1.26\n")
	home := t.TempDir()
	env := append([]string{"HOME=" + home}, cfg.Env...)
	env = append(env, "CASSETTE="+cfg.Cassette, "CASSETTE_CA_DIR="+filepath.Join(home, "ca"),
		"NO_COLOR=1", "GOFLAGS=", "GOWORK=off")
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} { // keep Go's caches warm despite the new HOME
		out, err := exec.Command("go", "env", v).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", v, err)
		}
		env = append(env, v+"="+strings.TrimSpace(string(out)))
	}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !set[name] && (cfg.Drop == nil || !cfg.Drop(name)) {
			env = append(env, kv)
		}
	}
	return &Example{t: t, Dir: dir, Env: env}
}

// Run runs a command in the example's directory with extra variables and
// returns its output and exit code; a command that cannot be started fails
// the test.
func (e *Example) Run(extraEnv []string, name string, args ...string) (stdout, stderr string, code int) {
	e.t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = e.Dir, append(append([]string(nil), e.Env...), extraEnv...)
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

// Must runs a command that has to succeed and returns its standard output.
func (e *Example) Must(extraEnv []string, name string, args ...string) string {
	e.t.Helper()
	out, _ := e.MustBoth(extraEnv, name, args...)
	return out
}

// MustBoth is Must returning stderr too (where cassette record reports what
// it recorded).
func (e *Example) MustBoth(extraEnv []string, name string, args ...string) (stdout, stderr string) {
	e.t.Helper()
	out, errOut, code := e.Run(extraEnv, name, args...)
	if code != 0 {
		e.t.Fatalf("%s %s: exit %d\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), code, out, errOut)
	}
	return out, errOut
}

// Path is the path of a file of the example, given relative to it with
// slashes.
func (e *Example) Path(rel string) string { return filepath.Join(e.Dir, filepath.FromSlash(rel)) }

// Observed is the path of an observation file (shim-git.jsonl) in the
// latest run of the example's .cassette/observed, the run coverage reads.
func (e *Example) Observed(name string) string {
	e.t.Helper()
	run, _, ok, err := coverage.LatestRun(e.Path(coverage.ObservedDir))
	if err != nil || !ok {
		e.t.Fatalf("no run of observations in %s: %v", e.Path(coverage.ObservedDir), err)
	}
	return filepath.Join(run.Dir, name)
}

// Patch replaces old with new in a file of the example, which must contain it.
func (e *Example) Patch(rel, old, new string) {
	e.t.Helper()
	data := ReadFile(e.t, e.Path(rel))
	if !strings.Contains(data, old) {
		e.t.Fatalf("%s does not contain %q", rel, old)
	}
	WriteFile(e.t, e.Path(rel), strings.Replace(data, old, new, 1))
}

// Summary reads the summary.json of the last verify run.
func (e *Example) Summary() (exitCode int, reason string) {
	e.t.Helper()
	var s struct {
		ExitCode   int    `json:"exit_code"`
		ReasonCode string `json:"reason_code"`
	}
	if err := json.Unmarshal([]byte(ReadFile(e.t, e.Path(".cassette/reports/summary.json"))), &s); err != nil {
		e.t.Fatalf("summary.json: %v", err)
	}
	return s.ExitCode, s.ReasonCode
}

// VerifyCommitted checks the example's committed cassettes as CI does on
// every change: they are valid, verify passes every one of suite's
// scenarios, and summary.json reports success.
func (e *Example) VerifyCommitted(cassette, suite string, scenarios []string) {
	e.t.Helper()
	e.Must(nil, cassette, "validate")
	out := e.Must(nil, cassette, "verify")
	for _, s := range scenarios {
		if !strings.Contains(out, "PASS  "+suite+"/"+s) {
			e.t.Errorf("verify did not pass %s/%s:\n%s", suite, s, out)
		}
	}
	if code, reason := e.Summary(); code != 0 || reason != "" {
		e.t.Errorf("summary.json: exit %d, reason %q; want 0, none", code, reason)
	}
}

// CopyTree copies the file or directory src to dst, keeping permissions.
func CopyTree(t testing.TB, src, dst string) {
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

// WriteFile writes content to path, making its directory.
func WriteFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ReadFile returns the content of path.
func ReadFile(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// RefreshDrift runs `cassette refresh --once ARGS...` in the example, which
// must find a drift (exit 1) and push a cassette-refresh/<adapter>/… branch
// to remote; it fetches that branch (FETCH_HEAD) and returns the files it
// changes against main.
func (e *Example) RefreshDrift(cassette, remote, adapter string, env []string, args ...string) (changed []string) {
	e.t.Helper()
	out, errOut, code := e.Run(env, cassette, append([]string{"refresh", "--once"}, args...)...)
	if code != 1 {
		e.t.Fatalf("refresh --once: exit %d, want 1 (drift)\n%s\n%s", code, out, errOut)
	}
	refs := e.Must(nil, "git", "ls-remote", "--heads", remote)
	var branch string
	for _, line := range strings.Split(refs, "\n") {
		if _, ref, ok := strings.Cut(line, "\trefs/heads/"); ok && strings.HasPrefix(ref, "cassette-refresh/"+adapter+"/") {
			branch = ref
		}
	}
	if branch == "" {
		e.t.Fatalf("refresh pushed no cassette-refresh/%s/... branch; remote has:\n%s\nrefresh said:\n%s\n%s", adapter, refs, out, errOut)
	}
	e.Must(nil, "git", "fetch", "-q", "origin", branch)
	return strings.Fields(e.Must(nil, "git", "diff", "--name-only", "main", "FETCH_HEAD"))
}
