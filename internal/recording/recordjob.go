package recording

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/nextstep"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// RecordJob is one `cassette record` run: its flags as given, the command
// after -- (if any), and how to load the project. cmd/cassette binds the
// flags to its fields and calls Run; a test builds one without the
// process. Its three paths (a command, the declared scenarios, a cassette
// again from its own input) go through one Session.
type RecordJob struct {
	Adapter, Scenario   string
	BaseURL, UpstreamCA string
	Timeout             time.Duration // bounds a recorded command
	AttemptTimeout      time.Duration // --timeout given: bounds each live request of a scenario
	Quiet, Mutating     bool
	AllowProjectRepo    bool // --allow-project-repo: git or gh may run in a real.dir inside the project's repository
	AllowStatus         []int

	Config   string                             // --config, which next steps name
	Load     func() (*workspace.Project, error) // loads the project of Config
	Recorder cassettes.Recorder                 // the build that records
	In       io.Reader                          // the recorded command's stdin, when piped
	Out, Err io.Writer                          // the command's output; record's own messages

	p *workspace.Project
}

// Run records: the command given after --, else a cassette again from its
// own input (rerecordExisting), else the declared scenarios.
func (j *RecordJob) Run(ctx context.Context, command []string) error {
	if err := j.checkScenario(command); err != nil {
		return err
	}
	p, err := j.Load()
	if err != nil {
		return err
	}
	j.p = p
	cfg := p.Config
	a, ok := cfg.Adapters[j.Adapter]
	if !ok {
		near := nextstep.NearestAdapter(cfg, j.Adapter, command)
		return &outcome.Error{Reason: outcome.EUsage, Message: fmt.Sprintf("--adapter %s: no such adapter in %s", j.Adapter, cfg.Path),
			Problems: []outcome.Problem{{File: cfg.Path, Line: cfg.Line("adapters"), Field: "adapters", Message: "declared: " + strings.Join(cfg.Order, ", "), Suggestion: nextstep.DidYouMean(near)}},
			NextStep: j.otherAdapter(near, command)}
	}
	if missing := unsetCredentials(a); len(missing) > 0 {
		return &outcome.Error{Reason: outcome.EMissingConfig,
			Message:  fmt.Sprintf("adapter %s needs the credential variables %s, which are not set: export them, then run the same command again", j.Adapter, strings.Join(missing, ", ")),
			NextStep: j.again(command)}
	}
	s := NewSession(p, j.Adapter, SessionOptions{Scenario: j.Scenario, Recorder: j.Recorder, UpstreamCA: j.UpstreamCA})
	s.Step, s.Log = j.command, j.Err
	defer s.Close()
	w, err := s.Dial()
	if w != "" {
		fmt.Fprintln(j.Err, w)
	}
	if err != nil {
		return err
	}
	s.CatchInterrupts()
	if len(command) > 0 {
		return j.recordCommand(ctx, s, command)
	}
	ctx, cancel := s.Interrupts.Context(ctx)
	defer cancel()
	done, err := j.rerecordExisting(ctx, s)
	if !done {
		if a.Kind != cfgschema.KindHTTP {
			return outcome.Errorf(outcome.EUsage, nextstep.RecordFirst(cfg, j.Adapter),
				"adapter %s is a cli adapter: give the command to record after --", j.Adapter)
		}
		err = j.recordScenarios(ctx, s)
	}
	if sig := s.Interrupted(); sig != nil {
		return InterruptedError(sig, "the requests in flight were stopped", j.again(nil))
	}
	return err
}

// checkScenario refuses a --scenario that is no valid new name, before the
// project loads: the same command with the name in the strict form.
func (j *RecordJob) checkScenario(command []string) error {
	if j.Scenario == "" || cassettes.ValidNewName(j.Scenario) {
		return nil
	}
	next := nextstep.Command(j.Config, "cassette", "record", "--help")
	if strict := cassettes.StrictName(j.Scenario); strict != "" {
		named := *j
		named.Scenario = strict
		next = nextstep.RecordAgain(&cfgschema.Config{Path: j.Config}, named.record(command))
	}
	return &outcome.Error{Reason: outcome.EUsage, Message: fmt.Sprintf("--scenario %q is not a valid scenario name", j.Scenario),
		Problems: []outcome.Problem{{Field: "--scenario", Message: "not a valid name", Expected: cassettes.NameRule}},
		NextStep: next}
}

// command is the cassette command of words in this project.
func (j *RecordJob) command(words ...string) string {
	return nextstep.Command(j.p.Config.Path, words...)
}

// record is the next step's view of this run, with the command after --
// as it may be printed.
func (j *RecordJob) record(command []string) nextstep.Record {
	cfg := &cfgschema.Config{Path: j.Config}
	if j.p != nil {
		cfg = j.p.Config
	}
	if len(command) > 0 {
		// Every declared credential, not only the adapter's: the line may
		// hold another adapter's (or an adapter the project lacks).
		command = CommandWithRefs(cfg.Redaction(), cfg.SecretVars(), j.Adapter, command)
	}
	return nextstep.Record{Adapter: j.Adapter, Scenario: j.Scenario, BaseURL: j.BaseURL, UpstreamCA: j.UpstreamCA, Timeout: j.AttemptTimeout, Command: command}
}

// again is the record command of this run: what to run again once the
// cause is fixed.
func (j *RecordJob) again(command []string) string {
	return nextstep.RecordAgain(j.p.Config, j.record(command))
}

// otherAdapter is the record command of this run with the declared
// adapter near (nextstep.NearestAdapter) in place of the one given, or a
// first recording when none is near.
func (j *RecordJob) otherAdapter(near string, command []string) string {
	if near == "" {
		return nextstep.RecordFirst(j.p.Config, "")
	}
	other := *j
	other.Adapter = near
	return other.again(command)
}

// recordCommand records the command given after --.
func (j *RecordJob) recordCommand(ctx context.Context, s *Session, command []string) error {
	if j.Scenario == "" {
		named := *j
		named.Scenario = cmp.Or(cassettes.StrictName(filepath.Base(command[0])), "first")
		return outcome.Errorf(outcome.EUsage, named.again(command), "--scenario is required when recording a command")
	}
	path := s.Path(j.Scenario)
	unlock, err := s.Lock(j.again(command), path)
	if err != nil {
		return err
	}
	defer unlock()
	stdin, err := pipedInput(j.In)
	if err != nil {
		return &outcome.Error{Reason: outcome.EIO, Message: "cannot read standard input", Err: err, NextStep: j.again(command)}
	}
	cfg := j.p.Config
	if err := CheckRealDir(ctx, cfg, j.Adapter, command, cfgschema.ResolvePath(cfg.Dir, s.Adapter.Real.Dir), j.AllowProjectRepo); err != nil {
		return err
	}
	run := CommandRun{Command: command, Stdin: stdin, BaseURL: j.BaseURL, AllowStatus: j.AllowStatus, Timeout: j.Timeout, Mutating: j.Mutating,
		Again: j.again(command)}
	if !j.Quiet {
		run.Stdout, run.Stderr = j.Out, j.Err
	}
	c, err := s.RecordCommand(ctx, run)
	if err != nil {
		return err
	}
	return j.save(s, c, path)
}

// save saves a recorded cassette at path (Session.Save) and says so.
func (j *RecordJob) save(s *Session, c *cassettes.Cassette, path string) error {
	verb, err := s.Save(c, path)
	if err != nil {
		return err
	}
	what := fmt.Sprintf("%d interactions", len(c.Interactions))
	if c.Output != nil {
		what = fmt.Sprintf("exit %d, %d bytes of stdout, %d interactions", c.Output.ExitCode, len(c.Output.Stdout), len(c.Interactions))
	}
	fmt.Fprintf(j.Err, "%s %s (%s)\n", verb, path, what)
	return nil
}

func unsetCredentials(a *cfgschema.Adapter) []string {
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
