package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestCoverageScripts runs the scripts of testdata/coverage: cassette
// observe around a test command of real processes (sh, curl), then
// cassette coverage; every next step they print is run as printed (see
// checkNextSteps). UPDATE_SCRIPTS=1 rewrites their expected output.
func TestCoverageScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/coverage",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") != "",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"fakeshop":  fakeshop,
			"runrecord": runrecord,
			"speccheck": speccheckCmd,
		},
		Setup: func(env *testscript.Env) error {
			env.Setenv("NO_COLOR", "1")
			return checkNextSteps(env)
		},
	})
}

// runrecord runs, as printed, the record command that the previous
// cassette coverage printed for SHAPE (the `record:` line under it), in
// the script's environment, and fails unless it exits 0.
func runrecord(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: runrecord SHAPE")
	}
	lines := strings.Split(ts.ReadFile("stdout"), "\n")
	for i, l := range lines {
		if !strings.Contains(l, "uncovered  "+args[0]+"  (") || i+1 >= len(lines) {
			continue
		}
		rec, ok := strings.CutPrefix(strings.TrimSpace(lines[i+1]), "record: ")
		if !ok {
			break
		}
		cmd := exec.Command("sh", "-c", rec)
		cmd.Dir = ts.MkAbs(".")
		for _, k := range []string{"PATH", "HOME", "NO_COLOR", "TMPDIR", "SHOP_TOKEN", "CASSETTE_CA_DIR"} {
			cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
		}
		out, err := cmd.CombinedOutput()
		ts.Logf("%s\n%s", rec, out)
		if err != nil {
			ts.Fatalf("the record command does not run as printed: %v", err)
		}
		return
	}
	ts.Fatalf("runrecord: the previous output has no record command under %q", args[0])
}
