package main

import (
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/internal/gendocs"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// newGendocsCmd is the hidden command that writes the generated pages of
// the docs site and the JSON Schemas (internal/gendocs) below --out, the
// repository's root; TestGeneratedDocsFresh holds the committed files to
// what it writes.
func newGendocsCmd(stdio *IO, g *globals) *cobra.Command {
	out := "."
	cmd := &cobra.Command{
		Use:    "gendocs",
		Short:  "Write the generated reference pages of the docs site and the JSON Schemas",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			pages, err := gendocs.Site(newRootCmd(&IO{}, &globals{}), filepath.Join(out, "cassettes"))
			if err != nil {
				return &outcome.Error{Reason: outcome.EUsage, Message: "the generated docs are incomplete: " + err.Error(), Err: err}
			}
			for name, data := range pages {
				path := filepath.Join(out, filepath.FromSlash(name))
				err := os.MkdirAll(filepath.Dir(path), 0o755)
				if err == nil {
					err = os.WriteFile(path, data, 0o644)
				}
				if err != nil {
					return &outcome.Error{Reason: outcome.EIO, Message: "cannot write " + path, Err: err, NextStep: outcome.Command("ls", "-ld", out)}
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", out, "the repository's root: pages go below its docs/, schemas below its schema/")
	return cmd
}
