package report

import (
	"path/filepath"
	"regexp"
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
)

// loopbackPort matches a loopback address with its port, as a fake verify
// started (on a free port, new for every run) or a local real side has.
var loopbackPort = regexp.MustCompile(`(\b127\.0\.0\.1|\blocalhost|\[::1\]):[0-9]{1,5}\b`)

// goldenRun returns the run as golden mode writes it: besides the times
// and durations each file omits, the values that differ between two
// equivalent runs are replaced by stable sentinels (specs/001 §10: "if a
// volatile field cannot be omitted, it SHOULD be normalized to a stable
// sentinel value"):
//
//   - in messages, a loopback port (127.0.0.1:41873, a port a fake got for
//     this run) becomes 127.0.0.1:<port>;
//   - in messages and problem files, a path below the report directory dir
//     becomes relative to it, as artifact paths always are (the directory
//     may be absolute, and differ from run to run);
//   - a refresh cycle's date in the drift history is left out.
//
// dir is "" when the run is rendered for no directory. run is not changed.
func goldenRun(dir string, run *Run) *Run {
	out := *run
	text := goldenText(dir)
	if run.Err != nil {
		e := *run.Err
		e.Message = text(e.Message)
		e.Problems = append([]cassettes.Problem(nil), e.Problems...)
		for i, p := range e.Problems {
			e.Problems[i].Message, e.Problems[i].File = text(p.Message), text(p.File)
		}
		out.Err = &e
	}
	out.Cases = make([]Case, len(run.Cases))
	for i, c := range run.Cases {
		c.Message = text(c.Message)
		c.Actions = append([]Action(nil), c.Actions...)
		for j := range c.Actions {
			c.Actions[j].Err = text(c.Actions[j].Err)
		}
		c.Retries = append([]Retry(nil), c.Retries...)
		for j := range c.Retries {
			c.Retries[j].Message = text(c.Retries[j].Message)
		}
		out.Cases[i] = c
	}
	out.History = make([]AdapterHistory, len(run.History))
	for i, h := range run.History {
		h.Cycles = append([]HistoryCycle(nil), h.Cycles...)
		for j := range h.Cycles {
			h.Cycles[j].At = ""
		}
		out.History[i] = h
	}
	if len(run.History) == 0 {
		out.History = nil
	}
	return &out
}

// goldenText returns the rewrite of one message: loopback ports, and paths
// below dir (as given, or absolute) made relative to it.
func goldenText(dir string) func(string) string {
	var prefixes []string
	if dir != "" {
		clean := filepath.Clean(dir)
		if clean != "." {
			prefixes = append(prefixes, clean+string(filepath.Separator))
		}
		if abs, err := filepath.Abs(clean); err == nil && abs != clean && abs != string(filepath.Separator) {
			prefixes = append(prefixes, abs+string(filepath.Separator))
		}
	}
	return func(s string) string {
		if s == "" {
			return s
		}
		for _, p := range prefixes {
			s = stripPathPrefix(s, p)
		}
		return loopbackPort.ReplaceAllString(s, "$1:<port>")
	}
}

// stripPathPrefix removes prefix where it starts a path in s: at the start
// of s or after a space, quote, parenthesis, colon or equals sign (so that
// "r/" is not cut out of "for/").
func stripPathPrefix(s, prefix string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, prefix)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		if i == 0 || strings.ContainsRune(" \t\n\"'(=:", rune(s[i-1])) {
			b.WriteString(s[:i])
		} else {
			b.WriteString(s[:i+len(prefix)])
		}
		s = s[i+len(prefix):]
	}
}
