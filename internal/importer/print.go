package importer

import (
	"fmt"
	"io"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// Print says what an import did, whether it ended well or not: each saved
// cassette on out (its path and its number of interactions); the renames,
// the skipped HAR entries, the warnings and the refused cassettes on errw.
// Every name from the imported files is printed made printable.
func (r *Result) Print(out, errw io.Writer) {
	for _, n := range r.Renamed {
		fmt.Fprintf(errw, "renamed %s to %s: git, file systems and shells cannot all carry the name\n", outcome.Quote(n.From), n.To)
	}
	if r.Skipped > 0 {
		fmt.Fprintf(errw, "skipped %d entries without a response (blocked or aborted in the browser)\n", r.Skipped)
	}
	for _, w := range r.Warnings {
		fmt.Fprintln(errw, "warning: "+w)
	}
	for _, c := range r.Saved {
		fmt.Fprintf(out, "%s  %d interaction(s)\n", outcome.Printable(c.Path), len(c.Interactions))
	}
	for _, f := range r.Refused {
		fmt.Fprintf(errw, "not imported: %s (it holds a key of a known format; see below)\n", outcome.Quote(f.Source))
	}
}
