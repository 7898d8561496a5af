package harness

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// WriteTable writes the listing for a person (`cassette cases` without
// --json): one case a line, its id, kind, file:line and call shape.
func (l *Listing) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, c := range l.Cases {
		fmt.Fprintf(tw, "%s\t%s\t%s:%d\t%s\n", c.ID, c.Kind, c.File, c.Line, callShape(c))
	}
	return tw.Flush()
}

// callShape is a case's input in one line: the command, or the requests.
func callShape(c Case) string {
	if c.CLI != nil {
		return outcome.ShellJoin(append([]string{c.CLI.Command}, c.CLI.Args...))
	}
	var reqs []string
	for _, r := range c.HTTP.Requests {
		reqs = append(reqs, r.Method+" "+r.Target)
	}
	return strings.Join(reqs, ", ")
}
