package verify

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verdict"
)

// Console writes the human account of a run: one line per case, the
// explanation of each failure under it, a summary line and the next step.
// What comes from a cassette or a fake (case names, messages, diffs of
// their text) reaches the terminal without its control characters: an
// escape sequence in a recorded body is shown as \x1b[…, never obeyed
// (outcome.Printable, PrintableText).
type Console struct {
	W     io.Writer
	Color bool
}

func (c Console) paint(code, s string) string {
	if !c.Color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// Write renders the outcome with the run model's verdict.
func (c Console) Write(o *Outcome, run *verdict.Run) {
	width := 0
	for _, r := range o.Results {
		width = max(width, len(outcome.Printable(r.Case.ID())))
	}
	var pass, fail, errs, quar, skipped int
	for _, r := range o.Results {
		tag := c.paint("32", "PASS ")
		switch {
		case r.Status == verdict.StatusPass:
			pass++
		case r.Status == verdict.StatusSkipped:
			skipped++
			tag = c.paint("33", "SKIP ")
		case r.Quarantine != nil && r.Failed() && r.Reason != outcome.EQuarantineExpired:
			quar++
			tag = c.paint("33", "QUAR ")
		case r.Status == verdict.StatusError:
			errs++
			tag = c.paint("31", "ERROR")
		default:
			fail++
			tag = c.paint("31", "FAIL ")
		}
		line := fmt.Sprintf("%s %-*s %6s", tag, width, outcome.Printable(r.Case.ID()), r.Duration.Round(time.Millisecond))
		if r.Status != verdict.StatusPass {
			line += "  " + outcome.Printable(r.Message)
		}
		if n := len(r.Retries); n > 0 { // a quarantined case run again (QuarantineRetry)
			line += fmt.Sprintf("  (quarantine: %s on the first attempt, retried %d time(s) after %s)", r.Retries[0].Status, n,
				time.Duration(r.Retries[0].DelayMS)*time.Millisecond)
		}
		fmt.Fprintln(c.W, strings.TrimRight(line, " "))
		if r.Explain != "" {
			fmt.Fprintln(c.W, indentBlock(outcome.PrintableText(r.Explain), "      "))
		}
		if r.Status == verdict.StatusError && r.FakeLog != "" {
			fmt.Fprintf(c.W, "      fake log: %s\n", outcome.Printable(r.FakeLog))
		}
	}
	// o.Err, the run's own error, is the run's ending's to print (one
	// error[…] line, on stderr, with its problems and the next step).
	c.writeModelled(run) // modelled.go
	summary := fmt.Sprintf("%d passed, %d failed", pass, fail+errs)
	if quar > 0 {
		summary += fmt.Sprintf(", %d quarantined", quar)
	}
	if skipped > 0 {
		summary += fmt.Sprintf(", %d skipped", skipped)
	}
	fmt.Fprintf(c.W, "\n%s in %s\n", summary, o.Finished.Sub(o.Started).Round(time.Millisecond))
}

func indentBlock(s, pre string) string {
	s = strings.TrimRight(s, "\n")
	return pre + strings.ReplaceAll(s, "\n", "\n"+pre)
}
