package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/recorder"
	"github.com/cassette-dev/cassette/redact"
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
	f.IntSliceVar(&o.allowStatus, "allow-status", nil, "a failing status (401, 403, 408, 429, 5xx) the command's calls answer on purpose: record it instead of refusing the recording (repeatable)")
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
		return &cassettes.Error{Reason: cassettes.EUsage, Message: fmt.Sprintf("--scenario %q is not a valid scenario name", o.scenario),
			Problems: []cassettes.Problem{{Field: "--scenario", Message: "not a valid name", Expected: cassettes.NameRule}},
			NextStep: next}
	}
	p, err := loadProject(g)
	if err != nil {
		return err
	}
	a, ok := p.cfg.Adapters[o.adapter]
	if !ok {
		return &cassettes.Error{Reason: cassettes.EUsage, Message: fmt.Sprintf("--adapter %s: no such adapter in %s", o.adapter, p.cfg.Path),
			Problems: []cassettes.Problem{{File: p.cfg.Path, Line: p.cfg.Line("adapters"), Field: "adapters", Message: "declared: " + strings.Join(p.cfg.Order, ", "), Suggestion: cassettes.Suggest(o.adapter, p.cfg.Order)}},
			NextStep: p.recordOtherAdapter(o, command)}
	}
	if missing := missingCredentials(a); len(missing) > 0 {
		return &cassettes.Error{Reason: cassettes.EMissingConfig,
			Message:  fmt.Sprintf("adapter %s needs the credential variables %s, which are not set: export them, then run the same command again", o.adapter, strings.Join(missing, ", ")),
			NextStep: p.recordAgain(o, command)}
	}
	ver, sha := buildInfo()
	meta := recorder.Meta{Adapter: o.adapter, Scenario: o.scenario, Normalizers: a.Normalizers, Recorder: cassettes.Recorder{Version: ver, SHA: sha}}
	redactor := redact.New(p.cfg.Redaction(), recorder.Credentials(a.Real.Credentials, nil))
	dir := filepath.Join(p.cfg.CassetteDir(), o.adapter)
	up := recorder.UpstreamOf(p.cfg.Dir, o.adapter, a, o.upstreamCA, nil)
	if w := up.Warning(); w != "" {
		fmt.Fprintln(stdio.Err, w)
	}
	tr, err := up.Transport()
	if err != nil {
		return err
	}
	defer tr.CloseIdleConnections()
	ints := catchInterrupts()
	defer ints.release()
	if len(command) > 0 {
		return recordCommand(ctx, stdio, p, a, o, meta, redactor, dir, command, tr, ints)
	}
	ctx, cancel := ints.context(ctx)
	defer cancel()
	done, err := rerecordExisting(ctx, stdio, p, a, o, meta, redactor, dir, tr, ints)
	if !done {
		if a.Kind != cassettes.KindHTTP {
			return cassettes.Errorf(cassettes.EUsage, p.recordFirst(o.adapter),
				"adapter %s is a cli adapter: give the command to record after --", o.adapter)
		}
		err = recordScenarios(ctx, stdio, p, a, o, meta, redactor, dir, tr, ints)
	}
	if sig := ints.signal(); sig != nil {
		return interruptedError(sig, "the requests in flight were stopped", p.recordAgain(o, nil))
	}
	return err
}

// lockCassettes takes the write lock of each cassette record will write
// (see cassettes.LockCassette): another recorder of one of them, or an
// import of the adapter, is E_LOCKED before anything runs.
func lockCassettes(p *project, o *recordOptions, dir string, command []string, paths ...string) (func(), error) {
	var held []*cassettes.Lock
	release := func() {
		for _, l := range held {
			l.Unlock()
		}
	}
	for _, path := range paths {
		l, err := cassettes.LockCassette(p.cfg.Dir, dir, path)
		if err != nil {
			release()
			if ce, ok := err.(*cassettes.Error); ok && ce.Reason == cassettes.ELocked {
				ce.NextStep = p.recordAgain(o, command)
			}
			return nil, err
		}
		held = append(held, l)
	}
	return release, nil
}

func recordCommand(ctx context.Context, stdio *IO, p *project, a *cassettes.Adapter, o *recordOptions, meta recorder.Meta, redactor *redact.Redactor, dir string, command []string, tr *http.Transport, ints *interrupts) error {
	if o.scenario == "" {
		named := *o
		named.scenario = cmp.Or(cassettes.StrictName(filepath.Base(command[0])), "first")
		return cassettes.Errorf(cassettes.EUsage, p.recordAgain(&named, command),
			"--scenario is required when recording a command")
	}
	unlock, err := lockCassettes(p, o, dir, command, filepath.Join(dir, o.scenario+".yaml"))
	if err != nil {
		return err
	}
	defer unlock()
	env := recorder.ExpandEnv(a.Real.Env, nil)
	stdin, err := pipedInput(stdio.In)
	if err != nil {
		return &cassettes.Error{Reason: cassettes.EIO, Message: "cannot read standard input", Err: err, NextStep: p.recordAgain(o, command)}
	}
	opts := recorder.CLIOptions{Meta: meta, Command: command[0], Args: command[1:], Dir: cassettes.ResolvePath(p.cfg.Dir, a.Real.Dir), Env: env, Stdin: stdin,
		Credentials: a.Real.Credentials, Rules: p.cfg.Redaction(), Intercept: recorder.ProxyInterceptor(recorder.ProxyConfig{Upstream: cliUpstream(a, o.baseURL), Transport: tr, AllowStatus: o.allowStatus}), Timeout: o.timeout,
		Signals: ints.ch, Again: p.recordAgain(o, command)}
	if opts.Faults, err = recorder.FaultsOf(command[0], a); err != nil {
		return err
	}
	opts.Log = stdio.Err
	if a.Kind == cassettes.KindHTTP { // its cassette holds the calls to its host only (SplitHosts below)
		opts.BaseURL = cmp.Or(o.baseURL, a.Real.BaseURL)
	}
	if !o.quiet {
		opts.Stdout, opts.Stderr = stdio.Out, stdio.Err
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
	} else if a.Kind == cassettes.KindCLI {
		fmt.Fprintf(stdio.Err, "note: this command does not start with real.command of adapter %s (%q): refresh and `cassette record` without a command will refuse to record the cassette again (they run only real.command), and `cassette validate` refuses it\n",
			o.adapter, strings.Join(a.Real.Command, " "))
	}
	c.Mutating = o.mutating
	if a.Kind == cassettes.KindHTTP {
		c.Kind, c.Input, c.Output = cassettes.KindHTTP, nil, nil
		if len(c.Interactions) == 0 {
			next := p.command("cassette", "proxy", "--help")
			if up := cmp.Or(o.baseURL, a.Real.BaseURL); up != "" {
				next = p.command("cassette", "proxy", "--mode", "record", "--upstream", up, "--cassette", filepath.Join(dir, o.scenario+".yaml"))
			}
			return cassettes.Errorf(cassettes.EUsage, next,
				"%s made no HTTP(S) request through the proxy; nothing to record for http adapter %s (a client that ignores HTTPS_PROXY, as Go programs do for loopback hosts, can be pointed at a recording proxy in front of the service instead)", command[0], o.adapter)
		}
		kept, host, others := recorder.SplitHosts(c.Interactions, cmp.Or(o.baseURL, a.Real.BaseURL)) // --base-url overrides real.base_url
		if len(others) > 0 {
			fmt.Fprintf(stdio.Err, "not recorded in %s/%s: calls to hosts other than %s, the adapter's (%s); record each service under its own adapter\n", o.adapter, o.scenario, host, hostCounts(others))
		}
		if len(kept) == 0 {
			return &cassettes.Error{Reason: cassettes.EUsage,
				Message:  fmt.Sprintf("%s made no HTTP(S) request to %s, the host of adapter %s; it called %s (fix real.base_url of adapter %s in %s, or call its host)", command[0], host, o.adapter, hostCounts(others), o.adapter, p.cfg.Path),
				Problems: []cassettes.Problem{{File: p.cfg.Path, Line: p.cfg.Line("adapters." + o.adapter + ".real.base_url"), Field: "adapters." + o.adapter + ".real.base_url", Message: "the host the adapter's cassettes hold calls to", Expected: "the service the command calls"}},
				NextStep: p.command("cassette", "validate")}
		}
		c.Interactions = kept
	}
	return saveRecorded(stdio, c, filepath.Join(dir, o.scenario+".yaml"), p.cfg.Dir, redactor)
}

func recordScenarios(ctx context.Context, stdio *IO, p *project, a *cassettes.Adapter, o *recordOptions, meta recorder.Meta, redactor *redact.Redactor, dir string, tr *http.Transport, ints *interrupts) error {
	var scen []recorder.Scenario
	for _, s := range a.Scenarios {
		if o.scenario == "" || s.Name == o.scenario {
			scen = append(scen, recorder.Scenario{Name: s.Name, Method: s.Method, Path: s.Path, Headers: s.Headers, Body: s.Body, Replayable: s.Replayable, Mutating: s.Mutating, Status: s.Status})
		}
	}
	if len(scen) == 0 {
		names := make([]string, 0, len(a.Scenarios))
		for _, s := range a.Scenarios {
			names = append(names, s.Name)
		}
		msg := fmt.Sprintf("adapter %s declares no scenario", o.adapter)
		if o.scenario != "" {
			msg = fmt.Sprintf("adapter %s declares no scenario %q and %s holds no cassette to record again", o.adapter, o.scenario, filepath.Join(dir, o.scenario+".yaml"))
			if len(names) > 0 {
				msg += " (declared: " + strings.Join(names, ", ") + ")"
			}
		}
		return &cassettes.Error{Reason: cassettes.EUsage, Message: msg,
			Problems: []cassettes.Problem{{File: p.cfg.Path, Line: p.cfg.Line("adapters." + o.adapter + ".scenarios"), Field: "adapters." + o.adapter + ".scenarios", Message: "add scenarios here", Expected: "- {name: list, method: GET, path: /v1/things}", Suggestion: cassettes.Suggest(o.scenario, names)}},
			NextStep: p.recordDeclared(o.adapter, o.scenario, names)}
	}
	paths := make([]string, len(scen))
	for i, s := range scen {
		paths[i] = filepath.Join(dir, s.Name+".yaml")
	}
	unlock, err := lockCassettes(p, o, dir, nil, paths...)
	if err != nil {
		return err
	}
	defer unlock()
	base := a.Real.BaseURL
	if o.baseURL != "" {
		base = o.baseURL
	}
	recs, err := recorder.RecordHTTP(ctx, recorder.HTTPOptions{Meta: meta, BaseURL: base, Headers: a.Real.Headers, Credentials: a.Real.Credentials, Rules: p.cfg.Redaction(), Scenarios: scen, Transport: tr,
		AttemptTimeout: o.attemptTimeout, AgainArgs: againArgs(o)})
	if ints.signal() != nil {
		return nil // interrupted: nothing is saved (recordRun says so)
	}
	for _, r := range recs {
		if serr := saveRecorded(stdio, r.Cassette, filepath.Join(dir, r.Cassette.Scenario+".yaml"), p.cfg.Dir, redactor); serr != nil {
			return serr
		}
	}
	return err
}

// rerecordExisting records cassettes/<adapter>/<scenario>.yaml again from
// its own input, as refresh does, when no command is given and the adapter
// declares no such scenario (or declares it without a real.base_url): the
// command every replay miss prints works for a cassette recorded with a
// command, through the proxy, or with --base-url too.
func rerecordExisting(ctx context.Context, stdio *IO, p *project, a *cassettes.Adapter, o *recordOptions, meta recorder.Meta, redactor *redact.Redactor, dir string, tr *http.Transport, ints *interrupts) (bool, error) {
	declared := a.Kind == cassettes.KindHTTP && slices.ContainsFunc(a.Scenarios, func(s cassettes.Scenario) bool { return s.Name == o.scenario })
	if o.scenario == "" || (declared && cmp.Or(o.baseURL, a.Real.BaseURL) != "") {
		return false, nil // a declared scenario is recorded from cassette.yaml when it knows where
	}
	path := filepath.Join(dir, o.scenario+".yaml")
	if _, err := os.Stat(path); err != nil {
		return false, nil
	}
	unlock, err := lockCassettes(p, o, dir, nil, path)
	if err != nil {
		return true, err
	}
	defer unlock()
	old, err := cassettes.Load(path, cassettes.LoadOptions{Config: p.cfg})
	if err != nil || (old.Kind == cassettes.KindCLI && old.Input == nil) || (old.Kind != cassettes.KindCLI && len(old.Interactions) == 0) {
		return false, nil
	}
	if o.baseURL != "" {
		ac := *a
		ac.Real.BaseURL = o.baseURL
		a = &ac
	}
	again := p.command("cassette", "record", "--adapter", o.adapter, "--scenario", o.scenario)
	live := recorder.Live{Config: p.cfg, Recorder: meta.Recorder, Transport: tr, Again: again + againArgs(o), AgainArgs: againArgs(o), UpstreamCA: o.upstreamCA,
		AttemptTimeout: o.attemptTimeout, CLITimeout: o.timeout} // --timeout bounds these too
	rec, err := live.Rerecord(ctx, o.adapter, a, old)
	if ints.signal() != nil {
		return true, nil // interrupted: nothing is saved (recordRun says so)
	}
	if err != nil {
		return true, err
	}
	fmt.Fprintf(stdio.Err, "recording %s again from its own input\n", path)
	return true, saveRecorded(stdio, rec.Cassette, path, p.cfg.Dir, redactor)
}

// saveRecorded writes a recorded cassette at path through the scanning,
// atomic save, which keeps it inside the project root.
func saveRecorded(stdio *IO, c *cassettes.Cassette, path, root string, redactor *redact.Redactor) error {
	verb := "recorded"
	if _, err := os.Stat(path); err == nil {
		verb = "re-recorded"
	}
	c.Path = path
	opts := cassettes.SaveOptionsFor(redactor)
	opts.Root = root
	if err := cassettes.Save(c, opts); err != nil {
		return err
	}
	what := fmt.Sprintf("%d interactions", len(c.Interactions))
	if c.Output != nil {
		what = fmt.Sprintf("exit %d, %d bytes of stdout, %d interactions", c.Output.ExitCode, len(c.Output.Stdout), len(c.Interactions))
	}
	fmt.Fprintf(stdio.Err, "%s %s (%s)\n", verb, path, what)
	return nil
}

// hostCounts renders {host: n} as "a.example.com (2 calls), b.example.com (1 call)".
func hostCounts(m map[string]int) string {
	var parts []string
	for _, h := range slices.Sorted(maps.Keys(m)) {
		unit := "calls"
		if m[h] == 1 {
			unit = "call"
		}
		parts = append(parts, fmt.Sprintf("%s (%d %s)", h, m[h], unit))
	}
	return strings.Join(parts, ", ")
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

// againArgs are the flags of this run that a next step must repeat.
func againArgs(o *recordOptions) string {
	var b strings.Builder
	if o.baseURL != "" {
		b.WriteString(" --base-url " + cassettes.ShellJoin([]string{o.baseURL}))
	}
	if o.upstreamCA != "" {
		b.WriteString(" --upstream-ca " + cassettes.ShellJoin([]string{o.upstreamCA}))
	}
	if o.attemptTimeout > 0 {
		b.WriteString(" --timeout " + o.attemptTimeout.String())
	}
	return b.String()
}
