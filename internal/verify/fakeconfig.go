package verify

import (
	"errors"
	"io/fs"
	"os/exec"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// A fake that cannot be started at all (its command does not exist, is not
// executable) is as much a problem of the line of cassette.yaml that names
// it as of the process: the error says the operating system's reason, the
// file, line and field, and a next step that does not itself fail the same
// way (the build, when the adapter declares one, else verify of the adapter
// again once the command is there).

// notStartable reports whether err is the operating system refusing to
// start a command: missing, not executable, not found in PATH.
func notStartable(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || errors.Is(err, exec.ErrNotFound)
}

// osReason is the operating system's words for err ("no such file or
// directory", "permission denied", "executable file not found in $PATH").
func osReason(err error) string {
	var pe *fs.PathError
	var ee *exec.Error
	switch {
	case errors.As(err, &ee):
		return ee.Err.Error()
	case errors.As(err, &pe):
		return pe.Err.Error()
	}
	return err.Error()
}

// fakeCommandProblem is the problem that locates adapter name's
// fake.command in the config.
func fakeCommandProblem(cfg *cfgschema.Config, name string, err error) outcome.Problem {
	field := "adapters." + name + ".fake.command"
	return outcome.Problem{File: cfg.Path, Line: cfg.Line(field), Field: field, Message: "cannot be started: " + osReason(err),
		Expected: "an executable, by path relative to fake.dir (or the project) or by name in PATH", Suggestion: "build the fake first, or declare fake.build so that verify builds it"}
}

// withFakeLine adds to the error of a fake that could not be started the
// location of its command in the config, and a next step that runs.
func withFakeLine(err error, cfg *cfgschema.Config, name string) error {
	var ce *outcome.Error
	if cfg == nil || !errors.As(err, &ce) || ce.Reason != outcome.EFakeUnavailable || !notStartable(ce.Err) {
		return err
	}
	ce.Problems = append([]outcome.Problem{fakeCommandProblem(cfg, name, ce.Err)}, ce.Problems...)
	ce.NextStep = fakeStartStep(cfg, name)
	return ce
}

// fakeStartStep is what to run once a fake that cannot be started is
// there: its build, or verify of its adapter.
func fakeStartStep(cfg *cfgschema.Config, name string) string {
	if a := cfg.Adapters[name]; a != nil && len(a.Fake.Build) > 0 {
		return outcome.Command(a.Fake.Build...)
	}
	words := []string{"cassette", "verify", "--adapter", name}
	if cfg.Path != "" && cfg.Path != cfgschema.ConfigFile {
		words = append(words, "--config", cfg.Path)
	}
	return outcome.Command(words...)
}

// cliNotRunnable is the error of a CLI fake that could not be started for
// case id of adapter name.
func cliNotRunnable(cfg *cfgschema.Config, name string, err error) *outcome.Error {
	e := &outcome.Error{Reason: outcome.EFakeUnavailable, Message: "adapter " + name + ": " + err.Error(), Err: err, NextStep: fakeStartStep(cfg, name)}
	if notStartable(err) {
		e.Problems = []outcome.Problem{fakeCommandProblem(cfg, name, err)}
	}
	return e
}
