package main

import (
	"encoding/json"
	"os/exec"
	"sort"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// runprinted runs, each as printed, in a shell in the script's directory
// and with its environment, every command a JSON report holds (the string
// values of its next_step and replay_command fields, at any depth), and
// fails when the shell cannot run one as a command (126, 127) or cassette
// rejects it as a user or config error (2). With the canary of armCanary
// on PATH, a command that runs something it does not say fails the
// script too.
func runprinted(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: runprinted FILE.json")
	}
	var doc any
	if err := json.Unmarshal([]byte(ts.ReadFile(args[0])), &doc); err != nil {
		ts.Fatalf("runprinted: %v", err)
	}
	cmds := map[string]bool{}
	printedCommands(doc, cmds)
	if len(cmds) == 0 {
		ts.Fatalf("runprinted: %s holds no printed command", args[0])
	}
	list := make([]string, 0, len(cmds))
	for c := range cmds {
		list = append(list, c)
	}
	sort.Strings(list)
	for _, c := range list {
		code, out := shellRun(ts, c)
		ts.Logf("printed command %q: exit %d\n%s", c, code, out)
		if code == 127 || code == 126 || code == 2 {
			ts.Fatalf("the printed command %q does not run as printed (exit %d):\n%s", c, code, out)
		}
	}
}

// printedCommands adds to cmds the non-empty string values of the
// next_step and replay_command fields anywhere in v, without the "Run: "
// that specs/002 puts before summary.json's next_step.
func printedCommands(v any, cmds map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && (k == "next_step" || k == "replay_command") && strings.TrimSpace(s) != "" {
				cmds[strings.TrimPrefix(s, "Run: ")] = true
			}
			printedCommands(x, cmds)
		}
	case []any:
		for _, x := range v {
			printedCommands(x, cmds)
		}
	}
}

// shellRun runs command as printed in sh, in the script's directory, with
// the script's variables that a printed command may need (the canary's
// PATH among them), and returns its exit code and output.
func shellRun(ts *testscript.TestScript, command string) (int, []byte) {
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = ts.MkAbs(".")
	for _, k := range []string{"PATH", "HOME", "NO_COLOR", "UPSTREAM_URL", "UPSTREAM_CA", "GIT_CONFIG_NOSYSTEM", "TMPDIR", "CASSETTE_CA_DIR", "CANARY_LOG"} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out
	} else if err != nil {
		ts.Fatalf("run %q: %v", command, err)
	}
	return 0, out
}
