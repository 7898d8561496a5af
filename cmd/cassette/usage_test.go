package main

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestUsageErrorsAreTyped: every kind of mistake in calling cassette is a
// usageError of its kind where cobra finds it (no message text is read),
// and Main prints it as E_USAGE, exit 2, with the called command's --help
// as the next step. An unknown subcommand of a group command (`ca bogus`)
// used to print the group's help and exit 0.
func TestUsageErrorsAreTyped(t *testing.T) {
	// verify and refresh write the reports of a refused command line to the
	// default report directory: not into the package's
	t.Chdir(t.TempDir())
	for _, tc := range []struct {
		args []string
		kind usageKind
		next string
		also string // more that stderr must hold
	}{
		{[]string{"recrod"}, unknownCommand, "cassette --help", "did you mean `cassette record`?"},
		{[]string{"ca", "bogus"}, unknownCommand, "cassette ca --help", ""},
		{[]string{"completion", "bsh"}, unknownCommand, "cassette completion --help", "did you mean `cassette completion bash`?"},
		{[]string{"verify", "--no-such-flag"}, badFlag, "cassette verify --help", "unknown flag: --no-such-flag"},
		{[]string{"verify", "--config"}, badFlag, "cassette verify --help", "flag needs an argument"},
		{[]string{"refresh", "--timeout", "soon"}, badFlag, "cassette refresh --help", `invalid argument "soon"`},
		{[]string{"import", "govcr"}, badArgs, "cassette import --help", "accepts 2 arg(s), received 1"},
		{[]string{"init", "extra"}, badArgs, "cassette init --help", ""},
		{[]string{"record", "--scenario", "x", "--", "echo", "hi"}, missingFlag, "cassette record --help", `required flag(s) "adapter" not set`},
	} {
		name := strings.Join(tc.args, " ")
		root := newRootCmd(&IO{Out: io.Discard, Err: io.Discard}, &globals{})
		root.SetArgs(tc.args)
		root.SetOut(io.Discard)
		root.SetErr(io.Discard)
		var ue *usageError
		if err := root.Execute(); !errors.As(err, &ue) || ue.kind != tc.kind {
			t.Errorf("%s: error %v (%T), want a usageError of kind %q", name, err, err, tc.kind)
			continue
		}
		var out, errw bytes.Buffer
		code := Main(tc.args, strings.NewReader(""), &out, &errw)
		// (record and import, runs without reports, print their Seeds line first)
		stderr := strings.TrimPrefix(errw.String(), "Seeds: seed_version=1 order_seed=null judge_seed=null\n")
		if code != 2 || !strings.HasPrefix(stderr, "error[E_USAGE]: ") || !strings.Contains(errw.String(), "next: "+tc.next+"\n") ||
			!strings.Contains(errw.String(), tc.also) {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant exit 2, E_USAGE, %q and next: %s", name, code, errw.String(), tc.also, tc.next)
		}
	}
}

// TestFlagGroupErrorsAreTyped: flags declared to go together are checked
// before the command runs, as a usageError of their kind (no cassette
// command declares a group yet; this is the mechanism a new one gets).
func TestFlagGroupErrorsAreTyped(t *testing.T) {
	root := &cobra.Command{Use: "cassette", SilenceErrors: true, SilenceUsage: true}
	ran := false
	sub := &cobra.Command{Use: "shard", RunE: func(*cobra.Command, []string) error { ran = true; return nil }}
	sub.Flags().Int("shard", 0, "")
	sub.Flags().Int("total", 0, "")
	sub.MarkFlagsRequiredTogether("shard", "total")
	root.AddCommand(sub)
	typeUsageErrors(root)
	root.SetArgs([]string{"shard", "--shard", "1"})
	root.SetOut(io.Discard)
	var ue *usageError
	if err := root.Execute(); !errors.As(err, &ue) || ue.kind != flagGroup || ran {
		t.Fatalf("error %v (%T), ran %v; want a usageError of kind %q before the command runs", err, err, ran, flagGroup)
	}
	if ce := ue.asError(); ce.NextStep != "cassette shard --help" || ce.Exit() != 2 {
		t.Errorf("printed as %+v", ce)
	}
}

// TestGroupCommandAloneShowsHelp: a group command called alone still shows
// its help and exits 0.
func TestGroupCommandAloneShowsHelp(t *testing.T) {
	for _, args := range [][]string{nil, {"ca"}, {"report"}} {
		var out, errw bytes.Buffer
		if code := Main(args, strings.NewReader(""), &out, &errw); code != 0 || !strings.Contains(out.String(), "Use \"cassette ") {
			t.Errorf("cassette %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out.String(), errw.String())
		}
	}
}
