package infra

import (
	"fmt"
	"path/filepath"
	"regexp"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// A CLI's own network failures: a tool that reaches its service past the
// recording proxy (a Go program calling a loopback address, a unix socket,
// ssh) says it could not in its exit code and on stderr. These signatures
// read them, so that such a run is infrastructure, never a recording.

// Signature is one way a command says the real side could not be reached:
// an exit code, or a pattern on stderr (with a non-zero exit code).
type Signature struct {
	ExitCode int            // 0 when the signature is a pattern
	Stderr   *regexp.Regexp // nil when the signature is an exit code
	// Reason is the failure's class; "" reads it from stderr (ClassifyText).
	Reason outcome.Reason
}

// CLIFaults are the fault signatures of one adapter's real command: the
// built-in ones of the tool it runs, and those the adapter declares
// (real.faults).
type CLIFaults struct {
	Tool       string // the program's base name, as messages name it
	Signatures []Signature
	// NotLoggedIn are stderr patterns saying the tool has no credentials.
	NotLoggedIn []*regexp.Regexp
	// Login is the command that logs the tool in ("gh auth login"), or "".
	Login string
	// Strict refuses a re-recording whose exit code went from 0 to
	// non-zero with nothing on stdout when no signature matched.
	Strict bool
}

// FaultsFor returns the signatures of program (a command's first word: its
// base name picks the built-in set) with the adapter's declared ones
// (nil for none) first. A declared pattern that does not compile is an
// error (LoadConfig reports it at its line first).
func FaultsFor(program string, declared *cfgschema.Faults) (CLIFaults, error) {
	tool := filepath.Base(program)
	f := CLIFaults{Tool: tool, Strict: true}
	builtin := true
	if d := declared; d != nil {
		for _, code := range d.ExitCodes {
			f.Signatures = append(f.Signatures, Signature{ExitCode: code})
		}
		for _, p := range d.Stderr {
			re, err := regexp.Compile(p)
			if err != nil {
				return f, fmt.Errorf("real.faults.stderr %q: %w", p, err)
			}
			f.Signatures = append(f.Signatures, Signature{Stderr: re})
		}
		for _, p := range d.NotLoggedIn {
			re, err := regexp.Compile(p)
			if err != nil {
				return f, fmt.Errorf("real.faults.not_logged_in %q: %w", p, err)
			}
			f.NotLoggedIn = append(f.NotLoggedIn, re)
		}
		builtin = d.Builtin == nil || *d.Builtin
		f.Strict = d.Strict == nil || *d.Strict
	}
	if b, ok := builtins[toolSet(tool)]; ok && builtin {
		f.Signatures = append(f.Signatures, b.signatures...)
		f.NotLoggedIn = append(f.NotLoggedIn, b.notLoggedIn...)
		f.Login = b.login
	}
	return f, nil
}

// Match returns the failure a run that exited with exit and printed stderr
// shows, and the signature it matched; ok is false when none matched. A
// run that exited 0 matches nothing.
func (f CLIFaults) Match(exit int, stderr []byte) (Failure, bool) {
	if exit == 0 {
		return Failure{}, false
	}
	for _, s := range f.Signatures {
		switch {
		case s.Stderr == nil && s.ExitCode != exit:
			continue
		case s.Stderr != nil && !s.Stderr.Match(stderr):
			continue
		}
		reason := s.Reason
		if reason == "" {
			reason = ClassifyText(string(stderr))
		}
		what := fmt.Sprintf("exit %d", exit)
		if s.Stderr != nil {
			what = fmt.Sprintf("exit %d, stderr matches %q", exit, s.Stderr.String())
		}
		return Failure{Reason: reason, Class: fmt.Sprintf("%s could not reach the real side (%s: %s)", f.Tool, what, texts[reason])}, true
	}
	return Failure{}, false
}

// LoggedOut reports whether a run that exited with exit says on stderr
// that the tool has no credentials.
func (f CLIFaults) LoggedOut(exit int, stderr []byte) bool {
	if exit == 0 {
		return false
	}
	for _, re := range f.NotLoggedIn {
		if re.Match(stderr) {
			return true
		}
	}
	return false
}

// texts name each class in a few words.
var texts = map[outcome.Reason]string{
	outcome.ERealDNS:         "the host name does not resolve",
	outcome.ERealTLS:         "TLS failed",
	outcome.ERealUnreachable: "no connection",
	outcome.ERealReset:       "the connection was cut",
	outcome.ETimeout:         "timed out",
	outcome.EProvider5xx:     "the service answered 5xx",
	outcome.ERateLimit:       "rate limited",
}

// ClassifyText reads a failure's class from what a tool printed: the words
// network libraries use for each (Go's, libcurl's, OpenSSL's, GnuTLS's,
// Node's). Unknown text is E_REAL_UNREACHABLE.
func ClassifyText(s string) outcome.Reason {
	for _, c := range textClasses {
		if c.re.MatchString(s) {
			return c.reason
		}
	}
	return outcome.ERealUnreachable
}

var textClasses = []struct {
	re     *regexp.Regexp
	reason outcome.Reason
}{
	{regexp.MustCompile(`(?i)could not resolve|no such host|name or service not known|unable to look ?up|temporary failure in name resolution|getaddrinfo|ENOTFOUND|EAI_AGAIN|server misbehaving`), outcome.ERealDNS},
	{regexp.MustCompile(`(?i)x509:|tls:|certificate|\bSSL\b|ssl_|gnutls|handshake`), outcome.ERealTLS},
	{regexp.MustCompile(`(?i)timed? ?out|deadline exceeded|ETIMEDOUT`), outcome.ETimeout},
	{regexp.MustCompile(`(?i)connection reset|reset by peer|ECONNRESET|broken pipe|unexpected EOF|early EOF|empty reply`), outcome.ERealReset},
	{regexp.MustCompile(`(?i)\b(?:HTTP|error|status|returned|API Error:?)[ :]*5\d\d\b|\b5\d\d (?:Internal Server Error|Not Implemented|Bad Gateway|Service Unavailable|Gateway Timeout|HTTP Version Not Supported)|overloaded_error`), outcome.EProvider5xx},
	{regexp.MustCompile(`(?i)\b(?:HTTP|error|status|returned|API Error:?)[ :]*429\b|rate.?limit`), outcome.ERateLimit},
}
