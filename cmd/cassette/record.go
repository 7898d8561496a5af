package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/outcome"
	"github.com/cassette-dev/cassette/recorder"
)

type recordOptions struct {
	adapter, scenario string
	baseURL           string
	upstreamCA        string
	timeout           time.Duration
	attemptTimeout    time.Duration // --timeout given: bounds each live request of a scenario
	quiet, mutating   bool
	allowStatus       []int
}

func newRecordCmd(stdio *IO, g *globals) *cobra.Command {
	o := &recordOptions{}
	cmd := &cobra.Command{
		Use:   "record --adapter NAME [--scenario NAME] [-- COMMAND [ARGS...]]",
		Short: "Record real interactions into cassettes, with secrets removed before anything is written",
		Long: `record talks to the real side of an adapter with live credentials and writes
what it saw to cassettes/<adapter>/<scenario>.yaml.

With a command after --, record runs it with an intercepting HTTPS proxy and
its CA in the environment, and records its stdin, stdout, stderr, exit code
and every HTTP(S) call it made (a cli adapter), or just those calls (an http
adapter). Without a command, it sends the scenarios an http adapter declares
in cassette.yaml to real.base_url, with real.headers (${VAR} expanded).

Credential headers become [REDACTED], the values of the variables named in
real.credentials are scrubbed from URLs, bodies and output, and a scan for
known key formats refuses to write a cassette that still holds one.

Ctrl-C (SIGINT) or SIGTERM is passed on to the command (killed if it has
not ended 5s later, or at a second one); an interrupted run is not a
recording: nothing is written, exit 3 (E_INTERRUPTED). If record itself is
killed, the command dies with it. Another process recording into the same
cassette (or importing into its adapter) makes record stop at once: exit 2
(E_LOCKED), naming that process.

The command's stdout goes to stdout and its stderr to stderr, once it has
exited and redacted like the cassette; record's own messages go to stderr.
A run during which the real service failed (refused, DNS, TLS, reset,
timeout, 408/429/5xx) is not a recording: nothing is written, exit 3.`,
		Example: `  cassette record --adapter gh --scenario pr-list -- gh pr list --json number
  cassette record --adapter github                  # every scenario in cassette.yaml
  cassette record --adapter github --scenario list-pulls`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("timeout") {
				o.attemptTimeout = o.timeout
			} else {
				o.timeout = 10 * time.Minute
			}
			return recordRun(cmd.Context(), stdio, g, o, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.adapter, "adapter", "", "adapter declared in cassette.yaml (required)")
	f.StringVar(&o.scenario, "scenario", "", "scenario name (required with a command; selects one declared scenario otherwise)")
	f.StringVar(&o.baseURL, "base-url", "", "override the adapter's real.base_url")
	f.StringVar(&o.upstreamCA, "upstream-ca", "", "PEM file of the CA that signed the real service's certificate (replaces real.ca_file)")
	f.DurationVar(&o.timeout, "timeout", 0, "time limit of a recorded command (10m when not given); with declared scenarios, of each live request (30s when not given)")
	f.BoolVar(&o.quiet, "quiet", false, "do not echo the command's output")
	f.IntSliceVar(&o.allowStatus, "allow-status", nil, "a failing status (408, 429, 5xx) the command's calls answer on purpose: record it instead of refusing the recording (repeatable)")
	f.BoolVar(&o.mutating, "mutating", false, "mark the cassette as changing the real service: refresh does not re-run it")
	_ = cmd.MarkFlagRequired("adapter")
	return cmd
}

func recordRun(ctx context.Context, stdio *IO, g *globals, o *recordOptions, command []string) error {
	if o.scenario != "" && !cassettes.ValidNewName(o.scenario) {
		// The same command with the name in the strict form.
		next := commandWithConfig(g.config, "cassette", "record", "--help")
		if strict := cassettes.StrictName(o.scenario); strict != "" {
			named := *o
			named.scenario = strict
			next = (&project{cfg: &cassettes.Config{Path: g.config}}).recordAgain(&named, command)
		}
		return &outcome.Error{Reason: outcome.EUsage, Message: fmt.Sprintf("--scenario %q is not a valid scenario name", o.scenario),
			Problems: []outcome.Problem{{Field: "--scenario", Message: "not a valid name", Expected: cassettes.NameRule}},
			NextStep: next}
	}
	p, err := loadProject(g)
	if err != nil {
		return err
	}
	a, ok := p.cfg.Adapters[o.adapter]
	if !ok {
		return &outcome.Error{Reason: outcome.EUsage, Message: fmt.Sprintf("--adapter %s: no such adapter in %s", o.adapter, p.cfg.Path),
			Problems: []outcome.Problem{{File: p.cfg.Path, Line: p.cfg.Line("adapters"), Field: "adapters", Message: "declared: " + strings.Join(p.cfg.Order, ", "), Suggestion: cassettes.Suggest(o.adapter, p.cfg.Order)}},
			NextStep: p.recordOtherAdapter(o, command)}
	}
	if missing := missingCredentials(a); len(missing) > 0 {
		return &outcome.Error{Reason: outcome.EMissingConfig,
			Message:  fmt.Sprintf("adapter %s needs the credential variables %s, which are not set: export them, then run the same command again", o.adapter, strings.Join(missing, ", ")),
			NextStep: p.recordAgain(o, command)}
	}
	ver, sha := buildInfo()
	s := recorder.NewSession(p.Project, o.adapter, recorder.SessionOptions{Scenario: o.scenario, Recorder: cassettes.Recorder{Version: ver, SHA: sha}, UpstreamCA: o.upstreamCA})
	s.Step, s.Log = p.command, stdio.Err
	defer s.Close()
	w, err := s.Dial()
	if w != "" {
		fmt.Fprintln(stdio.Err, w)
	}
	if err != nil {
		return err
	}
	s.CatchInterrupts()
	if len(command) > 0 {
		return recordCommand(ctx, stdio, p, s, o, command)
	}
	ctx, cancel := s.Interrupts.Context(ctx)
	defer cancel()
	done, err := rerecordExisting(ctx, stdio, p, s, o)
	if !done {
		if a.Kind != cassettes.KindHTTP {
			return outcome.Errorf(outcome.EUsage, p.recordFirst(o.adapter),
				"adapter %s is a cli adapter: give the command to record after --", o.adapter)
		}
		err = recordScenarios(ctx, stdio, p, s, o)
	}
	if sig := s.Interrupted(); sig != nil {
		return recorder.InterruptedError(sig, "the requests in flight were stopped", p.recordAgain(o, nil))
	}
	return err
}

// recordCommand records the command given after --.
func recordCommand(ctx context.Context, stdio *IO, p *project, s *recorder.Session, o *recordOptions, command []string) error {
	if o.scenario == "" {
		named := *o
		named.scenario = cmp.Or(cassettes.StrictName(filepath.Base(command[0])), "first")
		return outcome.Errorf(outcome.EUsage, p.recordAgain(&named, command),
			"--scenario is required when recording a command")
	}
	path := s.Path(o.scenario)
	unlock, err := s.Lock(p.recordAgain(o, command), path)
	if err != nil {
		return err
	}
	defer unlock()
	stdin, err := pipedInput(stdio.In)
	if err != nil {
		return &outcome.Error{Reason: outcome.EIO, Message: "cannot read standard input", Err: err, NextStep: p.recordAgain(o, command)}
	}
	run := recorder.CommandRun{Command: command, Stdin: stdin, BaseURL: o.baseURL, AllowStatus: o.allowStatus, Timeout: o.timeout, Mutating: o.mutating,
		Again: p.recordAgain(o, command)}
	if !o.quiet {
		run.Stdout, run.Stderr = stdio.Out, stdio.Err
	}
	c, err := s.RecordCommand(ctx, run)
	if err != nil {
		return err
	}
	return saveRecorded(stdio, s, c, path)
}

// recordScenarios records the scenarios the adapter declares (the one
// --scenario names, or all).
func recordScenarios(ctx context.Context, stdio *IO, p *project, s *recorder.Session, o *recordOptions) error {
	a := s.Adapter
	var scen []recorder.Scenario
	for _, sc := range a.Scenarios {
		if o.scenario == "" || sc.Name == o.scenario {
			scen = append(scen, recorder.Scenario{Name: sc.Name, Method: sc.Method, Path: sc.Path, Headers: sc.Headers, Body: sc.Body, Replayable: sc.Replayable, Mutating: sc.Mutating, Status: sc.Status})
		}
	}
	if len(scen) == 0 {
		return noScenario(p, s, o)
	}
	paths := make([]string, len(scen))
	for i, sc := range scen {
		paths[i] = s.Path(sc.Name)
	}
	unlock, err := s.Lock(p.recordAgain(o, nil), paths...)
	if err != nil {
		return err
	}
	defer unlock()
	recs, err := s.RecordScenarios(ctx, recorder.ScenariosRun{Scenarios: scen, BaseURL: o.baseURL, AttemptTimeout: o.attemptTimeout, AgainArgs: againArgs(o)})
	if s.Interrupted() != nil {
		return nil // interrupted: nothing is saved (recordRun says so)
	}
	for _, r := range recs {
		if serr := saveRecorded(stdio, s, r.Cassette, s.Path(r.Cassette.Scenario)); serr != nil {
			return serr
		}
	}
	return err
}

// noScenario is the error of an adapter that declares no scenario (or not
// the one --scenario names) and holds no cassette of it to record again.
func noScenario(p *project, s *recorder.Session, o *recordOptions) error {
	a := s.Adapter
	names := make([]string, 0, len(a.Scenarios))
	for _, sc := range a.Scenarios {
		names = append(names, sc.Name)
	}
	msg := fmt.Sprintf("adapter %s declares no scenario", o.adapter)
	if o.scenario != "" {
		msg = fmt.Sprintf("adapter %s declares no scenario %q and %s holds no cassette to record again", o.adapter, o.scenario, s.Path(o.scenario))
		if len(names) > 0 {
			msg += " (declared: " + strings.Join(names, ", ") + ")"
		}
	}
	return &outcome.Error{Reason: outcome.EUsage, Message: msg,
		Problems: []outcome.Problem{{File: p.cfg.Path, Line: p.cfg.Line("adapters." + o.adapter + ".scenarios"), Field: "adapters." + o.adapter + ".scenarios", Message: "add scenarios here", Expected: "- {name: list, method: GET, path: /v1/things}", Suggestion: cassettes.Suggest(o.scenario, names)}},
		NextStep: p.recordDeclared(o.adapter, o.scenario, names)}
}

// rerecordExisting records cassettes/<adapter>/<scenario>.yaml again from
// its own input, as refresh does, when no command is given and the adapter
// declares no such scenario (or declares it without a real.base_url): the
// command every replay miss prints works for a cassette recorded with a
// command, through the proxy, or with --base-url too.
func rerecordExisting(ctx context.Context, stdio *IO, p *project, s *recorder.Session, o *recordOptions) (bool, error) {
	a := s.Adapter
	declared := a.Kind == cassettes.KindHTTP && slices.ContainsFunc(a.Scenarios, func(sc cassettes.Scenario) bool { return sc.Name == o.scenario })
	if o.scenario == "" || (declared && cmp.Or(o.baseURL, a.Real.BaseURL) != "") {
		return false, nil // a declared scenario is recorded from cassette.yaml when it knows where
	}
	path := s.Path(o.scenario)
	if _, err := os.Stat(path); err != nil {
		return false, nil
	}
	unlock, err := s.Lock(p.recordAgain(o, nil), path)
	if err != nil {
		return true, err
	}
	defer unlock()
	old, err := cassettes.Load(path, cassettes.LoadOptions{Config: p.cfg})
	if err != nil || (old.Kind == cassettes.KindCLI && old.Input == nil) || (old.Kind != cassettes.KindCLI && len(old.Interactions) == 0) {
		return false, nil
	}
	rec, err := s.RecordAgain(ctx, old, recorder.AgainRun{BaseURL: o.baseURL, Again: p.command("cassette", "record", "--adapter", o.adapter, "--scenario", o.scenario),
		AgainArgs: againArgs(o), AttemptTimeout: o.attemptTimeout, CLITimeout: o.timeout}) // --timeout bounds these too
	if s.Interrupted() != nil {
		return true, nil // interrupted: nothing is saved (recordRun says so)
	}
	if err != nil {
		return true, err
	}
	fmt.Fprintf(stdio.Err, "recording %s again from its own input\n", path)
	return true, saveRecorded(stdio, s, rec.Cassette, path)
}

// saveRecorded saves a recorded cassette at path (Session.Save) and says
// so.
func saveRecorded(stdio *IO, s *recorder.Session, c *cassettes.Cassette, path string) error {
	verb, err := s.Save(c, path)
	if err != nil {
		return err
	}
	what := fmt.Sprintf("%d interactions", len(c.Interactions))
	if c.Output != nil {
		what = fmt.Sprintf("exit %d, %d bytes of stdout, %d interactions", c.Output.ExitCode, len(c.Output.Stdout), len(c.Interactions))
	}
	fmt.Fprintf(stdio.Err, "%s %s (%s)\n", verb, path, what)
	return nil
}

func missingCredentials(a *cassettes.Adapter) []string {
	var out []string
	for _, name := range a.Real.Credentials {
		if v, ok := os.LookupEnv(name); !ok || v == "" {
			out = append(out, name)
		}
	}
	return out
}

// pipedInput reads standard input when it is a pipe or a file (what the
// recorded command is fed, and what the cassette keeps as input.stdin); a
// terminal or /dev/null gives nothing.
func pipedInput(in io.Reader) ([]byte, error) {
	f, ok := in.(*os.File)
	if !ok {
		if in == nil {
			return nil, nil
		}
		return io.ReadAll(in)
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice != 0 {
		return nil, nil
	}
	return io.ReadAll(f)
}

// againArgs are the flags of this run that a next step must repeat.
func againArgs(o *recordOptions) string {
	var b strings.Builder
	if o.baseURL != "" {
		b.WriteString(" --base-url " + outcome.ShellJoin([]string{o.baseURL}))
	}
	if o.upstreamCA != "" {
		b.WriteString(" --upstream-ca " + outcome.ShellJoin([]string{o.upstreamCA}))
	}
	if o.attemptTimeout > 0 {
		b.WriteString(" --timeout " + o.attemptTimeout.String())
	}
	return b.String()
}
