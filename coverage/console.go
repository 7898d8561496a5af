package coverage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// RuleUnrecorded is the seed ADR's second rule, quoted where an adapter
// with observed calls has no cassette.
const RuleUnrecorded = `"An adapter's cassette directory is empty but the fake is wired into production code paths. Fix by recording a baseline cassette."`

// WriteConsole prints the report the way `go test -cover` prints packages:
// one line per adapter with its verdict and percentage, under it each
// uncovered shape with the calls and tests that made it and the command
// that records it, then the stale cassettes (shown, never failing).
// verbose lists the covered shapes with their cassettes too.
func (r *Report) WriteConsole(w io.Writer, color, verbose bool) {
	paint := func(code, s string) string {
		if !color {
			return s
		}
		return "\x1b[" + code + "m" + s + "\x1b[0m"
	}
	width := 0
	for _, a := range r.Adapters {
		width = max(width, len(a.Name))
	}
	for _, a := range r.Adapters {
		switch st := a.Status(); st {
		case StatusUnobserved:
			fmt.Fprintf(w, "?     %-*s  [no calls observed; %s]\n", width, a.Name, plural(len(a.Cassettes), "cassette"))
		default:
			verdict := paint("32", "ok  ")
			if st != StatusPass {
				verdict = paint("31;1", "FAIL")
			}
			fmt.Fprintf(w, "%s  %-*s  coverage: %s of call shapes (%d of %d%s)\n", verdict, width, a.Name, pct(a.Percent()), a.Covered(), len(a.Shapes), minNote(a))
		}
	}
	for _, a := range r.Adapters {
		a.writeDetails(w, paint, verbose)
	}
	covered, observed := r.Totals()
	stale := 0
	for _, a := range r.Adapters {
		if a.Status() != StatusUnobserved {
			stale += len(a.Stale)
		}
	}
	fmt.Fprintf(w, "total: %d of %d call shapes covered (%s) in %s", covered, observed, pct(percent(covered, observed)), plural(len(r.Adapters), "adapter"))
	if stale > 0 {
		fmt.Fprintf(w, "; %s no test exercised", plural(stale, "stale cassette"))
	}
	fmt.Fprintln(w)
}

// writeDetails prints what is under an adapter's line.
func (a *AdapterReport) writeDetails(w io.Writer, paint func(string, string) string, verbose bool) {
	st := a.Status()
	if st == StatusUnobserved || (st == StatusPass && len(a.Stale) == 0 && !verbose) {
		return
	}
	fmt.Fprintf(w, "%s:\n", a.Name)
	if st == StatusUnrecorded {
		fmt.Fprintf(w, "  %s its fake answered %s and no cassette backs any: the seed ADR's rule, %s\n",
			paint("31;1", "no cassettes:"), plural(a.Calls, "call"), RuleUnrecorded)
	}
	for _, s := range a.Shapes {
		if s.Covered {
			if verbose {
				fmt.Fprintf(w, "  covered    %s  (%s; %s)\n", s.Shape, plural(s.Calls, "call"), strings.Join(s.Cassettes, ", "))
			}
			continue
		}
		fmt.Fprintf(w, "  %s  %s  (%s by %s)\n", paint("31", "uncovered"), s.Shape, plural(s.Calls, "call"), tests(s.Tests))
		if s.Record != "" {
			fmt.Fprintf(w, "             record: %s\n", s.Record)
		}
	}
	for _, s := range a.Stale {
		shapes := make([]string, len(s.Shapes))
		for i, sh := range s.Shapes {
			shapes[i] = string(sh)
		}
		fmt.Fprintf(w, "  stale      %s  (%s: no test made this call)\n", s.Cassette, strings.Join(shapes, "; "))
	}
}

func tests(ts []string) string {
	switch len(ts) {
	case 0:
		return "an unnamed test (set CASSETTE_TEST or the Cassette-Test header to name it)"
	case 1, 2, 3:
		return strings.Join(ts, ", ")
	}
	return strings.Join(ts[:3], ", ") + fmt.Sprintf(" and %d more", len(ts)-3)
}

func minNote(a *AdapterReport) string {
	if a.Min == DefaultMin {
		return ""
	}
	return "; min " + pct(a.Min)
}

func pct(f float64) string { return fmt.Sprintf("%.1f%%", f) }

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// JSONSchema names the format of coverage.json.
const JSONSchema = "cassette.coverage.v1"

// JSON renders the report as coverage.json: byte-stable for equal inputs
// (no time, paths relative to the project).
func (r *Report) JSON(exitCode int) ([]byte, error) {
	type shape struct {
		Shape     Shape    `json:"shape"`
		Status    string   `json:"status"`
		Calls     int      `json:"calls"`
		Tests     []string `json:"tests"`
		Cassettes []string `json:"cassettes,omitempty"`
		Observed  string   `json:"observed"`
		Scenario  string   `json:"scenario,omitempty"`
		Record    string   `json:"record,omitempty"`
	}
	type stale struct {
		Cassette string  `json:"cassette"`
		Shapes   []Shape `json:"shapes"`
	}
	type adapter struct {
		Name      string  `json:"name"`
		Kind      string  `json:"kind"`
		Status    Status  `json:"status"`
		Percent   float64 `json:"percent"`
		Min       float64 `json:"min"`
		Covered   int     `json:"covered"`
		Observed  int     `json:"observed"`
		Calls     int     `json:"calls"`
		Ignored   int     `json:"ignored_calls"`
		Cassettes int     `json:"cassettes"`
		Config    string  `json:"config"`
		Line      int     `json:"line"`
		Shapes    []shape `json:"shapes"`
		Stale     []stale `json:"stale"`
	}
	covered, observed := r.Totals()
	out := struct {
		Schema   string    `json:"schema"`
		ExitCode int       `json:"exit_code"`
		Covered  int       `json:"covered"`
		Observed int       `json:"observed"`
		Percent  float64   `json:"percent"`
		Adapters []adapter `json:"adapters"`
	}{Schema: JSONSchema, ExitCode: exitCode, Covered: covered, Observed: observed, Percent: round1(percent(covered, observed)), Adapters: []adapter{}}
	for _, a := range r.Adapters {
		ja := adapter{Name: a.Name, Kind: string(a.Kind), Status: a.Status(), Percent: round1(a.Percent()), Min: a.Min, Covered: a.Covered(),
			Observed: len(a.Shapes), Calls: a.Calls, Ignored: a.Ignored, Cassettes: len(a.Cassettes), Config: a.Config, Line: a.Line,
			Shapes: []shape{}, Stale: []stale{}}
		for _, s := range a.Shapes {
			st := "covered"
			if !s.Covered {
				st = "uncovered"
			}
			ts := s.Tests
			if ts == nil {
				ts = []string{}
			}
			ja.Shapes = append(ja.Shapes, shape{Shape: s.Shape, Status: st, Calls: s.Calls, Tests: ts, Cassettes: s.Cassettes,
				Observed: fmt.Sprintf("%s:%d", s.First.File, s.First.Line), Scenario: s.Scenario, Record: s.Record})
		}
		for _, s := range a.Stale {
			ja.Stale = append(ja.Stale, stale(s))
		}
		out.Adapters = append(out.Adapters, ja)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(out)
	return b.Bytes(), err
}

func round1(f float64) float64 { return float64(int(f*10+0.5)) / 10 }
