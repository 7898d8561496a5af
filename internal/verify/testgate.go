package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/procgroup"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// The test gate of an in-process fake: a fake that lives in a test
// runner's process (a Python class, a JavaScript object) cannot be run by
// verify; its project declares the command that verifies it
// (fake.test: [pytest, -q, tests/contracts]), which runs the bindings'
// contract tests through `cassette check`. verify --in-process and
// refresh's replay gate run that command and read its results back from
// the report set the bindings write ($CASSETTE_REPORT_DIR), so that an
// in-process fake is judged case by case, with the runner's own replay
// command for each, as a process fake is.

// DefaultGateTimeout bounds a test gate whose adapter sets no fake.timeout
// (the default bound of a CLI run in a refresh cycle).
const DefaultGateTimeout = 10 * time.Minute

// EnvReportDir names the variable that tells the bindings (pytest,
// node:test) where to write the report set of their `cassette check`.
const EnvReportDir = "CASSETTE_REPORT_DIR"

// TestGate is one run of an adapter's declared test command.
type TestGate struct {
	Adapter string
	// Command is fake.test as declared; Dir where it ran.
	Command []string
	Dir     string
	// ExitCode is the command's exit code (-1 when it did not run).
	ExitCode int
	// Output is the tail of what it printed (stdout and stderr).
	Output string
	// Cases are the adapter's cases the bindings reported (one per test
	// item); Failed those that failed or errored and are not quarantined.
	Cases, Failed []verdict.Case
	// Err is set when the gate could not judge the fake: the command did
	// not start or timed out, wrote no reports, or failed with no failing
	// case of the adapter in them (infrastructure, never fake drift).
	Err *outcome.Error
}

// Passed reports whether the gate ran and every case of the adapter passed.
func (g *TestGate) Passed() bool { return g.Err == nil && len(g.Failed) == 0 && len(g.Cases) > 0 }

// CommandLine is the gate's command as it is typed.
func (g *TestGate) CommandLine() string { return outcome.Command(g.Command...) }

// RunTestGate runs adapter's fake.test in projectDir (the directory of
// cassette.yaml: in refresh, the refresh work tree's) and reads back what
// its bindings reported for the adapter. The command gets a fake's
// environment (cfgschema.Config.FakeEnviron: no adapter's credentials, no
// forge token) and CASSETTE_REPORT_DIR; it is killed, with what it
// started, when ctx ends or after fake.timeout (DefaultGateTimeout).
func RunTestGate(ctx context.Context, cfg *cfgschema.Config, adapter string, projectDir string) *TestGate {
	return RunTestGates(ctx, cfg, []string{adapter}, projectDir)[0]
}

// RunTestGates is RunTestGate for several adapters, running each distinct
// command once (adapters that share one, as a project's contract tests
// usually do, share its run and its reports).
func RunTestGates(ctx context.Context, cfg *cfgschema.Config, adapters []string, projectDir string) []*TestGate {
	gates := make([]*TestGate, len(adapters))
	byCommand := map[string][]int{}
	var order []string
	for i, name := range adapters {
		g := &TestGate{Adapter: name, Dir: projectDir, ExitCode: -1}
		gates[i] = g
		a := cfg.Adapters[name]
		if a == nil || len(a.Fake.Test) == 0 {
			g.Err = outcome.Errorf(outcome.EUsage, outcome.Command("cassette", "validate"), "adapter %s declares no fake.test: nothing verifies its in-process fake", name)
			continue
		}
		g.Command = a.Fake.Test
		key := g.CommandLine()
		if _, ok := byCommand[key]; !ok {
			order = append(order, key)
		}
		byCommand[key] = append(byCommand[key], i)
	}
	for _, key := range order {
		group := make([]*TestGate, 0, len(byCommand[key]))
		timeout := time.Duration(0)
		for _, i := range byCommand[key] {
			group = append(group, gates[i])
			timeout = max(timeout, time.Duration(cfg.Adapters[adapters[i]].Fake.Timeout))
		}
		if timeout <= 0 {
			timeout = DefaultGateTimeout
		}
		runGate(ctx, cfg, group, timeout)
	}
	return gates
}

// runGate runs the command the gates share once and judges each from the
// report set its bindings wrote.
func runGate(ctx context.Context, cfg *cfgschema.Config, gates []*TestGate, timeout time.Duration) {
	first := gates[0]
	step := first.CommandLine()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	reports, err := os.MkdirTemp("", "cassette-gate-*")
	if err != nil {
		for _, g := range gates {
			g.Err = &outcome.Error{Reason: outcome.EIO, Message: "cannot make a directory for the gate's reports", Err: err, NextStep: outcome.Command("ls", "-ld", os.TempDir())}
		}
		return
	}
	defer os.RemoveAll(reports)
	code, out, err := runGateCommand(ctx, first.Command, first.Dir, cfg.FakeEnviron(os.Environ(), EnvReportDir+"="+reports))
	run := readGateRun(reports)
	anyFailed := false
	if run != nil {
		for _, c := range run.Cases {
			anyFailed = anyFailed || (c.Status == verdict.StatusFail || c.Status == verdict.StatusError) && !c.Quarantined(run.Started)
		}
	}
	for _, g := range gates {
		g.ExitCode, g.Output = code, out
		if err != nil {
			g.Err = &outcome.Error{Reason: outcome.EFakeUnavailable, Message: fmt.Sprintf("the test gate of adapter %s (%s) did not run: %v", g.Adapter, step, err), Err: err, NextStep: step}
			continue
		}
		g.judge(run, anyFailed)
	}
}

// judge reads the gate's adapter's cases from the run its command's
// bindings reported (nil: none), and says when it could not judge.
func (g *TestGate) judge(run *verdict.Run, anyFailed bool) {
	step := g.CommandLine()
	if run != nil {
		for _, c := range run.Cases {
			if c.Adapter != g.Adapter {
				continue
			}
			g.Cases = append(g.Cases, c)
			if (c.Status == verdict.StatusFail || c.Status == verdict.StatusError) && !c.Quarantined(run.Started) {
				g.Failed = append(g.Failed, c)
			}
		}
	}
	switch {
	case len(g.Cases) == 0:
		g.Err = &outcome.Error{Reason: outcome.EFakeUnavailable, NextStep: step,
			Message: fmt.Sprintf("the test gate of adapter %s (%s, exit %d) reported no case of the adapter: its contract tests did not run (is the binding loaded, and is %s passed on?)%s",
				g.Adapter, step, g.ExitCode, EnvReportDir, tailNote(g.Output))}
	case g.ExitCode != 0 && !anyFailed:
		g.Err = &outcome.Error{Reason: outcome.EFakeUnavailable, NextStep: step,
			Message: fmt.Sprintf("the test gate of adapter %s (%s) exited %d, and no contract test failed: another test or the runner failed%s", g.Adapter, step, g.ExitCode, tailNote(g.Output))}
	}
}

// runGateCommand runs the gate's command in its own process group and
// returns its exit code and the tail of its output.
func runGateCommand(ctx context.Context, argv []string, dir string, env []string) (int, string, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = procgroup.Attr()
	cmd.Cancel = procgroup.KillFunc(cmd)
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	tail := lastLines(out.String(), 20)
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return -1, tail, fmt.Errorf("stopped: %w", ctx.Err())
	case err == nil:
		return 0, tail, nil
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return ee.ExitCode(), tail, nil
	}
	return -1, tail, err
}

func tailNote(out string) string {
	if strings.TrimSpace(out) == "" {
		return ""
	}
	return "; its output ended:\n" + out
}

// GateDir is where a project's test gate runs: the directory of its
// cassette.yaml, as an absolute path.
func GateDir(cfg *cfgschema.Config) string {
	if d, err := filepath.Abs(cfg.Dir); err == nil {
		return d
	}
	return cfg.Dir
}

// Fold puts the gate's verdict into run: the adapter's cases that verify
// skipped (their fake is in process) give way to the cases the gate's
// bindings reported, one per test item; a gate that could not judge the
// fake is one errored case naming its command.
func (g *TestGate) Fold(run *verdict.Run) {
	kept := run.Cases[:0]
	for _, c := range run.Cases {
		if c.Adapter != g.Adapter || c.Status != verdict.StatusSkipped {
			kept = append(kept, c)
		}
	}
	run.Cases = append(kept, g.Cases...)
	if g.Err != nil {
		run.Cases = append(run.Cases, verdict.Case{Adapter: g.Adapter, Scenario: "fake.test", Status: verdict.StatusError, Reason: g.Err.Reason,
			Message: g.Err.Message, NextStep: g.Err.NextStep, ReplayCommand: g.CommandLine()})
	}
}

// Summary is one line on what the gate ran and found.
func (g *TestGate) Summary() string {
	if g.Err != nil {
		return fmt.Sprintf("%s: %s could not judge the fake: %s", g.Adapter, g.CommandLine(), firstLine(g.Err.Message))
	}
	return fmt.Sprintf("%s: %s: %d contract tests, %d failed", g.Adapter, g.CommandLine(), len(g.Cases), len(g.Failed))
}

// readGateRun is the run a gate's binding wrote to reports/run.json (the
// run model at the file's top level, schema_version 1), or nil when there
// is none it can read: the gate is then judged by its exit code alone.
func readGateRun(reports string) *verdict.Run {
	data, err := os.ReadFile(filepath.Join(reports, "run.json"))
	if err != nil {
		return nil
	}
	rf := struct {
		SchemaVersion int `json:"schema_version"`
		*verdict.Run
	}{Run: &verdict.Run{}}
	if json.Unmarshal(data, &rf) != nil || rf.SchemaVersion != 1 {
		return nil
	}
	return rf.Run
}
