package coverage

import (
	"fmt"
	"io"
	"strings"

	"github.com/cassette-dev/cassette/internal/outcome"
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
	r.Modelled.writeModelled(w, paint) // modelled.go
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
				fmt.Fprintf(w, "  covered    %s  (%s; %s)\n", outcome.Printable(string(s.Shape)), plural(s.Calls, "call"), strings.Join(s.Cassettes, ", "))
			}
			continue
		}
		fmt.Fprintf(w, "  %s  %s  (%s by %s)\n", paint("31", "uncovered"), outcome.Printable(string(s.Shape)), plural(s.Calls, "call"), outcome.Printable(tests(s.Tests)))
		if s.Record != "" {
			fmt.Fprintf(w, "             record: %s\n", s.Record)
		}
		if s.Note != "" {
			fmt.Fprintf(w, "             first %s\n", s.Note)
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

func round1(f float64) float64 { return float64(int(f*10+0.5)) / 10 }
