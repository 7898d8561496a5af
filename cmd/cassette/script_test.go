package main

import (
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/cassette-dev/cassette/examples/demo/fakes/petstore/store"
	"github.com/cassette-dev/cassette/internal/recording"
	"github.com/cassette-dev/cassette/internal/shimcall"
)

// TestMain lets the scripts run this test binary as the real `cassette`
// command, as the Go team tests the go command.
func TestMain(m *testing.M) {
	recording.Supervise() // as main does
	// The test binary carries no vcs.revision (go test does not stamp one);
	// set the link-time revision as the Makefile does for bin/cassette.
	_, src, _, _ := runtime.Caller(0)
	if out, err := exec.Command("git", "-C", filepath.Dir(src), "rev-parse", "HEAD").Output(); err == nil && commit == "" {
		commit = strings.TrimSpace(string(out))
	}
	testscript.Main(m, map[string]func(){
		"cassette":  func() { os.Exit(cassetteProgram()) },
		"faultfake": faultfake,
		// observe's shims run it when it is next to cassette, as make
		// build installs it.
		"cassette-shim": func() { os.Exit(shimcall.Main(os.Args[1:], os.Stdin, os.Stderr)) },
	})
}

// TestScripts runs the end-to-end CLI scripts in testdata/script. Set
// UPDATE_SCRIPTS=1 to rewrite their expected output.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") != "",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"fakeshop":      fakeshop,
			"faultupstream": faultupstream,
			"fault":         fault,
			"runnext":       runnext,
			"runprinted":    runprinted,
			"speccheck":     speccheckCmd,
			"statusserver":  statusserver,
		},
		Setup: func(env *testscript.Env) error {
			env.Setenv("NO_COLOR", "1")
			env.Setenv("SHARED", sharedDir())
			env.Setenv("PYBINDING", pythonBindingDir()) // the pytest plugin of this tree, for PYTHONPATH
			// The recording proxy's CA, for scripts that do not choose
			// one: outside $WORK (scripts commit it with git add -A) and
			// never the machine's own (HOME is /no-home in a script).
			ca, err := os.MkdirTemp("", "cassette-script-ca")
			if err != nil {
				return err
			}
			env.Defer(func() { os.RemoveAll(ca) })
			env.Setenv("CASSETTE_CA_DIR", filepath.Join(ca, "ca"))
			if err := armCanary(env); err != nil {
				return err
			}
			return checkNextSteps(env)
		},
	})
}

// pythonBindingDir is the repository's python/, the pytest plugin.
func pythonBindingDir() string {
	wd, _ := os.Getwd()
	return filepath.Join(wd, "..", "..", "python")
}

// sharedDir is ../shared beside the repository, where the specs, schemas and
// real go-vcr cassettes live (CI has it at the same place).
func sharedDir() string {
	wd, _ := os.Getwd()
	return wd + "/../../../shared"
}

// fakeshop starts the demo pet store in process and puts its URL in
// $FAKESHOP_URL, for scripts that need a real HTTP service to record from
// and a fake to verify against; it stops when the script ends.
func fakeshop(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: fakeshop")
	}
	srv := httptest.NewServer(store.New())
	ts.Setenv("FAKESHOP_URL", srv.URL)
	ts.Defer(srv.Close)
}

// armCanary puts a program `pwned` first on the script's PATH, outside
// $WORK, that notes each run of it in $CANARY_LOG. Scripts give hostile
// names (`$(pwned)`, `;pwned`, backticks) to files, directories, flags
// and cassette content; a shell that ever runs one of them while
// cassette works, or while a printed next step runs (the copies of
// checkNextSteps keep PATH), leaves a line in the log, and the script
// fails at its end: no command runs that the script did not declare.
func armCanary(env *testscript.Env) error {
	dir, err := os.MkdirTemp("", "cassette-canary-")
	if err != nil {
		return err
	}
	log := filepath.Join(dir, "ran")
	prog := "#!/bin/sh\necho \"pwned $*\" >>" + log + "\n"
	if err := os.WriteFile(filepath.Join(dir, "pwned"), []byte(prog), 0o755); err != nil {
		return err
	}
	env.Setenv("PATH", dir+string(os.PathListSeparator)+env.Getenv("PATH"))
	env.Setenv("CANARY_LOG", log)
	env.Defer(func() {
		defer os.RemoveAll(dir)
		if data, err := os.ReadFile(log); err == nil {
			if tb, ok := env.T().(testing.TB); ok {
				tb.Errorf("a command the script did not declare ran (a hostile name was run by a shell):\n%s", data)
			}
		}
	})
	return nil
}
