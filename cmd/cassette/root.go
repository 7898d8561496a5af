package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/report"
)

// version is set at build time (-ldflags "-X main.version=...").
var version = "0.1.0-dev"

// IO is the command's standard streams and whether colour is wanted.
type IO struct {
	In       io.Reader
	Out, Err io.Writer
	Color    bool // stdout is a terminal that wants colour
	ErrColor bool // stderr is
}

// globals are the flags every command shares.
type globals struct {
	config string
	json   bool
}

// Main runs the cassette command line and returns the process exit code. It
// is the one place that turns an error into an exit code and prints it.
func Main(args []string, in io.Reader, out, errw io.Writer) int {
	stdio := &IO{In: in, Out: out, Err: errw, Color: colorWanted(out), ErrColor: colorWanted(errw)}
	g := &globals{}
	root := newRootCmd(stdio, g)
	root.SetArgs(args)
	root.SetIn(in)
	root.SetOut(out)
	root.SetErr(errw)
	err := root.Execute()
	seedsOnly(stdio, root, args) // record and import: the Seeds line of a run without reports
	if err == nil {
		return 0
	}
	var ex exitError
	if errors.As(err, &ex) {
		return int(ex)
	}
	ce := outcome.AsError(err)
	if ue := (*usageError)(nil); errors.As(err, &ue) {
		ce = ue.asError()
		// verify, refresh and report merge write their reports on a bad
		// command line too, like on any other error
		if errors.As(usageReport(stdio, root, args, ce), &ex) {
			return int(ex)
		}
	}
	printError(stdio, g, ce)
	return int(ce.Exit())
}

// seedsOnly prints the Seeds line (specs/002 §3.3.1: every run) of the
// commands that write no reports but end a run of their own, record and
// import, on stderr (record's stdout may be its command's), before the
// error line when they fail. Their seeds are null: nothing is ordered or
// judged at random. --help is no run.
func seedsOnly(stdio *IO, root *cobra.Command, args []string) {
	c, _, err := root.Find(args)
	if err != nil || c == nil || c.Parent() != root || (c.Name() != "record" && c.Name() != "import") {
		return
	}
	if h := c.Flags().Lookup("help"); h != nil && h.Changed {
		return
	}
	_ = report.WriteSeeds(stdio.Err, &report.Run{})
}

// exitError is returned by a command that already printed its outcome and
// only needs a non-zero exit (e.g. verify with drift).
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit %d", int(e)) }

// printError writes the error, every problem on its own line, and the next step.
// What comes from data (a file name, a cassette's text, a service's
// message) can start no line of its own and sends no control character to
// the terminal: the error line is Printable, and a problem's continuation
// lines are indented (outcome.PrintableBlock).
func printError(stdio *IO, g *globals, e *outcome.Error) {
	if g.json {
		_ = json.NewEncoder(stdio.Out).Encode(e.JSON())
	}
	w := stdio.Err
	errIO := &IO{Color: stdio.ErrColor}
	fmt.Fprintf(w, "%s %s\n", paint(errIO, "31;1", "error["+string(e.Reason)+"]:"), outcome.Printable(e.Headline()))
	for _, p := range e.Problems {
		fmt.Fprintf(w, "  %s\n", outcome.PrintableBlock(p.String(), "    "))
	}
	if e.NextStep != "" {
		fmt.Fprintf(w, "%s %s\n", paint(errIO, "1", "next:"), outcome.Printable(e.NextStep))
	}
}

// colorWanted: colour only on a terminal, never with NO_COLOR or TERM=dumb.
// A terminal is a device that answers the terminal ioctl (/dev/null, also a
// character device, does not), a console on Windows.
func colorWanted(w io.Writer) bool {
	if _, ok := os.LookupEnv("NO_COLOR"); ok || os.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	return term.IsTerminal(int(f.Fd()))
}

func paint(stdio *IO, code, s string) string {
	if !stdio.Color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// jsonCommands are the commands whose output --json turns into JSON.
var jsonCommands = map[string]bool{"validate": true, "verify": true, "refresh": true, "diff": true, "version": true, "cases": true, "coverage": true}

func newRootCmd(stdio *IO, g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:   "cassette",
		Short: "Keep test fakes honest: record real services, verify fakes, refresh on a schedule",
		Long: `cassette records real HTTP(S) and CLI interactions into small, reviewable
cassettes (secrets removed before anything touches disk), verifies in CI that
each fake gives the recorded output (normalized, byte for byte), and refreshes
the cassettes on a schedule, opening a pull request when reality drifted.

Exit codes: 0 pass, 1 drift or failure, 2 config or user error, 3 infrastructure.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       versionString(),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.PersistentFlags().StringVar(&g.config, "config", cfgschema.ConfigFile, "path of the config file")
	root.AddCommand(
		newInitCmd(stdio, g),
		newValidateCmd(stdio, g),
		newVersionCmd(stdio, g),
		newRecordCmd(stdio, g),
		newVerifyCmd(stdio, g),
		newRefreshCmd(stdio, g),
		newProxyCmd(stdio, g),
		newCACmd(stdio),
		newReportCmd(stdio, g),
		newBundleCmd(stdio),
		newNormalizeCmd(stdio, g),
		newDiffCmd(stdio, g),
		newCasesCmd(stdio, g), newCheckCmd(stdio, g),
		newLearnCmd(stdio, g),
	)
	root.AddGroup(
		&cobra.Group{ID: "main", Title: "The loop:"},
		&cobra.Group{ID: "inspect", Title: "Set up and inspect:"},
		&cobra.Group{ID: "tools", Title: "Tools:"},
	)
	groups := map[string]string{"record": "main", "learn": "main", "verify": "main", "refresh": "main", "cases": "tools", "check": "tools",
		"init": "inspect", "validate": "inspect", "normalize": "inspect", "diff": "inspect",
		"proxy": "tools", "ca": "tools", "report": "tools", "bundle": "tools", "version": "tools"}
	for _, c := range root.Commands() {
		c.GroupID = groups[c.Name()]
	}
	root.AddCommand(newImportCmd(stdio, g), newExportCmd(stdio, g)) // they set their own group
	root.AddCommand(newObserveCmd(stdio, g), newCoverageCmd(stdio, g))
	root.AddCommand(newGendocsCmd(stdio, g)) // hidden: the docs site's generated pages
	for _, c := range root.Commands() {
		if jsonCommands[c.Name()] { // only where it changes the output: --help offers nothing it ignores
			c.Flags().BoolVar(&g.json, "json", false, "write machine-readable JSON to stdout")
		}
	}
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Example = "  source <(cassette completion bash)\n  cassette completion zsh > \"${fpath[1]}/_cassette\"\n  cassette completion fish > ~/.config/fish/completions/cassette.fish"
			c.GroupID = "tools"
			for _, sh := range c.Commands() {
				sh.Example = "  cassette completion " + sh.Name() + " > cassette-completion   # then load it as the help above says"
			}
		}
	}
	root.SetHelpCommandGroupID("tools")
	root.SetCompletionCommandGroupID("tools")
	root.InitDefaultHelpCmd()
	typeUsageErrors(root)
	return root
}

// buildInfo returns the version and the VCS revision the binary was built from.
func buildInfo() (ver, sha string) {
	bi, _ := debug.ReadBuildInfo()
	return resolveBuild(bi, version, commit)
}

func versionString() string {
	v, sha := buildInfo()
	if sha != "" {
		return "cassette " + v + " (" + sha + ")"
	}
	return "cassette " + v
}
