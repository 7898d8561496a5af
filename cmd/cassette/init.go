package main

import (
	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/internal/gendocs"
	"github.com/cassette-dev/cassette/internal/scaffold"
)

// configSchema is the address of cassette.yaml's JSON Schema, which the
// config init writes names on its first line.
const configSchema = gendocs.SchemaBase + "cassette.yaml.schema.json"

func newInitCmd(stdio *IO, g *globals) *cobra.Command {
	in := &scaffold.Init{Schema: configSchema, Out: stdio.Out}
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Scaffold cassette.yaml and the cassettes/ directory",
		Example: `  cassette init
  cassette init --learn     # no normalizers guessed: learn them from the first recordings
  cassette init --config ci/cassette.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			in.Path, in.Above = g.config, findConfig(g.config)
			return in.Run()
		},
	}
	cmd.Flags().BoolVar(&in.Force, "force", false, "overwrite an existing config file")
	cmd.Flags().BoolVar(&in.Learn, "learn", false, "start with no normalizers, and say how to learn them from the real side (record, learn, verify)")
	return cmd
}
