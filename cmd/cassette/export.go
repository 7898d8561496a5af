package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/internal/har"
	"github.com/cassette-dev/cassette/internal/importer"
	"github.com/cassette-dev/cassette/internal/outcome"
)

func newExportCmd(stdio *IO, g *globals) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		GroupID: "tools",
		Use:     "export har CASSETTE...",
		Short:   "Write HTTP cassettes as one HAR 1.2 file (for browsers' dev tools, WireMock, Hoverfly)",
		Long: `export har writes the HTTP interactions of the cassettes (files or
directories) as a HAR 1.2 archive: one page per cassette, one entry per
interaction, in order. Chromium's and Firefox's network panels import it
(Network → Import HAR). Text bodies are written as text, others as base64.
Cassettes hold no credentials, so neither does the HAR.`,
		Example: `  cassette export har cassettes/github --out github.har
  cassette export har cassettes/shop/checkout.yaml > checkout.har`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] != "har" {
				return outcome.Errorf(outcome.EUsage, outcome.Command(append([]string{"cassette", "export", "har"}, args[1:]...)...), "export %q: only har is supported", args[0])
			}
			ver, _ := buildInfo()
			x, err := importer.ExportHAR(args[1:], har.Creator{Name: "cassette", Version: ver})
			if err != nil {
				return err
			}
			if out == "" || out == "-" {
				_, err = stdio.Out.Write(x.JSON)
				return err
			}
			if err := os.WriteFile(out, x.JSON, 0o644); err != nil {
				return &outcome.Error{Reason: outcome.EIO, Message: "cannot write " + out, Err: err, NextStep: outcome.Command("ls", "-ld", filepath.Dir(out))}
			}
			fmt.Fprintf(stdio.Err, "wrote %d entries from %d cassette(s) to %s\n", x.Entries, x.Cassettes, out)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "file to write (default: standard output)")
	return cmd
}
