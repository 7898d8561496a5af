package recording

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/infra"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/proxy"
	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// Interceptor captures the HTTP(S) calls a child process makes: the
// recording proxy, started and ready.
type Interceptor interface {
	// Env returns the variables that route a child through the interceptor
	// and make it trust its CA (HTTPS_PROXY, SSL_CERT_FILE, …).
	Env() []string
	// Interactions returns what was captured so far, in arrival order,
	// already redacted by the Redactor the interceptor was started with.
	Interactions() []cassettes.Interaction
	// Failures returns the requests the interceptor could not complete
	// against the real service (refused, DNS, TLS, reset, timeout, or a
	// status the live-call policy gives up on): a run with any is not a
	// valid recording.
	Failures() []proxy.UpstreamFailure
	// Incomplete returns the responses left out of the recording because
	// they did not reach their end (the child stopped reading them).
	Incomplete() []proxy.Incomplete
	// Close stops the interceptor.
	Close() error
}

// InterceptFunc starts an Interceptor whose every captured interaction goes
// through red (the recording's session: what it learns from the captured
// calls is scrubbed from the CLI's output too) before it is stored.
type InterceptFunc func(ctx context.Context, red *redact.Redactor) (Interceptor, error)

// CLIOptions says what RecordCLI runs and how.
type CLIOptions struct {
	Meta
	Command string   // program to run (looked up in PATH)
	Args    []string // its arguments
	Stdin   []byte   // fed to the child's standard input
	Dir     string   // working directory; "" is the current one
	// Env are variables set for the child on top of the inherited
	// environment (the adapter's real.env, expanded by ExpandEnv: the
	// recording proxy's address is filled in here). Their names, never
	// their values, are recorded in input.env.
	Env map[string]string
	// Credentials are the names of the credential variables the child needs
	// (the adapter's real.credentials). Their values are scrubbed from
	// everything recorded; their names are recorded in input.env.
	Credentials []string
	// Withheld are the credential variables the child does not get (other
	// adapters' and the forge's: RecordingEnviron leaves them out): their
	// values are scrubbed from everything recorded as Credentials' are, and
	// one written in the command line or stdin is refused.
	Withheld []string
	// Rules are the project's credential names (cfgschema.Config.Redaction:
	// cassette.yaml's redact.names); nil is the built-in names.
	Rules *redact.Rules
	// LookupEnv reads the environment (credential values, the inherited
	// environment); nil is os.LookupEnv with os.Environ.
	LookupEnv func(string) (string, bool)
	// Environ is the environment the child inherits; nil is os.Environ().
	Environ []string
	// Intercept starts the recording proxy for the child's HTTP(S) calls.
	// nil records the process only (stdin, stdout, stderr, exit code).
	Intercept InterceptFunc
	// BaseURL is the http adapter's real.base_url (or --base-url): a call
	// the child makes to another host is not part of the recording, and its
	// failure (an update check without DNS) is a note on Log, not a refusal.
	// "" counts every call as the adapter's.
	BaseURL string
	// Timeout bounds the child's run time; 0 is no limit beyond ctx. The
	// child is killed when it is reached, and RecordCLI returns E_TIMEOUT.
	Timeout time.Duration
	// Signals are the SIGINT and SIGTERM the recording process receives
	// (signal.Notify): each is passed on to the child's process group, and
	// the run, once the child has ended, is E_INTERRUPTED: nothing of it
	// is a recording. nil passes none on.
	Signals <-chan os.Signal
	// InterruptGrace is how long the child may take to end after a signal
	// passed on to it before it is killed; 0 is DefaultInterruptGrace.
	InterruptGrace time.Duration
	// Stdout and Stderr, when set, receive the child's output once it has
	// exited, redacted as the cassette is (declared values, known key
	// formats, and every value learned during the run): what a CI log keeps
	// holds no credential. It is written whatever the outcome, a failed
	// recording included, so that the user sees what the command said.
	Stdout, Stderr io.Writer
	// Log receives what the recorder has to say beside the child's output
	// (a response left out because the child did not read it to its end);
	// nil discards.
	Log io.Writer
	// Again is the command that records this cassette again, for next
	// steps; "" is `cassette record --adapter A --scenario S -- COMMAND...`.
	Again string
	// Faults are the fault signatures of the command (see infra.FaultsFor):
	// a run they match is that failure, not a recording. nil reads none.
	Faults *infra.CLIFaults
	// Previous is the committed output being recorded again (RerecordCLI
	// sets it): a failure it recorded too is expected, and a run that went
	// from its exit 0 to a failure with nothing on stdout is suspect.
	Previous *cassettes.Output
	// RealCommand is the adapter's real.command, for RerecordCLI: a
	// cassette is re-recorded by running it followed by the cassette's
	// input.args, and only when its input.command is this command (as
	// `cassette record` writes it when the recorded command starts with
	// real.command).
	RealCommand []string
}

// RecordCLI runs the real command once, with the recording proxy and its CA
// in the environment when Intercept is set, and returns a `kind: cli`
// cassette holding its input (command, arguments, stdin, the names of the
// variables it needs), its output (stdout, stderr, exit code) and the HTTP(S)
// interactions it made, all redacted. A non-zero exit status is recorded, not
// an error. It fails with E_USAGE when the command cannot be started,
// E_TIMEOUT when it overruns, and E_SECRET_LEAK when redaction left a secret
// in the cassette or when the command line or standard input itself holds
// a credential value (a declared one or one under a credential name,
// checked before the command runs, or one the command sent in a
// credential header; see argsLeak): the next step is the same command
// referring to the variable instead.
//
// Besides the declared credentials, the recording learns the values of the
// credential-named variables of the child's environment and the values the
// command line passes by name, and scrubs them from the output and the
// HTTP calls (redact.Redactor.LearnEnv, LearnArgs).
func RecordCLI(ctx context.Context, opts CLIOptions) (*cassettes.Cassette, error) {
	if opts.Command == "" {
		return nil, outcome.Errorf(outcome.EUsage, outcome.Command("cassette", "record", "--help"),
			"no command to record")
	}
	red := redact.New(opts.Rules, Credentials(append(slices.Clone(opts.Credentials), opts.Withheld...), opts.LookupEnv))
	red.LearnEnv(opts.childEnv(nil))
	red.LearnArgs(append([]string{opts.Command}, opts.Args...))
	if err := argsLeak(red, opts); err != nil {
		return nil, err
	}
	c := opts.Meta.NewCassette(cfgschema.KindCLI, opts.Scenario)
	c.Input = opts.input()
	icpt, err := opts.intercept(ctx, red)
	if err != nil {
		return nil, err
	}
	var icptEnv []string
	if icpt != nil {
		defer icpt.Close()
		icptEnv = icpt.Env()
	}
	run := opts.run(ctx, opts.childEnv(icptEnv))
	var fails []proxy.UpstreamFailure
	if icpt != nil {
		c.Interactions, fails = opts.captured(icpt, red)
	}
	// What the output holds under a credential name (an access_token it
	// printed) is learned before any of it is shown: the echo and the
	// fault messages below print it redacted, as the cassette will be.
	red.LearnBody("", run.stdout)
	red.LearnBody("", run.stderr)
	echo(opts.Stdout, red, run.stdout)
	echo(opts.Stderr, red, run.stderr)
	if len(run.left) > 0 && opts.Log != nil {
		fmt.Fprintf(opts.Log, "note: %s left %s running in its process group when it exited; record stopped it (a process meant to outlive the command leaves the group: setsid)\n",
			outcome.Printable(opts.Command), outcome.Printable(red.String(strings.Join(run.left, ", "))))
	}
	exit, err := run.exitCode(ctx, opts, red)
	if err != nil {
		return nil, err
	}
	for i := range fails { // with every value learned by the end of the run
		fails[i].URL, fails[i].Detail = red.String(fails[i].URL), red.String(fails[i].Detail)
	}
	fails, elsewhere := splitFailures(fails, opts.BaseURL)
	if len(fails) > 0 {
		return nil, FailureError(fails, again(opts))
	}
	noteElsewhere(opts.Log, elsewhere, opts.Adapter, opts.BaseURL)
	if err := opts.fault(exit, run.stdout, run.stderr, red); err != nil {
		return nil, err
	}
	c.Output = &cassettes.Output{Stdout: cassettes.Body(run.stdout), Stderr: cassettes.Body(run.stderr), ExitCode: exit}
	// A credential the command sent by name (a bearer token, a cookie) that
	// is also written in its arguments would be redacted out of input.args,
	// and the cassette could not be run again: refuse, as for a declared one.
	if err := argsLeak(red, opts); err != nil {
		return nil, err
	}
	c, err = Finish(c, red)
	if ce, ok := err.(*outcome.Error); ok && ce.NextStep == "" {
		ce.NextStep = again(opts)
	}
	return c, err
}

// input is what the cassette records of the command: its line, its stdin,
// and the names (never the values) of the variables it needs.
func (opts CLIOptions) input() *cassettes.Input {
	names := append([]string(nil), opts.Credentials...)
	for k := range opts.Env {
		names = append(names, k)
	}
	return &cassettes.Input{
		Command: opts.Command,
		Args:    append([]string(nil), opts.Args...),
		Stdin:   cassettes.Body(opts.Stdin),
		Env:     sortedUnique(names),
	}
}

// intercept starts the recording proxy when opts.Intercept is set (nil,
// nil otherwise). A real side that is not there is that error; any other
// failure to start is E_IO.
func (opts CLIOptions) intercept(ctx context.Context, red *redact.Redactor) (Interceptor, error) {
	if opts.Intercept == nil {
		return nil, nil
	}
	icpt, err := opts.Intercept(ctx, red)
	var ce *outcome.Error
	switch {
	case errors.As(err, &ce) && slices.Contains([]outcome.Reason{outcome.ERealUnreachable, outcome.ERealDNS, outcome.ETimeout}, ce.Reason):
		// The real side is not there (refused, DNS): nothing to run the
		// command against.
		if ce.NextStep == "" {
			ce.NextStep = again(opts)
		}
		return nil, ce
	case err != nil:
		return nil, &outcome.Error{Reason: outcome.EIO, Message: "cannot start the recording proxy",
			Err: redactedError(red, err), NextStep: outcome.Command("cassette", "ca", "init")}
	}
	return icpt, nil
}

// childEnv is the child's environment: the inherited one, then real.env
// (its proxy variables filled in), then the interceptor's variables.
func (opts CLIOptions) childEnv(icptEnv []string) []string {
	env := opts.Environ
	if env == nil {
		env = os.Environ()
	}
	env = append([]string(nil), env...)
	for _, k := range slices.Sorted(maps.Keys(opts.Env)) {
		env = append(env, k+"="+fillProxyVars(opts.Env[k], icptEnv))
	}
	return append(env, icptEnv...)
}

// exitCode is the child's exit status, or the error of a run that is no
// recording: interrupted (E_INTERRUPTED), killed at the timeout
// (E_TIMEOUT), stopped with ctx, or not started (E_USAGE).
func (r ran) exitCode(ctx context.Context, opts CLIOptions, red *redact.Redactor) (int, error) {
	var exitErr *exec.ExitError
	switch {
	case r.interrupted != nil:
		return 0, &outcome.Error{Reason: outcome.EInterrupted,
			Message:  fmt.Sprintf("interrupted (%s, passed on to %s): nothing was recorded; run the same command again to record it", r.interrupted, opts.Command),
			NextStep: again(opts)}
	case r.timedOut:
		return 0, &outcome.Error{Reason: outcome.ETimeout,
			Message:  fmt.Sprintf("%s did not finish within %s (killed); run it by hand to see where it waits, or give record a longer --timeout if it needs one", opts.Command, opts.Timeout),
			NextStep: outcome.Command(append([]string{opts.Command}, opts.Args...)...)}
	case ctx.Err() != nil:
		return 0, ctx.Err()
	case errors.As(r.err, &exitErr):
		return exitErr.ExitCode(), nil
	case r.err != nil:
		return 0, notStarted(red, opts, r.err)
	}
	return 0, nil
}

// captured is what the interceptor recorded (waiting for what is still
// being relayed, and letting red learn from it) and the requests it could
// not complete; a response the child stopped reading is logged.
func (opts CLIOptions) captured(icpt Interceptor, red *redact.Redactor) ([]cassettes.Interaction, []proxy.UpstreamFailure) {
	its := icpt.Interactions()
	log := opts.Log
	if log == nil {
		log = io.Discard
	}
	for _, in := range icpt.Incomplete() {
		fmt.Fprintf(log, "not recorded: %s (%s stopped reading it before its end); the cassette holds the calls that ended\n",
			red.String(in.String()), opts.Command)
	}
	return its, icpt.Failures()
}

// RerecordCLI records a committed CLI cassette again (the refresh loop's
// entry point) and returns the new cassette. What runs is opts.RealCommand
// (the adapter's real.command, from cassette.yaml) followed by the
// cassette's input.args, fed its input.stdin: never a program a cassette
// names. A cassette is data (it arrives in pull requests, refresh writes
// it): one whose input.command is not real.command is refused with
// E_CASSETTE_INVALID at its file and line, and nothing runs. opts supplies
// what the cassette does not hold: credentials, environment values, the
// interceptor; Args, Stdin and Scenario are taken from the cassette.
func RerecordCLI(ctx context.Context, old *cassettes.Cassette, opts CLIOptions) (*cassettes.Cassette, error) {
	if old == nil || old.Input == nil {
		next := outcome.Command("cassette", "validate")
		if old != nil {
			next = outcome.Command("cassette", "validate", old.Path)
		}
		return nil, outcome.Errorf(outcome.ECassetteInvalid, next, "the cassette has no input to run again")
	}
	if opts.Adapter == "" {
		opts.Adapter = old.Adapter
	}
	if err := declared(old, opts); err != nil {
		return nil, err
	}
	opts.Command = opts.RealCommand[0]
	opts.Args = append(append([]string(nil), opts.RealCommand[1:]...), old.Input.Args...)
	opts.Stdin = old.Input.Stdin.Bytes()
	opts.Scenario = old.Scenario
	opts.Previous = old.Output
	if len(opts.Normalizers) == 0 {
		opts.Normalizers = old.Normalizers
	}
	c, err := RecordCLI(ctx, opts)
	if c != nil && c.Input != nil {
		c.Input.Command, c.Input.Args = old.Input.Command, append([]string(nil), old.Input.Args...)
	}
	if c != nil {
		c.Path = old.Path
		c.Replayable, c.Mutating = old.Replayable, old.Mutating
	}
	return c, err
}

// declared refuses a cassette whose input.command is not the command
// cassette.yaml declares for its adapter (opts.RealCommand), before
// anything runs (workspace.UndeclaredCommand, which validate runs too),
// and one whose adapter declares none.
func declared(old *cassettes.Cassette, opts CLIOptions) error {
	if len(opts.RealCommand) > 0 {
		if e := workspace.UndeclaredCommand(old, opts.Adapter, opts.RealCommand); e != nil {
			return e
		}
		return nil
	}
	loc := outcome.Problem{File: old.Path, Line: old.Line("input.command")}.Location()
	return &outcome.Error{Reason: outcome.ECassetteInvalid,
		Message: fmt.Sprintf("%s: adapter %s declares no real.command: a CLI cassette is recorded again only through the command cassette.yaml declares, never the one it names (%q); nothing was run (set adapters.%s.real.command in cassette.yaml)",
			loc, opts.Adapter, old.Input.Command, opts.Adapter),
		Problems: []outcome.Problem{{Field: "adapters." + opts.Adapter + ".real.command", Message: "not set", Expected: "the real tool, e.g. command: [gh]"}},
		NextStep: outcome.Command("cassette", "validate")}
}

// echo writes the child's output, redacted as the cassette's output is
// (by name too), to w (when set).
func echo(w io.Writer, red *redact.Redactor, b []byte) {
	if w != nil && len(b) > 0 {
		_, _ = w.Write(red.Body("", b))
	}
}

// createDir is the command that creates a missing real.dir: a repository
// of its own for a repository tool (mkdir would leave git to find the
// project's repository above it), a directory otherwise.
func createDir(opts CLIOptions) string {
	if repoTools[filepath.Base(opts.Command)] {
		return outcome.Command("git", "init", opts.Dir)
	}
	return outcome.Command("mkdir", "-p", opts.Dir)
}

// notStarted is the error of a command that could not be started. It
// names where the command came from: real.command when the run used it,
// the arguments after -- otherwise.
func notStarted(red *redact.Redactor, opts CLIOptions, err error) error {
	if opts.Dir != "" {
		if _, serr := os.Stat(opts.Dir); serr != nil {
			// exec says the program is missing when its directory is.
			return &outcome.Error{Reason: outcome.EUsage,
				Message: fmt.Sprintf("cannot run %s: its working directory %s (real.dir of adapter %s in cassette.yaml) does not exist; create it (an example's README says how) or fix real.dir",
					opts.Command, outcome.Printable(opts.Dir), opts.Adapter),
				Err:      redactedError(red, serr),
				Problems: []outcome.Problem{{Field: "adapters." + opts.Adapter + ".real.dir", Message: "does not exist: " + outcome.Printable(opts.Dir), Expected: "an existing directory"}},
				NextStep: createDir(opts)}
		}
	}
	e := &outcome.Error{Reason: outcome.EUsage,
		Message:  fmt.Sprintf("cannot run %s: install it, or give its path", opts.Command),
		Err:      redactedError(red, err),
		NextStep: again(opts)}
	if len(opts.RealCommand) > 0 {
		e.Message = fmt.Sprintf("cannot run %s: install it, or fix real.command of adapter %s in cassette.yaml", opts.Command, opts.Adapter)
		e.Problems = []outcome.Problem{{Field: "real.command", Message: "the command could not be started", Expected: "an executable in PATH"}}
		return e
	}
	e.Problems = []outcome.Problem{{Field: "COMMAND (after --)", Message: opts.Command + " could not be started", Expected: "an executable in PATH or a path to one"}}
	return e
}

func again(opts CLIOptions) string {
	if opts.Again != "" {
		return opts.Again
	}
	return outcome.Command(append([]string{"cassette", "record", "--adapter", opts.Adapter, "--scenario", opts.Scenario, "--", opts.Command}, opts.Args...)...)
}

// redactedError turns err into an error whose text carries no credential:
// transport errors quote URLs, which may hold a token in the query string.
func redactedError(r *redact.Redactor, err error) error {
	if err == nil {
		return nil
	}
	msg := r.String(err.Error())
	if msg == err.Error() {
		return err
	}
	return errors.New(strings.TrimSpace(msg))
}
