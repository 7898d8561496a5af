package diff

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// ANSI colours for Render; callers pass color=false when NO_COLOR is set or
// the writer is not a terminal.
const (
	red   = "\x1b[31m"
	green = "\x1b[32m"
	bold  = "\x1b[1m"
	reset = "\x1b[0m"
)

// Render writes a human explanation of r: one block per drift, naming the
// class, the field, the JSONPath and file:line, then what changed. What
// comes from data is printed without its control characters: a name or a
// path (a file name, a JSON key) on the drift's own line as a Go escape
// (outcome.Printable: a line break in it cannot start a line of its own,
// a forged `next:` step), a diff line with only its tabs kept
// (outcome.PrintableText: no escape sequence is obeyed), a value over
// several lines with each later line indented under it
// (outcome.PrintableBlock).
func Render(w io.Writer, r *Result, color bool) error {
	pw := &printer{w: w, color: color}
	if r.Equal {
		pw.printf("%s: no drift\n", outcome.Printable(r.Cassette))
		return pw.err
	}
	n := len(r.Drifts)
	pw.printf("%s%s: %d drift%s%s\n", pw.c(bold), outcome.Printable(r.Cassette), n, plural(n), pw.c(reset))
	for _, d := range r.Drifts {
		renderDrift(pw, d)
	}
	return pw.err
}

func renderDrift(pw *printer, d Drift) {
	loc := ""
	if d.File != "" {
		loc = filepath.ToSlash(d.File)
		if d.Line > 0 {
			loc += fmt.Sprintf(":%d", d.Line)
		}
		loc = "  (" + loc + ")"
	}
	where := d.Field
	if d.Path != "" && d.Class != ClassHeaders {
		where += " " + d.Path
	}
	pw.printf("  %-11s %s%s\n", d.Class, outcome.Printable(where), outcome.Printable(loc))
	if d.Hint != "" {
		pw.printf("      %s\n", outcome.PrintableBlock(d.Hint, "      "))
	}
	text := outcome.PrintableText
	// a value over several lines: its later lines under the value's own
	value := func(v string) string { return outcome.PrintableBlock(v, "        ") }
	switch {
	case d.Diff != "" && d.Change != Reordered:
		for _, line := range strings.SplitAfter(strings.TrimSuffix(d.Diff, "\n"), "\n") {
			line = text(strings.TrimSuffix(line, "\n"))
			switch {
			case strings.HasPrefix(line, "+") && !strings.HasPrefix(line, "+++"):
				pw.printf("      %s%s%s\n", pw.c(green), line, pw.c(reset))
			case strings.HasPrefix(line, "-") && !strings.HasPrefix(line, "---"):
				pw.printf("      %s%s%s\n", pw.c(red), line, pw.c(reset))
			default:
				pw.printf("      %s\n", line)
			}
		}
	case d.Change == Added:
		pw.printf("      %s %s+ %s%s\n", outcome.Printable(what(d)), pw.c(green), value(d.Got), pw.c(reset))
	case d.Change == Removed:
		pw.printf("      %s %s- %s%s\n", outcome.Printable(what(d)), pw.c(red), value(d.Want), pw.c(reset))
	case d.Change == Reordered:
		pw.printf("      records reordered: %s, %s\n", value(d.Want), value(d.Got))
	default:
		pw.printf("      %s\n", outcome.Printable(what(d)))
		pw.printf("      %s- %s%s\n", pw.c(red), value(d.Want), pw.c(reset))
		pw.printf("      %s+ %s%s\n", pw.c(green), value(d.Got), pw.c(reset))
	}
}

// what says in words what changed.
func what(d Drift) string {
	thing := map[Class]string{ClassSchema: "field", ClassValue: "item", ClassHeaders: "header " + d.Path,
		ClassStream: "record", ClassInteraction: "interaction"}[d.Class]
	switch d.Change {
	case Added:
		return thing + " added:"
	case Removed:
		return thing + " removed:"
	case TypeChanged:
		return "type changed:"
	case ValueChanged:
		if d.Class == ClassHeaders {
			return "header " + d.Path + " changed:"
		}
		return "value changed:"
	}
	return "changed:"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

type printer struct {
	w     io.Writer
	color bool
	err   error
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func (p *printer) c(code string) string {
	if p.color {
		return code
	}
	return ""
}

// WriteJSON writes r as indented JSON, for `cassette diff --json`.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
