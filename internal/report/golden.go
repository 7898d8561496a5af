package report

import (
	"path/filepath"
	"regexp"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verdict"
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
		e.Problems = append([]outcome.Problem(nil), e.Problems...)
		for i, p := range e.Problems {
			e.Problems[i].Message, e.Problems[i].File = text(p.Message), text(p.File)
		}
		out.Err = &e
	}
	out.Cases = make([]verdict.Case, len(run.Cases))
	for i, c := range run.Cases {
		c.Message = text(c.Message)
		c.Actions = append([]verdict.Action(nil), c.Actions...)
		for j := range c.Actions {
			c.Actions[j].Err = text(c.Actions[j].Err)
		}
		c.Retries = append([]verdict.Retry(nil), c.Retries...)
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
	if run.Coverage != nil && run.Coverage.Modelled != nil {
		cov, m := *run.Coverage, *run.Coverage.Modelled
		m.Written, m.AgeSeconds = "", nil
		cov.Modelled = &m
		out.Coverage = &cov
	}
	return &out
}

// goldenText returns the rewrite of one message: loopback ports, and paths
// below dir (as given, or absolute) made relative to it where they start a
// path (at the start or after a space, quote, parenthesis, colon or equals
// sign: "r/" is not cut out of "for/").
func goldenText(dir string) func(string) string {
	var prefixes []*regexp.Regexp
	if dir != "" {
		clean := filepath.Clean(dir)
		var ps []string
		if clean != "." {
			ps = append(ps, clean)
		}
		if abs, err := filepath.Abs(clean); err == nil && abs != clean && abs != string(filepath.Separator) {
			ps = append(ps, abs)
		}
		for _, p := range ps {
			prefixes = append(prefixes, regexp.MustCompile(`(^|[\s"'(=:])`+regexp.QuoteMeta(p+string(filepath.Separator))))
		}
	}
	return func(s string) string {
		if s == "" {
			return s
		}
		for _, p := range prefixes {
			s = p.ReplaceAllString(s, "$1")
		}
		return loopbackPort.ReplaceAllString(s, "$1:<port>")
	}
}
