package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the scripts run this test binary as the real `cassette`
// command, as the Go team tests the go command.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"cassette": func() { os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
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
		Setup: func(env *testscript.Env) error {
			env.Setenv("NO_COLOR", "1")
			env.Setenv("SHARED", sharedDir())
			return nil
		},
	})
}

// sharedDir is ../shared beside the repository, where the specs, schemas and
// real go-vcr cassettes live (CI has it at the same place).
func sharedDir() string {
	wd, _ := os.Getwd()
	return wd + "/../../../shared"
}
