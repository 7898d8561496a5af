package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/internal/report"
)

// TestFlagErrorsAreUsageErrors: for every subcommand, an unknown flag, a
// flag without its value and a missing required flag are usage errors
// (exit 2, E_USAGE) whose next step is that command's --help, never an
// E_IO with `cassette validate` (record without --adapter used to be).
func TestFlagErrorsAreUsageErrors(t *testing.T) {
	// verify and refresh write the reports of a refused command line to the
	// default report directory: not into the package's
	t.Chdir(t.TempDir())
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		if c.Runnable() && len(path) > 0 {
			paths = append(paths, path)
		}
		for _, sub := range c.Commands() {
			if sub.Name() == "help" || sub.Hidden {
				continue
			}
			walk(sub, append(append([]string(nil), path...), sub.Name()))
		}
	}
	walk(newRootCmd(&IO{}, &globals{}), nil)
	if len(paths) < 14 {
		t.Fatalf("found only %d commands: %v", len(paths), paths)
	}
	type row struct{ args []string }
	var rows []row
	for _, p := range paths {
		rows = append(rows, row{append(append([]string(nil), p...), "--no-such-flag")})
		rows = append(rows, row{append(append([]string(nil), p...), "--config")}) // a flag without its value
	}
	rows = append(rows, row{[]string{"record", "--scenario", "x", "--", "echo", "hi"}}) // --adapter is required
	for _, r := range rows {
		t.Run(strings.Join(r.args, " "), func(t *testing.T) {
			var out, errw bytes.Buffer
			code := Main(r.args, strings.NewReader(""), &out, &errw)
			want := "next: cassette " + cmdPathOf(r.args) + " --help"
			if code != 2 || !strings.Contains(errw.String(), "error[E_USAGE]: ") || !strings.Contains(errw.String(), want+"\n") {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 2, error[E_USAGE] and %q", code, errw.String(), want)
			}
		})
	}
}

// cmdPathOf is the command part of args (the words before the first flag).
func cmdPathOf(args []string) string {
	var words []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			break
		}
		words = append(words, a)
	}
	return strings.Join(words, " ")
}

// TestEveryCommandHasExamples: the README says every command has --help
// with examples; this keeps it true.
func TestEveryCommandHasExamples(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Name() != "help" && c.Name() != "cassette" && c.Example == "" && !c.Hidden {
			t.Errorf("cassette %s --help shows no example", strings.TrimPrefix(c.CommandPath(), "cassette "))
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(&IO{}, &globals{}))
}

// TestJSONOnlyWhereHonoured: --json is offered (in --help, and accepted)
// only by the commands whose output it turns into JSON; elsewhere it is an
// unknown flag, not silently ignored (init and ca path ignored it).
func TestJSONOnlyWhereHonoured(t *testing.T) {
	var offered []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Flags().Lookup("json") != nil || c.InheritedFlags().Lookup("json") != nil {
			offered = append(offered, strings.TrimPrefix(c.CommandPath(), "cassette "))
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(&IO{}, &globals{}))
	if got := strings.Join(offered, ","); got != "cases,coverage,diff,refresh,validate,verify,version" {
		t.Errorf("--json is offered by %s", got)
	}
	for _, args := range [][]string{{"init", "--json"}, {"ca", "path", "--json"}} {
		var out, errw bytes.Buffer
		if code := Main(args, strings.NewReader(""), &out, &errw); code != 2 || !strings.Contains(errw.String(), "unknown flag: --json") {
			t.Errorf("%v: exit %d, stderr %s", args, code, errw.String())
		}
	}
}

// TestVerifyHelpNamesEveryReport: verify --help names every file a run
// writes to --report-dir (it named 5 of 7).
func TestVerifyHelpNamesEveryReport(t *testing.T) {
	var out, errw bytes.Buffer
	if code := Main([]string{"verify", "--help"}, strings.NewReader(""), &out, &errw); code != 0 {
		t.Fatalf("verify --help: exit %d\n%s", code, errw.String())
	}
	dir := t.TempDir()
	if err := report.Write(dir, &report.Run{Tool: report.Tool{Name: "cassette"}, Command: "verify"}, report.Options{Golden: true}); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteHTML(dir, &report.Run{Tool: report.Tool{Name: "cassette"}, Command: "verify"}, report.Options{Golden: true}); err != nil {
		t.Fatal(err)
	}
	files, _ := os.ReadDir(dir)
	if len(files) < 7 {
		t.Fatalf("a run wrote only %d files", len(files))
	}
	for _, f := range files {
		if !strings.Contains(out.String(), f.Name()) {
			t.Errorf("verify --help does not name %s, which every run writes:\n%s", f.Name(), out.String())
		}
	}
}
