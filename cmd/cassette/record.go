package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/recorder"
)

type recordOptions struct {
	adapter, scenario string
	baseURL           string
	timeout           time.Duration
	quiet, mutating   bool
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
Ctrl-C stops the command; what it recorded is saved.`,
		Example: `  cassette record --adapter gh --scenario pr-list -- gh pr list --json number
  cassette record --adapter github                  # every scenario in cassette.yaml
  cassette record --adapter github --scenario list-pulls`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return recordRun(cmd.Context(), stdio, g, o, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.adapter, "adapter", "", "adapter declared in cassette.yaml (required)")
	f.StringVar(&o.scenario, "scenario", "", "scenario name (required with a command; selects one declared scenario otherwise)")
	f.StringVar(&o.baseURL, "base-url", "", "override the adapter's real.base_url")
	f.DurationVar(&o.timeout, "timeout", 10*time.Minute, "stop a recorded command that runs longer")
	f.BoolVar(&o.quiet, "quiet", false, "do not echo the command's output")
	f.BoolVar(&o.mutating, "mutating", false, "mark the cassette as changing the real service: refresh does not re-run it")
	_ = cmd.MarkFlagRequired("adapter")
	return cmd
}

func recordRun(ctx context.Context, stdio *IO, g *globals, o *recordOptions, command []string) error {
	p, err := loadProject(g)
	if err != nil {
		return err
	}
	a, ok := p.cfg.Adapters[o.adapter]
	if !ok {
		return &cassettes.Error{Reason: cassettes.EUsage, Message: fmt.Sprintf("--adapter %s: no such adapter in %s", o.adapter, p.cfg.Path),
			Problems: []cassettes.Problem{{File: p.cfg.Path, Line: p.cfg.Line("adapters"), Field: "adapters", Message: "declared: " + strings.Join(p.cfg.Order, ", "), Suggestion: cassettes.Suggest(o.adapter, p.cfg.Order)}},
			NextStep: "cassette record --adapter " + firstOf(p.cfg.Order) + " ..."}
	}
	if missing := missingCredentials(a); len(missing) > 0 {
		return &cassettes.Error{Reason: cassettes.EMissingConfig,
			Message:  fmt.Sprintf("adapter %s needs the credential variables %s, which are not set", o.adapter, strings.Join(missing, ", ")),
			NextStep: "export " + missing[0] + "=...   # then run the same command again"}
	}
	ver, sha := buildInfo()
	meta := recorder.Meta{Adapter: o.adapter, Scenario: o.scenario, Normalizers: a.Normalizers, Recorder: cassettes.Recorder{Version: ver, SHA: sha}}
	redactor := recorder.NewRedactor(recorder.Credentials(a.Real.Credentials, nil))
	dir := filepath.Join(p.cfg.CassetteDir(), o.adapter)
	if len(command) > 0 {
		return recordCommand(ctx, stdio, p, a, o, meta, redactor, dir, command)
	}
	if a.Kind != cassettes.KindHTTP {
		return cassettes.Errorf(cassettes.EUsage, "cassette record --adapter "+o.adapter+" --scenario NAME -- "+strings.Join(append(a.Real.Command, "ARGS..."), " "),
			"adapter %s is a cli adapter: give the command to record after --", o.adapter)
	}
	return recordScenarios(ctx, stdio, p, a, o, meta, redactor, dir)
}

func recordCommand(ctx context.Context, stdio *IO, p *project, a *cassettes.Adapter, o *recordOptions, meta recorder.Meta, redactor *recorder.Redactor, dir string, command []string) error {
	if o.scenario == "" {
		return cassettes.Errorf(cassettes.EUsage, "cassette record --adapter "+o.adapter+" --scenario NAME -- "+strings.Join(command, " "),
			"--scenario is required when recording a command")
	}
	env := recorder.ExpandEnv(a.Real.Env, nil)
	// Ctrl-C reaches the child (same process group); record keeps running
	// to save what the child did before it stopped.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	stdin, err := pipedInput(stdio.In)
	if err != nil {
		return &cassettes.Error{Reason: cassettes.EIO, Message: "cannot read standard input", Err: err, NextStep: "cassette record ... < input-file"}
	}
	opts := recorder.CLIOptions{Meta: meta, Command: command[0], Args: command[1:], Dir: cassettes.ResolvePath(p.cfg.Dir, a.Real.Dir), Env: env, Stdin: stdin,
		Credentials: a.Real.Credentials, Intercept: recorder.ProxyInterceptor(recorder.ProxyConfig{Upstream: cliUpstream(a, o.baseURL)}), Timeout: o.timeout}
	if !o.quiet {
		opts.Stdout, opts.Stderr = stdio.Err, stdio.Err
	}
	c, err := recorder.RecordCLI(ctx, opts)
	if err != nil {
		return err
	}
	// input.args are the arguments after the tool itself: when the command
	// starts with the adapter's real.command, that prefix is the tool, so
	// that verify can run fake.command with the same arguments.
	if n := len(a.Real.Command); n > 0 && len(command) >= n && c.Input != nil && slices.Equal(command[:n], a.Real.Command) {
		c.Input.Command = strings.Join(a.Real.Command, " ")
		c.Input.Args = append([]string(nil), command[n:]...)
	}
	c.Mutating = o.mutating
	if a.Kind == cassettes.KindHTTP {
		c.Kind, c.Input, c.Output = cassettes.KindHTTP, nil, nil
		if len(c.Interactions) == 0 {
			return cassettes.Errorf(cassettes.EUsage, "check that the command honours HTTPS_PROXY; Go programs skip the proxy for loopback hosts",
				"%s made no HTTP(S) request through the proxy; nothing to record for http adapter %s", command[0], o.adapter)
		}
	}
	return saveRecorded(stdio, c, filepath.Join(dir, o.scenario+".yaml"), redactor)
}

func recordScenarios(ctx context.Context, stdio *IO, p *project, a *cassettes.Adapter, o *recordOptions, meta recorder.Meta, redactor *recorder.Redactor, dir string) error {
	var scen []recorder.Scenario
	for _, s := range a.Scenarios {
		if o.scenario == "" || s.Name == o.scenario {
			scen = append(scen, recorder.Scenario{Name: s.Name, Method: s.Method, Path: s.Path, Headers: s.Headers, Body: s.Body, Replayable: s.Replayable, Mutating: s.Mutating})
		}
	}
	if len(scen) == 0 {
		names := make([]string, 0, len(a.Scenarios))
		for _, s := range a.Scenarios {
			names = append(names, s.Name)
		}
		msg := fmt.Sprintf("adapter %s declares no scenario", o.adapter)
		if o.scenario != "" {
			msg = fmt.Sprintf("adapter %s declares no scenario %q (declared: %s)", o.adapter, o.scenario, strings.Join(names, ", "))
		}
		return &cassettes.Error{Reason: cassettes.EUsage, Message: msg,
			Problems: []cassettes.Problem{{File: p.cfg.Path, Line: p.cfg.Line("adapters." + o.adapter), Field: "adapters." + o.adapter + ".scenarios", Message: "add scenarios here", Expected: "- {name: list, method: GET, path: /v1/things}", Suggestion: cassettes.Suggest(o.scenario, names)}},
			NextStep: "cassette record --adapter " + o.adapter + " --scenario NAME -- COMMAND   # or declare scenarios in " + p.cfg.Path}
	}
	base := a.Real.BaseURL
	if o.baseURL != "" {
		base = o.baseURL
	}
	recs, err := recorder.RecordHTTP(ctx, recorder.HTTPOptions{Meta: meta, BaseURL: base, Headers: a.Real.Headers, Credentials: a.Real.Credentials, Scenarios: scen})
	for _, r := range recs {
		if serr := saveRecorded(stdio, r.Cassette, filepath.Join(dir, r.Cassette.Scenario+".yaml"), redactor); serr != nil {
			return serr
		}
	}
	return err
}

// saveRecorded writes a recorded cassette through the scanning, atomic save.
func saveRecorded(stdio *IO, c *cassettes.Cassette, path string, redactor *recorder.Redactor) error {
	verb := "recorded"
	if _, err := os.Stat(path); err == nil {
		verb = "re-recorded"
	}
	c.Path = path
	if err := cassettes.Save(c, redactor.SaveOptions()); err != nil {
		return err
	}
	what := fmt.Sprintf("%d interactions", len(c.Interactions))
	if c.Output != nil {
		what = fmt.Sprintf("exit %d, %d bytes of stdout, %d interactions", c.Output.ExitCode, len(c.Output.Stdout), len(c.Interactions))
	}
	fmt.Fprintf(stdio.Out, "%s %s (%s)\n", verb, path, what)
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

func firstOf(xs []string) string {
	if len(xs) == 0 {
		return "NAME"
	}
	return xs[0]
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

// cliUpstream is the base URL a cli adapter's command reaches its server
// at (--base-url, else real.base_url): its HTTP is then recorded through a
// reverse proxy in front of it. "" (any http adapter, or none declared)
// records through the forward proxy.
func cliUpstream(a *cassettes.Adapter, override string) string {
	if a.Kind != cassettes.KindCLI {
		return ""
	}
	return cmp.Or(override, a.Real.BaseURL)
}
