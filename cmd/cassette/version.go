package main

import (
	"encoding/json"
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

func newVersionCmd(stdio *IO, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version of cassette",
		Example: "  cassette version\n  cassette version --json   # {\"version\": …, \"sha\": …, \"go\": …}",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, sha := buildInfo()
			if g.json {
				return json.NewEncoder(stdio.Out).Encode(map[string]string{"version": v, "sha": sha, "go": runtime.Version()})
			}
			_, err := fmt.Fprintf(stdio.Out, "%s %s/%s %s\n", versionString(), runtime.GOOS, runtime.GOARCH, runtime.Version())
			return err
		},
	}
}
