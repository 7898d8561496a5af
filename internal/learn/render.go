package learn

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// Write prints the outcome: the patch of cassette.yaml, then per
// normalizer the places and sample values it covers, what no normalizer
// can express and what was not recorded again. Samples are redacted
// (Learn) and made printable here.
func (o *Outcome) Write(w io.Writer, adapter string) {
	if o.Changed() {
		io.WriteString(w, Diff(o.Path, o.Old, o.New))
	}
	r := o.Result
	if r == nil {
		return
	}
	if len(r.Proposals) == 0 {
		fmt.Fprintf(w, "nothing volatile differs between %s of each scenario of %s under its normalizers: no change\n", o.recordings(), adapter)
	} else {
		fmt.Fprintf(w, "\nlearned from %s of each scenario of %s:\n", o.recordings(), adapter)
	}
	for _, p := range r.Proposals {
		fmt.Fprintf(w, "  %s (%s)\n", p.Name, what(p))
		for _, pl := range p.Places {
			eg := ""
			if len(pl.Samples) > 0 {
				eg = ", e.g. " + quoteAll(pl.Samples)
			}
			fmt.Fprintf(w, "    %s/%s %s: %s%s\n", adapter, pl.Scenario, outcome.Printable(pl.shown(p)), strings.Join(pl.Classes, "+"), eg)
		}
	}
	for _, w2 := range r.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", w2)
	}
	if len(r.Left) > 0 {
		fmt.Fprintf(w, "\nnot expressible by a normalizer (%d):\n", len(r.Left))
		for _, u := range r.Left {
			fmt.Fprintf(w, "  %s/%s %s: %s, e.g. %s\n    do: %s\n", adapter, u.Scenario, outcome.Printable(u.Where), u.What, quoteAll(u.Samples), u.Advice)
		}
	}
	if len(r.Drifts) > 0 {
		fmt.Fprintf(w, "\nthe fake differs from reality, not in a volatile way (not learned: fix the fake, or the recording):\n")
		for _, d := range r.Drifts {
			if d.Want == "" && d.Got == "" {
				fmt.Fprintf(w, "  %s/%s %s\n", adapter, d.Scenario, outcome.Printable(d.Where))
				continue
			}
			fmt.Fprintf(w, "  %s/%s %s: reality %s, the fake %s\n", adapter, d.Scenario, outcome.Printable(d.Where), quoteAll([]string{d.Want}), quoteAll([]string{d.Got}))
		}
	}
	if len(o.Skipped) > 0 {
		fmt.Fprintf(w, "\nnot recorded again (%d):\n", len(o.Skipped))
		for _, s := range o.Skipped {
			fmt.Fprintf(w, "  %s/%s: %s\n    next: %s\n", adapter, s.Scenario, s.Why, s.NextStep)
		}
	}
}

// shown is where a place is, with the JSON paths a project normalizer
// selects it by (which may keep an index that the place generalises).
func (pl *Place) shown(p Proposal) string {
	if p.Builtin || len(pl.paths) == 0 || !strings.HasSuffix(pl.Where, pl.Path) {
		return pl.Where
	}
	return strings.TrimSuffix(pl.Where, pl.Path) + strings.Join(pl.paths, ", ")
}

// recordings says what was compared: "4 recordings (the committed one and 3 new)".
func (o *Outcome) recordings() string {
	s := fmt.Sprintf("%d recordings", o.Repeat)
	if o.Committed {
		s = fmt.Sprintf("%d recordings (the committed one and %d new)", o.Repeat+1, o.Repeat)
	}
	if o.Fake {
		s += " and the fake's answer"
	}
	return s
}

func what(p Proposal) string {
	if p.Builtin {
		return "built-in"
	}
	d := p.Definition
	var parts []string
	switch {
	case len(d.JSONPaths) > 0:
		parts = append(parts, fmt.Sprintf("%d JSON path(s)", len(d.JSONPaths)))
	case len(d.Headers) > 0:
		parts = append(parts, fmt.Sprintf("header(s) %s", strings.Join(d.Headers, ", ")))
	case d.Regex != "":
		parts = append(parts, "a regex on text")
	}
	if d.Replace == "" {
		parts = append(parts, "numbered, so that a value recurring elsewhere keeps its identity")
	} else {
		parts = append(parts, "→ "+d.Replace)
	}
	return "project normalizer: " + strings.Join(parts, ", ")
}

func quoteAll(vs []string) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = outcome.Printable(strconv.Quote(v))
	}
	return strings.Join(out, ", ")
}
