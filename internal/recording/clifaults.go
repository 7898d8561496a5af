package recording

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/infra"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
)

// ErrNotLoggedIn is in the chain of the error of a CLI run whose tool says
// it has no credentials (E_MISSING_CONFIG): refresh skips the adapter, as
// it does when a credential variable is not set.
var ErrNotLoggedIn = errors.New("the real command is not logged in")

// fault is the error of a CLI run whose outcome says that the real side was
// not reached, nil for a run that is a recording. In order:
//
//   - the tool says it is not logged in: E_MISSING_CONFIG (ErrNotLoggedIn);
//   - its exit code or stderr matches a fault signature: that class
//     (E_REAL_*, E_TIMEOUT, E_PROVIDER_5XX, E_RATE_LIMIT);
//   - re-recording (opts.Previous), it went from exit 0 to a failure with
//     nothing on stdout and the adapter is strict: E_REAL_SUSPECT.
//
// A failure the committed cassette recorded too (same exit code, same
// signature) was recorded on purpose, and is expected again.
func (opts CLIOptions) fault(exit int, stdout, stderr []byte, red *redact.Redactor) error {
	f, prev := opts.Faults, opts.Previous
	if f == nil || exit == 0 {
		return nil
	}
	again := again(opts)
	same := prev != nil && prev.ExitCode == exit
	if f.LoggedOut(exit, stderr) {
		if same && f.LoggedOut(prev.ExitCode, prev.Stderr.Bytes()) {
			return nil
		}
		next, then := again, "log "+f.Tool+" in, then record again"
		switch {
		case f.Login != "":
			next, then = f.Login, "then record again: "+again
		case len(opts.Credentials) > 0:
			then = "export " + opts.Credentials[0] + ", then record again"
		}
		return &outcome.Error{Reason: outcome.EMissingConfig, Err: ErrNotLoggedIn, NextStep: next,
			Message: fmt.Sprintf("%s is not logged in (exit %d; stderr: %s); %s", f.Tool, exit, excerpt(red, stderr), then)}
	}
	if fail, ok := f.Match(exit, stderr); ok {
		if same {
			if was, _ := f.Match(prev.ExitCode, prev.Stderr.Bytes()); was.Reason == fail.Reason {
				return nil
			}
		}
		return &outcome.Error{Reason: fail.Reason, NextStep: again,
			Message: fmt.Sprintf("not recorded: %s; stderr: %s; %s", fail.Class, excerpt(red, stderr), fail.Advice())}
	}
	if prev != nil && prev.ExitCode == 0 && len(bytes.TrimSpace(stdout)) == 0 && f.Strict {
		return &outcome.Error{Reason: outcome.ERealSuspect,
			Message: fmt.Sprintf("not recorded: %s exited %d with nothing on stdout where the cassette recorded exit 0, and no fault signature says why (suspect: the real side was probably not reached); stderr: %s; if the service now answers so, set real.faults.strict: false for the adapter in cassette.yaml; if it was not reached, add its signature to real.faults",
				f.Tool, exit, excerpt(red, stderr)),
			NextStep: again}
	}
	return nil
}

// excerpt is what a message shows of a command's stderr: its first two
// lines and its last, redacted, on one line, with control characters
// replaced, at most 400 bytes, quoted.
func excerpt(red *redact.Redactor, stderr []byte) string {
	text := string(red.Body("", stderr)) // by name too: {"password": …} in an error
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return "(empty)"
	}
	if len(lines) > 3 { // the first lines say what failed, the last one how it ended
		lines = append(lines[:2:2], "…", lines[len(lines)-1])
	}
	s := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.Join(lines, " | "))
	if len(s) > 400 {
		s = "…" + strings.ToValidUTF8(s[len(s)-400:], "")
	}
	return "«" + s + "»"
}

// FaultsOf are the fault signatures of program run for adapter a: the
// built-in ones of the tool it names, and a's real.faults.
func FaultsOf(program string, a *cfgschema.Adapter) (*infra.CLIFaults, error) {
	f, err := infra.FaultsFor(program, a.Real.Faults)
	if err != nil {
		return nil, &outcome.Error{Reason: outcome.ECfgParse, Message: err.Error(), NextStep: outcome.Command("cassette", "validate")}
	}
	return &f, nil
}
